package relay

import (
	"time"

	"github.com/tcptune/tcptune/internal/linkem"
)

// Lateness buckets of a write behind its release time, in µs.
var LateBuckets = []int64{10, 100, 1000, 5000, 20000}

// DirStats is one direction's counters.
type DirStats struct {
	linkem.Stats
	Late    []uint64 `json:"late_hist"` // counts per LateBuckets, last = beyond
	LateMax int64    `json:"late_max_us"`
	LateSum int64    `json:"late_sum_us"`
	Writes  uint64   `json:"writes"`
	WriteEr uint64   `json:"write_errors"`
}

// Behind is how late, on average, the relay wrote a packet after its
// release time: what it added to the link's delay in this direction
// (a busy machine's relay falls behind at high rates).
func (s DirStats) Behind() time.Duration {
	if s.Writes == 0 {
		return 0
	}
	return time.Duration(s.LateSum/int64(s.Writes)) * time.Microsecond
}

// Since is the counters' growth from an earlier snapshot p, for
// Behind over a period (LateMax stays the link's).
func (s DirStats) Since(p DirStats) DirStats {
	d := s
	d.Writes, d.LateSum = s.Writes-p.Writes, s.LateSum-p.LateSum
	return d
}
