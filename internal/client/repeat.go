package client

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/stats"
)

// Repeated runs the test n times, half a second apart (bench --repeat),
// and writes the report to out in mode: in text each run's report and a
// last line with the median, its range and confidence interval; in the
// JSON modes one document (the last run's), whose "tcptune" object holds
// every run and the statistics under "repeat". With n = 1 it is one
// ordinary test. A failed run ends the series with its error, after its
// report; an interrupted one with ErrInterrupted (wrapped).
func Repeated(ctx context.Context, o Options, mode report.Mode, n int, out io.Writer) error {
	var last *report.Printer
	var ext *Extension
	var runs []RepeatRun
	for i := range n {
		if i > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(500 * time.Millisecond):
			}
		}
		pr := report.NewPrinter(out, mode)
		if mode == report.JSON {
			pr.W = io.Discard // one document at the end
		}
		if n > 1 {
			pr.Textf("Run %d of %d", i+1, n)
		}
		res, err := Run(ctx, o, pr)
		last = pr
		if err != nil {
			if mode.Collects() {
				pr.W = out
				pr.Flush()
			}
			return err
		}
		runs = append(runs, RepeatRun{Run: i + 1, BitsPerSecond: res.Received(), Seconds: res.Duration.Seconds()})
		ext = res.Ext
		if mode == report.Text {
			pr.Textf("")
		}
	}
	if n > 1 {
		rates := make([]float64, len(runs))
		for i, r := range runs {
			rates[i] = r.BitsPerSecond
		}
		s := stats.Summarize(rates, 0.95)
		switch mode {
		case report.Text:
			fmt.Fprintln(out, RepeatLine(s, o.Unit))
		default:
			ext.Repeat = &Repeat{Runs: runs, Summary: s}
			last.SetExt(ext)
			if mode.Streams() {
				out.Write(report.EventLine("repeat", ext.Repeat))
			}
		}
	}
	if mode.Collects() && last != nil {
		last.W = out
		last.Flush()
	}
	if mode == report.Text && n == 1 {
		fmt.Fprintln(out, "iperf Done.")
	}
	return nil
}

// RepeatLine is the text summary of --repeat's runs.
func RepeatLine(s stats.Summary, unit byte) string {
	line := fmt.Sprintf("Repeat (%d runs): median %s, min %s, max %s, %.0f%% confidence interval of the median [%s, %s]",
		s.N, report.Rate(s.Median, unit), report.Rate(s.Min, unit), report.Rate(s.Max, unit), 100*s.CILevel,
		report.Rate(s.CILow, unit), report.Rate(s.CIHigh, unit))
	if s.CILevel < 0.95 {
		line += fmt.Sprintf(" (%d runs cannot reach 95%%; use 6 or more)", s.N)
	}
	return line
}
