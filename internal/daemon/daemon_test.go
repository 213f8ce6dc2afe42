package daemon

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

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

// The PID file exists while run runs and is gone after it, also when run
// fails; "" writes none.
func TestWithPIDFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.pid")
	saw := ""
	err := WithPIDFile(path, func() error {
		b, _ := os.ReadFile(path)
		saw = strings.TrimSpace(string(b))
		return os.ErrClosed
	})
	if err != os.ErrClosed || saw != strconv.Itoa(os.Getpid()) {
		t.Fatalf("while running the file held %q (err %v)", saw, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("PID file left behind")
	}
	ran := false
	if err := WithPIDFile("", func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("no PID file: ran %v, %v", ran, err)
	}
}

// Start marks the process it runs, so that it never starts another
// whatever spelling of -D its command line holds.
func TestIsChild(t *testing.T) {
	t.Setenv(childEnv, "")
	if IsChild() {
		t.Fatal("a process Start did not run is a child")
	}
	t.Setenv(childEnv, "1")
	if !IsChild() {
		t.Fatal("the mark is not read")
	}
}
