package relay

import (
	"testing"
	"time"
)

// Behind is the mean lateness of the writes, over a period with Since.
func TestBehind(t *testing.T) {
	for _, c := range []struct {
		s, p DirStats
		want time.Duration
	}{
		{DirStats{}, DirStats{}, 0},
		{DirStats{Writes: 4, LateSum: 400}, DirStats{}, 100 * time.Microsecond},
		{DirStats{Writes: 1000, LateSum: 1_000_400}, DirStats{Writes: 600, LateSum: 400}, 2500 * time.Microsecond},
		{DirStats{Writes: 600, LateSum: 400}, DirStats{Writes: 600, LateSum: 400}, 0},
	} {
		if got := c.s.Since(c.p).Behind(); got != c.want {
			t.Errorf("%+v since %+v: %v, want %v", c.s, c.p, got, c.want)
		}
	}
}
