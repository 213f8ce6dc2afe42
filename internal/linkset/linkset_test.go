package linkset

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParse(t *testing.T) {
	for key, want := range map[string][2]string{
		"link.eth0.mtu":            {"eth0", "mtu"},
		"link.eth0/100.txqueuelen": {"eth0.100", "txqueuelen"},
		"link.tlab3a.mtu":          {"tlab3a", "mtu"},
	} {
		i, a, err := Parse(key)
		if err != nil || i != want[0] || a != want[1] {
			t.Errorf("%s: %q %q %v", key, i, a, err)
		}
		if k := Key(i, a); k != key {
			t.Errorf("Key(%q, %q) = %q, want %q", i, a, k, key)
		}
	}
	for _, bad := range []string{"link.mtu", "link.eth0.speed", "link..mtu", "link.a/b/../x.mtu", "link.averyveryverylongname.mtu", "net.ipv4.tcp_rmem", "link.eth 0.mtu", "link.../.mtu"} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if p := Pattern("link.eth0/100.mtu"); p != "link.*.mtu" {
		t.Errorf("pattern %q", p)
	}
}

func TestFixtureStore(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sys", "class", "net", "eth0.100")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "mtu"), []byte("1500\n"), 0o644)
	s := Store{Root: root}
	if v, err := s.Get("link.eth0/100.mtu"); err != nil || v != "1500" {
		t.Fatalf("get: %q %v", v, err)
	}
	if err := s.Set("link.eth0/100.mtu", "9000"); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("link.eth0/100.mtu"); v != "9000" {
		t.Fatalf("after set: %q", v)
	}
	if err := s.Set("link.eth0/100.txqueuelen", "10000"); err == nil {
		t.Fatal("set an attribute the interface lacks")
	}
	if err := s.Set("link.eth0/100.mtu", "lots"); err == nil {
		t.Fatal("set a non-number")
	}
}
