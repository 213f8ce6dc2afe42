package report

import (
	"fmt"
	"io"

	"github.com/tcptune/tcptune/internal/stats"
)

// Runs renders a series of runs of one test (bench --repeat): in text
// each run's report under "Run i of n" and a last line with their
// statistics (iperf3's "iperf Done." for one run); in the JSON modes one
// document, the last run's, whose "tcptune" object holds the series.
type Runs struct {
	W    io.Writer
	Err  io.Writer // the JSON modes' warnings
	Mode Mode
	N    int
	last *Printer
}

// Run returns the printer of run i (from 1).
func (r *Runs) Run(i int) *Printer {
	pr := NewPrinter(r.W, r.Mode)
	pr.Err = r.Err
	if r.Mode == JSON {
		pr.W = io.Discard // one document, at the end
	}
	if i > 1 {
		pr.Textf("")
	}
	if r.N > 1 {
		pr.Textf("Run %d of %d", i, r.N)
	}
	r.last = pr
	return pr
}

// Failed ends a series stopped by a failed run: the document of that
// run as far as it got (the JSON modes that collect one).
func (r *Runs) Failed() { r.flush() }

// Done ends a series whose runs all succeeded. s is their statistics
// (nil for one run), unit bench's -f; ext is the last run's "tcptune"
// object with repeat, the series' record, in it.
func (r *Runs) Done(s *stats.Summary, unit byte, ext, repeat any) {
	if r.Mode == Text {
		fmt.Fprintln(r.W)
		if s != nil {
			fmt.Fprintln(r.W, RepeatLine(*s, unit))
		} else {
			fmt.Fprintln(r.W, "iperf Done.")
		}
		return
	}
	if s != nil && r.last != nil {
		r.last.SetExt(ext)
		if r.Mode.Streams() {
			r.W.Write(EventLine("repeat", repeat))
		}
	}
	r.flush()
}

func (r *Runs) flush() {
	if r.last != nil && r.Mode.Collects() {
		r.last.W = r.W
		r.last.Flush()
	}
}

// RepeatLine is the text summary of a series' runs.
func RepeatLine(s stats.Summary, unit byte) string {
	line := fmt.Sprintf("Repeat (%d runs): median %s, min %s, max %s, %.0f%% confidence interval of the median [%s, %s]",
		s.N, Rate(s.Median, unit), Rate(s.Min, unit), Rate(s.Max, unit), 100*s.CILevel,
		Rate(s.CILow, unit), Rate(s.CIHigh, unit))
	if s.CILevel < 0.95 {
		line += fmt.Sprintf(" (%d runs cannot reach 95%%; use 6 or more)", s.N)
	}
	return line
}
