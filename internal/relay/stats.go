package relay

import "github.com/tcptune/tcptune/internal/linkem"

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
