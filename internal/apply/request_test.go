package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apply's request: a file's settings, then each --set, errors naming
// the file or the flag.
func TestReadRequest(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.conf")
	os.WriteFile(file, []byte("net.ipv4.tcp_rmem = 4096 131072 16777216\n"), 0o644)
	kvs, err := ReadRequest(file, []string{"link.eth0.mtu=9000"})
	if err != nil || len(kvs) != 2 || kvs[0].Key != "net.ipv4.tcp_rmem" || kvs[1].Key != "link.eth0.mtu" || kvs[1].Value != "9000" {
		t.Fatalf("%+v %v", kvs, err)
	}
	for _, c := range []struct {
		file string
		sets []string
		want string
	}{
		{"", nil, "apply: give a FILE"},
		{"", []string{"novalue"}, "--set: "},
		{filepath.Join(t.TempDir(), "missing"), nil, "no such file"},
	} {
		if _, err := ReadRequest(c.file, c.sets); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: %v, want %q", c.file, c.sets, err, c.want)
		}
	}
}
