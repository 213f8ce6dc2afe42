package cores

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Two fixture readings 100 ticks apart per core: cpu1 spent 70 on
// softirq, 15 in the kernel, 14 in user code, 1 idle: saturated; cpu0
// was half idle (40 idle, 10 iowait).
func TestSince(t *testing.T) {
	before, err := Read("testdata/before")
	if err != nil {
		t.Fatal(err)
	}
	after, err := Read("testdata/after")
	if err != nil {
		t.Fatal(err)
	}
	loads := after.Since(before)
	if len(loads) != 2 {
		t.Fatalf("%+v", loads)
	}
	b, ok := Busiest(loads)
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.01 }
	if !ok || b.CPU != 1 || !near(b.Busy, 99) || !near(b.SoftIRQ, 70) || !near(b.System, 15) || !near(b.User, 14) || !b.Saturated() {
		t.Fatalf("busiest %+v", b)
	}
	if l := loads[0]; l.CPU != 0 || !near(l.Busy, 50) || l.Saturated() {
		t.Fatalf("cpu0 %+v", l)
	}
	if s := b.String(); s != "cpu1 99% busy (softirq 70%, system 15%, user 14%)" {
		t.Fatalf("%q", s)
	}
	// The same reading twice: no interval, no load.
	if l := after.Since(after); len(l) != 0 {
		t.Fatalf("no time passed: %+v", l)
	}
}

func TestReadBad(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "proc"), 0o755)
	for _, body := range []string{"cpu  1 2 3 4 5 6 7 8\n", "cpux 1 2 3 4 5 6 7 8\n", "cpu0 1 2 x 4 5 6 7 8\n"} {
		os.WriteFile(filepath.Join(dir, "proc/stat"), []byte(body), 0o644)
		if s, err := Read(dir); err == nil {
			t.Errorf("%q: %+v, want an error", body, s)
		}
	}
	if _, err := Read(filepath.Join(dir, "none")); err == nil {
		t.Error("no file: want an error")
	}
}

func TestLive(t *testing.T) {
	s, err := Read("/")
	if err != nil || len(s) == 0 {
		t.Fatalf("%v %v", s, err)
	}
}
