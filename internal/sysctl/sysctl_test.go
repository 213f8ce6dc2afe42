package sysctl

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFixture(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "proc/sys/net/ipv4")
	os.MkdirAll(filepath.Join(dir, "conf/eth0.100"), 0o755)
	os.WriteFile(filepath.Join(dir, "tcp_rmem"), []byte("4096\t131072\t33554432\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "conf/eth0.100/rp_filter"), []byte("1\n"), 0o644)
	fs := FS{Root: root}
	if v, err := fs.Get("net.ipv4.tcp_rmem"); err != nil || v != "4096 131072 33554432" {
		t.Fatalf("%q %v", v, err)
	}
	if fs.Int("net.ipv4.tcp_rmem", 2) != 33554432 || fs.Int("net.ipv4.nope", 0) != -1 {
		t.Fatal("Int")
	}
	if v, err := fs.Get("net.ipv4.conf.eth0/100.rp_filter"); err != nil || v != "1" {
		t.Fatalf("vlan key: %q %v", v, err)
	}
	for _, bad := range []string{"", "net..ipv4", "net.ipv4.../etc", "a b"} {
		if _, err := fs.Path(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestLive(t *testing.T) {
	if _, err := os.Stat("/proc/sys/net/ipv4/tcp_rmem"); err != nil {
		t.Skip("no /proc/sys (not Linux)")
	}
	v, err := Host().Ints("net.ipv4.tcp_rmem")
	if err != nil || len(v) != 3 || v[0] > v[2] {
		t.Fatalf("live tcp_rmem: %v %v", v, err)
	}
}

// Keys come from the command line and from backup files: none may name
// a file outside /proc/sys, before or after the "/"→"." translation.
func TestPathStaysUnderProcSys(t *testing.T) {
	f := FS{Root: "/"}
	for _, bad := range []string{"net.//.//.//.tmp.canary", "net./..tmp", "..", "net..ipv4", "net.ipv4./", "/etc/passwd",
		"net.ipv4.//", "a.b\\c", "", "net.ipv4.tcp_rmem\x00", "net/..ipv4"} {
		if p, err := f.Path(bad); err == nil {
			t.Errorf("%q accepted as %s", bad, p)
		}
	}
	for key, want := range map[string]string{
		"net.ipv4.tcp_rmem":                "/proc/sys/net/ipv4/tcp_rmem",
		"net.ipv4.conf.eth0/100.rp_filter": "/proc/sys/net/ipv4/conf/eth0.100/rp_filter",
	} {
		if p, err := f.Path(key); err != nil || p != want {
			t.Errorf("%q: %s %v, want %s", key, p, err, want)
		}
	}
}

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"net.ipv4.tcp_rmem":                 "net.ipv4.tcp_rmem",
		"net/ipv4/tcp_rmem":                 "net.ipv4.tcp_rmem",
		"net.ipv4.conf.eth0/100.forwarding": "net.ipv4.conf.eth0/100.forwarding",
		"net/ipv4/conf/eth0.100/forwarding": "net.ipv4.conf.eth0/100.forwarding",
		"kernel":                            "kernel",
		"link.eth0/100.mtu":                 "link.eth0/100.mtu",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
	// Both spellings name one file.
	f := FS{Root: "/r"}
	a, _ := f.Path(Canonical("net/ipv4/conf/eth0.100/forwarding"))
	b, _ := f.Path("net.ipv4.conf.eth0/100.forwarding")
	if a != b || a != "/r/proc/sys/net/ipv4/conf/eth0.100/forwarding" {
		t.Errorf("%s %s", a, b)
	}
}
