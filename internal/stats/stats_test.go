package stats

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 3, 2, 4}, 0.95)
	if s.Median != 3 || s.Min != 1 || s.Max != 5 || s.N != 5 || s.Mean != 3 {
		t.Fatalf("bad summary %+v", s)
	}
	// n=5: no symmetric pair reaches 95%; the full range has 1-2/32.
	if s.CILow != 1 || s.CIHigh != 5 || math.Abs(s.CILevel-0.9375) > 1e-9 {
		t.Fatalf("bad CI %+v", s)
	}
	if math.Abs(s.StdDev-math.Sqrt(2.5)) > 1e-9 {
		t.Fatalf("stddev %v", s.StdDev)
	}
}

func TestMedianCILarge(t *testing.T) {
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	s := Summarize(xs, 0.95)
	// Known table value: n=20 gives the 6th and 15th order statistics at 95.9%.
	if s.CILow != 6 || s.CIHigh != 15 {
		t.Fatalf("CI = [%v, %v] level %v", s.CILow, s.CIHigh, s.CILevel)
	}
	if s.CILevel < 0.95 || s.CILevel > 0.97 {
		t.Fatalf("level %v", s.CILevel)
	}
	if s.Median != 10.5 {
		t.Fatalf("median %v", s.Median)
	}
}

func TestEdge(t *testing.T) {
	if s := Summarize(nil, 0.95); s.N != 0 {
		t.Fatal("empty")
	}
	s := Summarize([]float64{7}, 0.95)
	if s.Median != 7 || s.CILow != 7 || s.CIHigh != 7 {
		t.Fatalf("%+v", s)
	}
	if !Overlaps(Summarize([]float64{1, 2, 3}, .95), Summarize([]float64{3, 4, 5}, .95)) {
		t.Fatal("overlap")
	}
	if Overlaps(Summarize([]float64{1, 2, 3}, .95), Summarize([]float64{4, 5, 6}, .95)) {
		t.Fatal("no overlap")
	}
}

func TestLogSpreadApart(t *testing.T) {
	for _, c := range []struct {
		name    string
		samples [][]float64
		spread  float64
		df      int
	}{
		{"no sample of two", [][]float64{{5}, {7}}, 0, 0},
		{"constant", [][]float64{{3, 3, 3}}, 0, 2},
		// Two values a factor e apart: logs 0 and 1, sd 1/√2.
		{"a factor e", [][]float64{{1, math.E}}, 1 / math.Sqrt2, 1},
		// Pooled: each about its own mean, so levels do not add spread.
		{"pooled over levels", [][]float64{{1, math.E}, {100, 100 * math.E}}, 1 / math.Sqrt2, 2},
		{"non-positive values skipped", [][]float64{{0, -1, 1, math.E}}, 1 / math.Sqrt2, 1},
	} {
		s, df := LogSpread(c.samples...)
		if math.Abs(s-c.spread) > 1e-12 || df != c.df {
			t.Errorf("%s: %v (df %d), want %v (df %d)", c.name, s, df, c.spread, c.df)
		}
	}
	if got := Apart(0.1, 2, 2, 2); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("Apart(0.1, 2, 2, 2) = %v, want 0.2", got)
	}
	if got := Apart(0.1, 2, 4, 0); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("Apart(0.1, 2, 4, 0) = %v, want 0.1 (a mean held to a figure)", got)
	}
}

func TestOutranks(t *testing.T) {
	for _, c := range []struct {
		name   string
		hi, lo []float64
		want   float64
	}{
		{"three above three", []float64{29.1, 29.3, 29.5}, []float64{24.3, 26.4, 28.8}, 1.0 / 20},
		{"two above three", []float64{30, 31}, []float64{1, 2, 3}, 1.0 / 10},
		{"one above one", []float64{2}, []float64{1}, 1.0 / 2},
		{"a tie is no order", []float64{3, 4, 5}, []float64{1, 2, 3}, 1},
		{"overlapping", []float64{2, 10, 11}, []float64{1, 3, 4}, 1},
		{"the other way", []float64{1, 2, 3}, []float64{4, 5, 6}, 1},
		{"empty", nil, []float64{1}, 1},
	} {
		if got := Outranks(c.hi, c.lo); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
