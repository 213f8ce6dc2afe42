package knobs

import "testing"

func TestCatalogue(t *testing.T) {
	for _, osName := range Systems {
		o, err := Catalogue(osName)
		if err != nil || len(o.Knobs) == 0 || o.Persist == "" || o.Set == "" {
			t.Fatalf("%s: %v %+v", osName, err, o)
		}
		for _, k := range o.Knobs {
			if k.Name == "" || k.Meaning == "" || k.Unit == "" {
				t.Errorf("%s: incomplete knob %+v", osName, k)
			}
			if k.Numeric() && !k.Obsolete && k.Max < k.Min {
				t.Errorf("%s %s: max < min", osName, k.Name)
			}
			if osName == "linux" && k.PerNetns == nil {
				t.Errorf("linux %s: namespace scope missing", k.Name)
			}
		}
	}
	if _, err := Catalogue("plan9"); err == nil {
		t.Fatal("unknown OS accepted")
	}
}

func TestCheck(t *testing.T) {
	k, ok := Lookup("linux", "net.ipv4.tcp_rmem")
	if !ok {
		t.Fatal("tcp_rmem missing")
	}
	if err := k.Check([]int64{4096, 131072, 16777216}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]int64{{4096, 131072}, {4096, 1 << 30, 1 << 20}, {4096, 131072, 1 << 31}, {0, 1, 2}} {
		if k.Check(bad) == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	w, _ := Lookup("windows", "TcpWindowSize")
	if !w.Obsolete {
		t.Fatal("TcpWindowSize must be marked obsolete")
	}
}
