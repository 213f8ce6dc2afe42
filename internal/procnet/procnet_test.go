package procnet

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFixture(t *testing.T) {
	f := FS{Root: "testdata"}
	c, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	// These four are missing or broken in prometheus/procfs.
	for name, want := range map[string]int64{"TcpExt.PruneCalled": 17, "TcpExt.TCPRcvCollapsed": 312, "TcpExt.TCPZeroWindowDrop": 5, "TcpExt.TCPMemoryPressures": 2} {
		if got := c.Get(name); got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
	if _, ok := c["Tcp.RetransSegs"]; !ok {
		t.Error("Tcp.RetransSegs missing (from snmp)")
	}
	if _, ok := c["TcpExt.TCPBacklogDrop"]; !ok {
		t.Error("TcpExt.TCPBacklogDrop missing")
	}
	if d, err := f.SoftnetDrops(); err != nil || d != 0x2a+3 {
		t.Errorf("softnet drops %d, %v", d, err)
	}
	if m, err := f.TCPMemPages(); err != nil || m <= 0 {
		t.Errorf("tcp mem %d, %v", m, err)
	}
}

func TestMalformed(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "proc/net"), 0o755)
	for _, bad := range []string{"TcpExt: A B\nTcpExt: 1\n", "TcpExt: A\nIpExt: 1\n", "TcpExt: A\nTcpExt: x\n"} {
		os.WriteFile(filepath.Join(dir, "proc/net/netstat"), []byte(bad), 0o644)
		os.WriteFile(filepath.Join(dir, "proc/net/snmp"), nil, 0o644)
		if _, err := (FS{Root: dir}).Counters(); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	os.WriteFile(filepath.Join(dir, "proc/net/softnet_stat"), []byte("zz\n"), 0o644)
	if _, err := (FS{Root: dir}).SoftnetDrops(); err == nil {
		t.Error("accepted a bad softnet_stat")
	}
}

func TestLive(t *testing.T) {
	c, err := FS{Root: "/"}.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c["TcpExt.TCPRcvCollapsed"]; !ok {
		t.Error("live TcpExt.TCPRcvCollapsed missing")
	}
	if _, err := (FS{Root: "/"}).SoftnetDrops(); err != nil {
		t.Error(err)
	}
}

func TestRcvbufErrors(t *testing.T) {
	n, err := FS{Root: "testdata"}.RcvbufErrors()
	if err != nil || n != 29213 {
		t.Fatalf("%d %v", n, err)
	}
	if _, err := (FS{Root: t.TempDir()}).RcvbufErrors(); err == nil {
		t.Error("no snmp file: want an error")
	}
}
