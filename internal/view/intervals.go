package view

import "github.com/tcptune/tcptune/internal/engine"

// Rates are a direction's per-interval rates (bit/s) after the omitted
// start, from this side's kernel counts (engine.StreamInterval's
// Delivered: the sender's delivered payload where this side sent, the
// receiver's in-order count where it received), summed over the
// direction's streams, with no interval above the path (Crossed).
// path is the path's goodput (bit/s, 0 = unknown). early is the bits
// the measured intervals counted that crossed the path before the
// measured period (released after an omitted start): a total from the
// same count is short of them.
func Rates(ivs []engine.Interval, localSends bool, path float64) (rates []float64, early float64) {
	var out []float64
	var secs []float64
	omitted := false
	for _, iv := range ivs {
		if iv.Omitted {
			omitted = true
			continue
		}
		var b int64
		var s float64
		for _, si := range iv.Streams {
			if si.Sender == localSends {
				b += si.Delivered
				s = si.Seconds
			}
		}
		if s > 0 {
			out = append(out, float64(b)*8/s)
			secs = append(secs, s)
		}
	}
	rates = Crossed(out, secs, path, omitted)
	for i := range rates {
		early += (out[i] - rates[i]) * secs[i]
	}
	return rates, early
}

// Crossed is each interval's rate as what crossed the path in it: no
// interval carries more than the path's goodput. A count above it holds
// bytes that crossed before: a receiver's in-order count releases at
// once, when a retransmission fills a hole, what arrived beyond the hole
// in earlier intervals (204.9 Mbit/s in one interval on a lossy 200
// Mbit/s lab link whose goodput is 193), and a sender's delivered count
// runs ahead when ACKs held up arrive together. So the excess moves back
// to the intervals before it, as bytes (rate × seconds). The first
// interval's excess crossed before the measured period when an omitted
// start preceded it (omitted), and leaves the count; without one it
// stays, a counting error for the caller to judge. path 0 (unknown)
// leaves the rates.
func Crossed(rates, secs []float64, path float64, omitted bool) []float64 {
	if path <= 0 || len(rates) != len(secs) {
		return rates
	}
	out := append([]float64(nil), rates...)
	for i := len(out) - 1; i > 0; i-- {
		if out[i] <= path {
			continue
		}
		excess := (out[i] - path) * secs[i]
		out[i] = path
		if secs[i-1] > 0 {
			out[i-1] += excess / secs[i-1]
		}
	}
	if omitted && len(out) > 0 && out[0] > path {
		out[0] = path
	}
	return out
}
