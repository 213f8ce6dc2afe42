package watch

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/tcptune/tcptune/internal/units"
)

// WriteText prints a report as tables: sockets, counters that moved,
// verdicts.
func WriteText(w io.Writer, r Report) {
	fmt.Fprintf(w, "%s  interval %.1f s  %d sockets\n", r.Time.Format("15:04:05"), r.Seconds, len(r.Sockets))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LOCAL\tPEER\tSTATE\tRECV-Q\tSEND-Q\tRMEM/RCVBUF\tWQUEUED/SNDBUF\tDROPS\tCWND\tRTT\tRATE\tRWND-LTD\tSNDBUF-LTD\tLIMIT")
	for _, s := range r.Sockets {
		limit := "-"
		if s.Limit != nil {
			limit = string(s.Limit.Limit)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s/%s\t%s/%s\t%d\t%s\t%.1f ms\t%s\t%.0f%%\t%.0f%%\t%s\n",
			s.Local, s.Remote, s.State, s.RecvQ, s.SendQ,
			units.FormatSize(float64(s.RmemAlloc)), units.FormatSize(float64(s.Rcvbuf)),
			units.FormatSize(float64(s.WmemQueued)), units.FormatSize(float64(s.Sndbuf)), s.Drops,
			units.FormatSize(float64(s.CwndBytes)), s.RTTms, units.FormatRateShort(s.DeliveryRate),
			100*s.RwndLimited, 100*s.SndbufLimited, limit)
	}
	tw.Flush()
	moved := false
	for _, c := range r.Counters {
		if c.Delta == 0 {
			continue
		}
		if !moved {
			fmt.Fprintln(w, "\nCOUNTER (delta, per second): meaning")
			moved = true
		}
		fmt.Fprintf(w, "  %-28s %8d %10.1f/s  %s\n", c.Name, c.Delta, c.PerSec, c.Meaning)
	}
	if !moved {
		fmt.Fprintln(w, "\nno buffer-trouble counter moved")
	}
	if len(r.Verdicts) == 0 {
		fmt.Fprintln(w, "verdict: no buffer trouble seen")
	}
	for _, v := range r.Verdicts {
		fmt.Fprintln(w, "verdict: "+v)
	}
}
