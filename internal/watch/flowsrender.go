package watch

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tcptune/tcptune/internal/attrib"

	"github.com/tcptune/tcptune/internal/units"
)

// WriteFlow prints one ended flow on a line, as ss -E does, with its
// verdict.
func WriteFlow(w io.Writer, f Flow) {
	arrow, bytes := "→", f.Bytes
	if f.Role == Received {
		arrow = "←"
	}
	verdict := "not judged: " + f.Why
	if f.Limit != nil {
		verdict = string(f.Limit.Limit) + ": " + f.Limit.Verdict
	}
	over := fmt.Sprintf("%s over the %.1f s seen", units.FormatRateShort(f.BitsPerSecond), f.Seconds)
	switch {
	case f.Seconds == 0:
		over = "rate unknown"
	case f.Start.IsZero():
		over = fmt.Sprintf("%s over %.1f s busy", units.FormatRateShort(f.BitsPerSecond), f.Seconds)
	}
	when := f.End.Format("15:04:05")
	if f.Open {
		when += " open"
	}
	fmt.Fprintf(w, "%s %s %s %s %s, %s, RTT %.1f ms (min %.1f), %d retransmits; %s\n",
		when, f.Local, arrow, f.Remote, units.FormatSize(float64(bytes)), over, f.RTTms, f.MinRTTms, f.Retransmits, verdict)
}

// WriteSummary prints a run's groups as a table, then each group's
// verdict and the advice that acts on it.
func WriteSummary(w io.Writer, s Summary) {
	secs := s.End.Sub(s.Start).Seconds()
	if s.End.IsZero() {
		secs = 0
	}
	fmt.Fprintf(w, "%d flows ended (%d judged) in %.0f s; kernel opens %s; event overruns %d; %d open\n",
		s.Flows, s.Judged, secs, opens(s.KernelOpens), s.Overruns, s.Open)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tDIR\tFLOWS\tJUDGED\tBYTES\tMEDIAN\tTOP\tMIN-RTT\tLIMIT")
	for _, g := range s.Groups {
		limit := "-"
		if g.Judged > 0 {
			limit = fmt.Sprintf("%s %.0f%%", g.Verdict, 100*g.Share)
		}
		if len(g.RuledOut) > 0 {
			limit += fmt.Sprintf(" (not %s)", joinLimits(g.RuledOut))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%.1f ms\t%s\n", g.Group, g.Role, g.Flows, g.Judged,
			units.FormatSize(float64(g.Bytes)), units.FormatRateShort(g.MedianBPS), units.FormatRateShort(g.TopBPS), g.MinRTTms, limit)
	}
	tw.Flush()
	for _, g := range s.Groups {
		a := g.Advice
		switch {
		case a == nil:
		case a.Command == "":
			fmt.Fprintf(w, "%s %s: %s\n  next: %s\n", g.Group, g.Role, a.Reason, a.Verify)
		default:
			fmt.Fprintf(w, "%s %s: %s held it; on %s: %s\n  (%s)\n  verify: %s\n", g.Group, g.Role, g.Verdict, a.Host, a.Command, a.Reason, a.Verify)
		}
	}
}

func joinLimits(ls []attrib.Limit) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = string(l)
	}
	return strings.Join(s, ", ")
}

func opens(n int64) string {
	if n < 0 {
		return "unknown"
	}
	return fmt.Sprint(n)
}

// FlowLine is one line of --json output: a flow or the summary.
type FlowLine struct {
	Flow    *Flow    `json:"flow,omitempty"`
	Summary *Summary `json:"summary,omitempty"`
}

// WriteJSONLine writes v as one JSON line.
func WriteJSONLine(w io.Writer, v FlowLine) error {
	return json.NewEncoder(w).Encode(v)
}

// FlowPrinter is the handlers that print a flow run to out in format
// (Printer's): each flow as it ends, a line or a JSON line, or on a
// Screen the groups' table redrawn at each tick; out is flushed at each
// tick (a write per flow would cost more than the flow). Ready's line
// goes to log. FlowEnd prints the summary at the end.
func FlowPrinter(out *bufio.Writer, log io.Writer, format string) FlowHandlers {
	h := FlowHandlers{
		Ready: func() { fmt.Fprintln(log, "listening for ending TCP flows; the summary comes at the end (Ctrl-C)") },
		Flow:  func(f Flow) error { WriteFlow(out, f); return nil },
		Tick:  func(Summary) error { return out.Flush() },
	}
	switch format {
	case JSONLines:
		h.Flow = func(f Flow) error { return WriteJSONLine(out, FlowLine{Flow: &f}) }
	case Screen:
		h.Flow = nil
		h.Tick = func(s Summary) error {
			fmt.Fprint(out, "\033[H\033[2J")
			WriteSummary(out, s)
			return out.Flush()
		}
	}
	return h
}

// FlowEnd prints a flow run's summary in format, and flushes out.
func FlowEnd(out *bufio.Writer, s Summary, format string) error {
	if format == JSONLines {
		if err := WriteJSONLine(out, FlowLine{Summary: &s}); err != nil {
			return err
		}
	} else {
		WriteSummary(out, s)
	}
	return out.Flush()
}
