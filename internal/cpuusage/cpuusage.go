// Package cpuusage measures this process's CPU time, to report iperf3's
// cpu_util_* figures and to tell a CPU-bound transfer from a network-bound
// one.
package cpuusage

import "time"

// Sample is a point-in-time reading of wall clock and process CPU time.
type Sample struct {
	Wall   time.Time
	User   time.Duration
	System time.Duration
}

// Now reads the current sample.
func Now() Sample {
	u, s := processTimes()
	return Sample{Wall: time.Now(), User: u, System: s}
}

// Util is CPU use over an interval in percent of one core, as iperf3
// reports it (it can exceed 100 with several threads).
type Util struct {
	Total, User, System float64
}

// Since returns the utilisation between s and now.
func (s Sample) Since() Util { return Between(s, Now()) }

// Between returns the utilisation between two samples.
func Between(a, b Sample) Util {
	wall := b.Wall.Sub(a.Wall).Seconds()
	if wall <= 0 {
		return Util{}
	}
	u := (b.User - a.User).Seconds() / wall * 100
	sy := (b.System - a.System).Seconds() / wall * 100
	return Util{Total: u + sy, User: u, System: sy}
}
