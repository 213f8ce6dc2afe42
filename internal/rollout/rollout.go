// Package rollout judges a change rolled out to a host from the host's
// bench -J results against one reference: before the change, after it,
// and, when after looks worse, again with the change rolled back. Noise
// is judged from the runs' own spread (as tune judges its trials), and
// a drop is blamed on the change only when rolling it back restores
// the rate: a path that carried less for a while (cross traffic, a
// busy router) drops with and without the change.
package rollout

import (
	"fmt"
	"os"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/units"
)

// Sample is one bench -J document's measurement: the rate of each run
// (one without --repeat) and what limited the test, client to server.
type Sample struct {
	Runs  []float64    `json:"runs"`
	Limit attrib.Limit `json:"limit"`
}

// Mean of the runs.
func (s Sample) Mean() float64 {
	if len(s.Runs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range s.Runs {
		sum += x
	}
	return sum / float64(len(s.Runs))
}

// Parse reads a Sample from a bench -J document (with or without
// --repeat).
func Parse(data []byte) (Sample, error) {
	d, err := client.ReadDoc(data)
	if err != nil {
		return Sample{}, err
	}
	if d.Error != "" {
		return Sample{}, fmt.Errorf("the test failed: %s", d.Error)
	}
	s := Sample{Runs: d.Runs(), Limit: attrib.Unknown}
	if v, ok := d.Forward(); ok {
		s.Limit = v.Result.Limit
	}
	if s.Mean() <= 0 {
		return Sample{}, fmt.Errorf("the document holds no rate")
	}
	return s, nil
}

// JudgeFiles is Judge of bench -J documents in files: before, after
// and, if given, again.
func JudgeFiles(floor float64, before, after string, again ...string) (Decision, error) {
	var s []Sample
	for _, f := range append([]string{before, after}, again...) {
		b, err := os.ReadFile(f)
		if err == nil {
			var x Sample
			if x, err = Parse(b); err == nil {
				s = append(s, x)
				continue
			}
		}
		return Decision{}, fmt.Errorf("%s: %w", f, err)
	}
	var a *Sample
	if len(s) > 2 {
		a = &s[2]
	}
	return Judge(s[0], s[1], a, floor), nil
}

// Result is what the comparison decides.
type Result string

const (
	// Same: after is within the noise of before, or better.
	Same Result = "same"
	// Better: after is better than before by more than the noise.
	Better Result = "better"
	// Worse: after is worse than before by more than the noise; with
	// an again sample, rolling the change back also restored the rate.
	Worse Result = "worse"
	// PathVaried: after was worse than before, but the host did no
	// better with the change rolled back: the path carried less, and the
	// change is not to blame.
	PathVaried Result = "path-varied"
)

// Z is how many standard errors of a difference the noise is: the
// z that tune's noise rule uses.
const Z = 2

// Decision is the comparison's outcome, with the figures it read.
type Decision struct {
	Result Result `json:"result"`
	// Before, After and Again are the samples' mean rates (bit/s);
	// Again is 0 without an again sample.
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Again  float64 `json:"again,omitempty"`
	// Noise is the relative difference the comparison that decided
	// needed: at least the floor, more where the runs spread.
	Noise float64 `json:"noise"`
	// LimitBefore and LimitAfter are what limited the tests.
	LimitBefore attrib.Limit `json:"limit_before"`
	LimitAfter  attrib.Limit `json:"limit_after"`
}

// noise is the relative difference between the means of a and b that
// exceeds the noise: floor, or Z standard errors of the difference at
// the spread pooled over every sample the comparison holds.
func noise(floor float64, a, b Sample, all ...Sample) float64 {
	var runs [][]float64
	for _, s := range all {
		runs = append(runs, s.Runs)
	}
	spread, _ := stats.LogSpread(runs...)
	return max(floor, stats.Apart(spread, Z, len(a.Runs), len(b.Runs)))
}

// Judge compares after with before; again (nil until measured) is the
// host measured once more with the change rolled back, which decides a
// drop: the change caused it only if the host did better than after
// again without the change. floor is the least relative difference
// that counts (a rollout's noise setting).
func Judge(before, after Sample, again *Sample, floor float64) Decision {
	all := []Sample{before, after}
	if again != nil {
		all = append(all, *again)
	}
	d := Decision{Before: before.Mean(), After: after.Mean(), LimitBefore: before.Limit, LimitAfter: after.Limit}
	d.Noise = noise(floor, before, after, all...)
	switch {
	case d.After > d.Before*(1+d.Noise):
		d.Result = Better
		return d
	case d.After >= d.Before*(1-d.Noise):
		d.Result = Same
		return d
	}
	d.Result = Worse
	if again == nil {
		return d
	}
	d.Again = again.Mean()
	d.Noise = max(d.Noise, noise(floor, *again, after, all...))
	if d.After >= d.Again*(1-d.Noise) {
		d.Result = PathVaried
	}
	return d
}

// String is the decision as one line.
func (d Decision) String() string {
	r := func(bps float64) string { return units.FormatRateShort(bps) }
	s := fmt.Sprintf("%s: %s after against %s before (limits %s -> %s; noise %.0f%%)", d.Result, r(d.After), r(d.Before), d.LimitBefore, d.LimitAfter, 100*d.Noise)
	switch {
	case d.Result == Worse && d.Again > 0:
		s += fmt.Sprintf("; %s with the change rolled back: the change cost it", r(d.Again))
	case d.Result == Worse:
		s += ": roll the change back and measure again to tell the change from the path"
	case d.Result == PathVaried:
		s += fmt.Sprintf("; %s with the change rolled back: the path carried less, not the change", r(d.Again))
	}
	return s
}
