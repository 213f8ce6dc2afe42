package engine

import "testing"

// The budget of raw streams: per test at most MaxRawPerTest, in all at
// most the process's; GOMAXPROCS follows what is held, and overlapping
// tests released in any order leave it where it started (each test used
// to raise it from the value it found and restore that, so overlapping
// tests left it raised for good, or too low). GOMAXPROCS is this test's
// own: the engine tests before it release their private budgets'
// processors when their streams end, which can be during this test.
func TestProcsBudget(t *testing.T) {
	start := 2
	gomaxprocs := start
	p := &Procs{base: start, max: 40, setProcs: func(n int) int { old := gomaxprocs; gomaxprocs = n; return old }}
	k1, r1 := p.Reserve(100)
	if k1 != MaxRawPerTest || gomaxprocs != start+k1 {
		t.Fatalf("first test: %d granted, GOMAXPROCS %d", k1, gomaxprocs)
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
	if p.Held() != k2 || gomaxprocs != start+k2 {
		t.Fatalf("after the first ends: %d held, GOMAXPROCS %d", p.Held(), gomaxprocs)
	}
	r3()
	r2()
	if p.Held() != 0 || gomaxprocs != start {
		t.Fatalf("at the end: %d held, GOMAXPROCS %d, was %d", p.Held(), gomaxprocs, start)
	}
}
