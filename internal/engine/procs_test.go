package engine

import (
	"runtime"
	"testing"
)

// The budget of raw streams: per test at most MaxRawPerTest, in all at
// most the process's; GOMAXPROCS follows what is held, and overlapping
// tests released in any order leave it where it started (each test used
// to raise it from the value it found and restore that, so overlapping
// tests left it raised for good, or too low).
func TestProcsBudget(t *testing.T) {
	start := runtime.GOMAXPROCS(0)
	p := NewProcsMax(40)
	k1, r1 := p.Reserve(100)
	if k1 != MaxRawPerTest || runtime.GOMAXPROCS(0) != start+k1 {
		t.Fatalf("first test: %d granted, GOMAXPROCS %d", k1, runtime.GOMAXPROCS(0))
	}
	k2, r2 := p.Reserve(20)
	if k2 != 40-MaxRawPerTest || p.Held() != 40 {
		t.Fatalf("second test: %d granted, %d held", k2, p.Held())
	}
	k3, r3 := p.Reserve(5)
	if k3 != 0 {
		t.Fatalf("over budget: %d granted", k3)
	}
	r1()
	r1() // twice is once
	if p.Held() != k2 || runtime.GOMAXPROCS(0) != start+k2 {
		t.Fatalf("after the first ends: %d held, GOMAXPROCS %d", p.Held(), runtime.GOMAXPROCS(0))
	}
	r3()
	r2()
	if p.Held() != 0 || runtime.GOMAXPROCS(0) != start {
		t.Fatalf("at the end: %d held, GOMAXPROCS %d, was %d", p.Held(), runtime.GOMAXPROCS(0), start)
	}
}
