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
// end of ctx is a normal end.
func Run(ctx context.Context, src Source, interval time.Duration, count int, emit func(Report) error) error {
	prev, err := src.Sample()
	if err != nil {
		return err
	}
	for n := 0; count == 0 || n < count; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
		cur, err := src.Sample()
		if err != nil {
			return err
		}
		r := Diff(prev, cur)
		prev = cur
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
