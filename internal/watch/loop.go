package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Run samples src, then again every interval, and hands each interval's
// Report to emit: count times, or until ctx ends when count is 0. The
// end of ctx is a normal end. Within each interval it samples up to
// ten times for the verdicts' evidence (Evidence), as many as cost no
// more than 2% of the interval at what the last sample took.
func Run(ctx context.Context, src Source, interval time.Duration, count int, emit func(Report) error) error {
	took := time.Now()
	prev, err := src.Sample()
	if err != nil {
		return err
	}
	cost := time.Since(took)
	start := took
	for n := 0; count == 0 || n < count; n++ {
		if time.Since(start) > interval { // a whole interval behind (a slow emit, a stopped process): no catching up
			start = time.Now()
		}
		ev, per := Evidence{}, samplesPer(interval, cost)
		var cur Sample
		for k := 1; k <= per; k++ {
			// On the interval's clock, so that its samples do not
			// stretch it.
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Until(start.Add(interval * time.Duration(k) / time.Duration(per)))):
			}
			took = time.Now()
			if cur, err = src.Sample(); err != nil {
				return err
			}
			cost = time.Since(took)
			ev.Add(cur)
		}
		r := DiffOver(prev, cur, ev)
		prev, start = cur, start.Add(interval)
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

// Output formats of Printer.
const (
	JSONLines = "json"   // one JSON object a line
	Screen    = "screen" // the text, redrawn on a cleared terminal
	Text      = "text"   // the text, one block after another
)

// FormatOf is the output format for --json, else for a terminal or not.
func FormatOf(json, terminal bool) string {
	switch {
	case json:
		return JSONLines
	case terminal:
		return Screen
	}
	return Text
}

// Printer returns the emit function of Run that writes each Report to w
// in format.
func Printer(w io.Writer, format string) func(Report) error {
	return func(r Report) error {
		switch format {
		case JSONLines:
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(w, string(b))
			return err
		case Screen:
			fmt.Fprint(w, "\033[H\033[2J")
			WriteText(w, r)
		default:
			WriteText(w, r)
			fmt.Fprintln(w)
		}
		return nil
	}
}
