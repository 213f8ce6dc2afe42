package server

import (
	"testing"
	"time"
)

func TestRateLimitSet(t *testing.T) {
	for in, want := range map[string]RateLimit{
		"100M":   {100e6, 5 * time.Second},
		"1G/10":  {1e9, 10 * time.Second},
		"0":      {0, 5 * time.Second},
		"2.5G/1": {2.5e9, time.Second},
	} {
		var l RateLimit
		if err := l.Set(in); err != nil || l != want {
			t.Errorf("%q: %+v %v, want %+v", in, l, err, want)
		}
	}
	for _, bad := range []string{"x", "100M/0", "100M/abc", "100M/3601", "-5M", "/5", ""} {
		var l RateLimit
		if err := l.Set(bad); err == nil {
			t.Errorf("%q accepted: %+v", bad, l)
		}
	}
}

// The average is over the last interval's samples, taken at most once a
// second, and only once a whole interval is held.
func TestRateWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := rateWindow{l: RateLimit{Bits: 80e6, Every: 2 * time.Second}} // 10 MB/s
	for i, c := range []struct {
		at    time.Duration
		total int64
		over  bool
	}{
		{0, 0, false},
		{time.Second, 5e6, false},             // not yet an interval
		{1500 * time.Millisecond, 9e6, false}, // under a second since the last sample
		{2 * time.Second, 15e6, false},        // 15 MB in 2 s: 60 Mbit/s
		{3 * time.Second, 40e6, true},         // 35 MB since 1 s: 140 Mbit/s
		{4 * time.Second, 42e6, true},         // 27 MB since 2 s: 108 Mbit/s
		{5 * time.Second, 43e6, false},        // 3 MB since 3 s
		{7 * time.Second, 43e6 + 25e6, true},  // 25 MB since 5 s: 100 Mbit/s
	} {
		if got := w.over(t0.Add(c.at), c.total); got != c.over {
			t.Errorf("%d: at %v total %d: over %v, want %v", i, c.at, c.total, got, c.over)
		}
	}
	if len(w.at) > 3 {
		t.Errorf("%d samples held for a 2 s interval", len(w.at))
	}
	if (&rateWindow{}).over(t0, 1<<60) {
		t.Error("no limit: over")
	}
}
