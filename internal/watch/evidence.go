package watch

import (
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
)

// Evidence is what the samples taken within one interval saw of each
// socket, by its key: the means a verdict reads (the smoothed RTT, the
// bytes in flight) and how many of the RTT samples showed a queue. A
// verdict from the interval's last sample alone would be one snapshot:
// a stall of a few milliseconds just before it would read as a queue
// that stood the whole interval.
type Evidence map[string]*seen

// seen is one socket's sums over an interval's samples.
type seen struct {
	rtt, flight, n, queued uint64
}

// Add folds a sample's sockets into the evidence.
func (e Evidence) Add(s Sample) {
	for _, x := range s.Sockets {
		i := x.Info
		if i == nil || i.RTT == 0 {
			continue
		}
		v := e[x.Key()]
		if v == nil {
			v = &seen{}
			e[x.Key()] = v
		}
		v.rtt += uint64(i.RTT)
		v.flight += i.InflightBytes()
		v.n++
		if attrib.Queued(uint64(i.RTT), uint64(i.MinRTT)) {
			v.queued++
		}
	}
}

// apply puts a socket's means over the interval in the input of a
// sender, with its count of RTT samples that showed a queue.
func (v *seen) apply(in *attrib.Input) {
	if v == nil || v.n == 0 {
		return
	}
	in.RTTUS, in.InflightBytes = v.rtt/v.n, v.flight/v.n
	in.RTTSamples, in.QueuedSamples = v.n, v.queued
}

// maxSamples is the most samples taken per interval, and samplingShare
// the most of an interval that taking them may cost: a host with many
// sockets, whose dump takes long, gets fewer.
const (
	maxSamples    = 10
	samplingShare = 0.02
)

// samplesPer is how many samples to take per interval when one takes
// cost: at least the interval's end, at most maxSamples.
func samplesPer(interval, cost time.Duration) int {
	if cost <= 0 {
		return maxSamples
	}
	return max(1, min(maxSamples, int(samplingShare*float64(interval)/float64(cost))))
}
