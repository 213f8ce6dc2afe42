package cpuusage

import (
	"testing"
	"time"
)

func TestBusyLoopUsesCPU(t *testing.T) {
	s := Now()
	deadline := time.Now().Add(200 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	u := s.Since()
	if u.Total <= 0 || u.User <= 0 {
		t.Fatalf("busy loop shows no CPU use: %+v (x=%d)", u, x)
	}
	if Between(s, s) != (Util{}) {
		t.Fatal("zero interval")
	}
}
