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
			switch k.Acts {
			case SideSend, SideReceive, SideBoth, SideNone:
			default:
				if osName == "linux" {
					t.Errorf("linux %s: acts %q, want send, receive, both or none", k.Name, k.Acts)
				}
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

// TestDefaultOn: a knob's default is its kernel release's: tcp_rmem's
// max rose from 6 MiB to 32 MiB in Linux 6.16; an unknown release gets
// the newest's.
func TestDefaultOn(t *testing.T) {
	k, ok := Lookup("linux", "net.ipv4.tcp_rmem")
	if !ok {
		t.Fatal("no tcp_rmem")
	}
	for rel, want := range map[string]int64{
		"6.18.44-fc-v769": 33554432, "6.16.0": 33554432, "7.0": 33554432,
		"6.15.9-arch1": 6291456, "5.14.0-427.el9.x86_64": 6291456, "4.19": 6291456,
		"": 33554432, "unknown": 33554432,
	} {
		if got := k.DefaultOn(rel); len(got) != 3 || got[2] != want {
			t.Errorf("%q: %v, want max %d", rel, got, want)
		}
	}
	w, _ := Lookup("linux", "net.ipv4.tcp_wmem")
	if got := w.DefaultOn("5.10"); got[2] != 4194304 {
		t.Errorf("tcp_wmem on 5.10: %v", got)
	}
}
