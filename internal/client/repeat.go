package client

import (
	"context"
	"time"

	"github.com/tcptune/tcptune/internal/stats"
)

// Series is what Repeated measured: each run's rate and duration, the
// last run's Outcome, and, for more than one run, their statistics.
type Series struct {
	Runs []RepeatRun
	Last *Outcome
	// Stats summarizes the runs' received rates (nil for one run).
	Stats *stats.Summary
}

// Repeat is the series' record for the "tcptune" object of the JSON
// report (nil for one run).
func (s Series) Repeat() *Repeat {
	if s.Stats == nil {
		return nil
	}
	return &Repeat{Runs: s.Runs, Summary: *s.Stats}
}

// Repeated runs the test n times, half a second apart (bench --repeat),
// run i (from 1) observed by observe(i). A failed run ends the series
// with its error; an interrupted one with ErrInterrupted (wrapped).
func Repeated(ctx context.Context, o Options, n int, observe func(run int) Observer) (Series, error) {
	var s Series
	for i := range n {
		if i > 0 {
			select {
			case <-ctx.Done():
				return s, ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
		res, err := Run(ctx, o, observe(i+1))
		if err != nil {
			return s, err
		}
		s.Last = res
		s.Runs = append(s.Runs, RepeatRun{Run: i + 1, BitsPerSecond: res.Received(), Seconds: res.Duration.Seconds()})
	}
	if n > 1 {
		rates := make([]float64, len(s.Runs))
		for i, r := range s.Runs {
			rates[i] = r.BitsPerSecond
		}
		st := stats.Summarize(rates, 0.95)
		s.Stats = &st
	}
	return s, nil
}
