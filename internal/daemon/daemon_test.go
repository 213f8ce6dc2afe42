package daemon

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestWithoutFlag(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"-s", "-D", "-p", "5201"}, []string{"-s", "-p", "5201"}},
		{[]string{"-sD", "--logfile", "x"}, []string{"-s", "--logfile", "x"}},
		{[]string{"--daemon", "-s"}, []string{"-s"}},
		{[]string{"-D"}, nil},
		{[]string{"-s", "-B", "10.0.0.D"}, []string{"-s", "-B", "10.0.0.D"}},
		{[]string{"-s", "--", "-D"}, []string{"-s", "--", "-D"}},
	} {
		if got := WithoutFlag(c.in, "daemon", 'D'); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPIDFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "iperf3.pid")
	remove, err := WritePIDFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Fatalf("PID file holds %q", b)
	}
	remove()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("PID file left behind")
	}
	// A stale file (no such process) is replaced.
	os.WriteFile(path, []byte("999999999\n"), 0o644)
	if _, err := WritePIDFile(path); err != nil {
		t.Fatalf("stale PID file not replaced: %v", err)
	}
	if _, err := WritePIDFile(filepath.Join(t.TempDir(), "no", "such", "dir", "p")); err == nil {
		t.Fatal("PID file in a missing directory accepted")
	}
}
