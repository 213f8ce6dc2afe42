package tune

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/units"
)

func rate(bps float64) string { return units.FormatRateShort(bps) }

func size(b int64) string { return units.FormatSize(float64(b)) }

// ci formats a summary as "958 Mbit/s [955–960]".
func ci(s stats.Summary) string {
	if s.N == 0 {
		return "-"
	}
	if s.N == 1 {
		return rate(s.Median) + " (1 trial)"
	}
	m, lo, hi := rate(s.Median), rate(s.CILow), rate(s.CIHigh)
	if u := m[strings.IndexByte(m, ' '):]; strings.HasSuffix(lo, u) && strings.HasSuffix(hi, u) {
		return fmt.Sprintf("%s [%s–%s]", m, strings.TrimSuffix(lo, u), strings.TrimSuffix(hi, u))
	}
	return fmt.Sprintf("%s [%s – %s]", m, lo, hi)
}

// rows are the candidates table: name, memory, a median [range] per
// direction, status.
func (r *Result) rows() [][]string {
	var out [][]string
	for _, c := range r.Candidates {
		row := []string{c.Name, size(c.Memory) + " / " + size(c.Idle)}
		for _, d := range r.Options.Directions {
			row = append(row, ci(c.Summary[d]))
		}
		out = append(out, append(row, c.Status))
	}
	return out
}

// WriteText prints the report: the before/after table, the settings
// chosen with their reasons, the limit attribution before and after, and
// every candidate.
func WriteText(w io.Writer, r *Result) {
	fmt.Fprintf(w, "\ntcptune tune: %s\n", r.Env)
	fmt.Fprintf(w, "RTT %s (the minimum of a short test's connections), rate %s (%s), BDP %s\n", units.FormatDuration(r.RTT), rate(r.Rate), r.RateSource, size(r.BDP))
	fmt.Fprintf(w, "full sets of %d trials of %g s per direction (the baseline's, and the choice's: its verification; two where a buffer of this host, or the path under a pacing control, held both alike), one trial to screen a point (%g s of slow start omitted each)\n", r.Options.Trials, r.Options.TimeS, r.Options.OmitS)
	fmt.Fprintf(w, "throughput is the payload the kernel counted as delivered: %s\n\n", r.CountedBy())

	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "\t")
	for _, d := range r.Options.Directions {
		fmt.Fprintf(tw, "%s: median [range]\t", d)
	}
	fmt.Fprintln(tw)
	for _, row := range []struct {
		name string
		c    *Candidate
	}{{"before (" + r.Baseline().Name + ")", r.Baseline()}, {"after (" + r.AfterLabel() + ")", r.After()}} {
		fmt.Fprintf(tw, "%s\t", row.name)
		for _, d := range r.Options.Directions {
			fmt.Fprintf(tw, "%s\t", ci(row.c.Summary[d]))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, d := range r.Options.Directions {
		fmt.Fprintf(w, "%-8s %s\n", d+":", r.Headline(d))
	}

	if len(r.Steps) > 0 {
		fmt.Fprintf(w, "\nSearch:\n")
		for _, st := range r.Steps {
			fmt.Fprintf(w, "  %s\n", st)
		}
	}
	for _, l := range r.Levers {
		verdict := "did not help"
		if l.Helped {
			verdict = "helped"
		}
		fmt.Fprintf(w, "Lever: %s: %s, %.2f× the choice's: %s\n", l.Name, strings.TrimSpace(string(l.Direction)+" "+rate(l.Median)), l.Gain, verdict)
	}
	if len(r.PeerAdvice) > 0 {
		fmt.Fprintf(w, "\nOn the peer (not changed by tune):\n")
		for _, a := range r.PeerAdvice {
			fmt.Fprintf(w, "  %s\n", a)
		}
	}

	if pm := r.PathMTU; pm != nil {
		raised := pm.Raised
		if raised == "" {
			raised = "both ends' interfaces"
		}
		fmt.Fprintf(w, "\nPath MTU: %s, probed with %s at %d", pm.Probed, raised, pm.Tried)
		if pm.Tried != pm.Interface {
			fmt.Fprintf(w, " for the probe (they had %d)", pm.Interface)
		}
		switch {
		case pm.MSSBefore > 0 && pm.MSSAfter > 0 && pm.MSSBefore != pm.MSSAfter:
			fmt.Fprintf(w, "; MSS %d → %d", pm.MSSBefore, pm.MSSAfter)
		case pm.MSSBefore > 0:
			fmt.Fprintf(w, "; MSS %d", pm.MSSBefore)
		}
		fmt.Fprintln(w)
	}
	ch := r.Choice()
	fmt.Fprintln(w)
	switch {
	case ch == nil:
	case ch.Baseline:
		fmt.Fprintf(w, "Result: %s\n", r.Why)
	default:
		head := "Chosen"
		if !r.Kept {
			head = "Tried and rolled back"
		}
		fmt.Fprintf(w, "%s: %s — %s\n", head, ch.Name, ch.Source)
		fmt.Fprintf(w, "  buffer memory per connection: %s busy (tcp_rmem max %s = %.1f × BDP, tcp_wmem max %s = %.1f × BDP), %s idle (the defaults)\n",
			size(ch.Memory), size(ch.RmemMax), float64(ch.RmemMax)/float64(max(r.BDP, 1)), size(ch.WmemMax), float64(ch.WmemMax)/float64(max(r.BDP, 1)), size(ch.Idle))
		for _, s := range ch.Settings {
			fmt.Fprintf(w, "  %s = %s\n      %s\n", s.Key, s.Value, s.Reason)
		}
		if ch.Congestion != "" {
			fmt.Fprintf(w, "  per socket: -C %s\n", ch.Congestion)
		}
		for _, n := range r.NotLowered {
			fmt.Fprintf(w, "  %s max stays %s, more than this path needs (%s): not lowered (--allow-lower)\n", n.Key, size(n.Current), size(n.Chosen))
		}
		fmt.Fprintf(w, "Verification: %s\n", r.Why)
		switch {
		case r.Applied:
			fmt.Fprintf(w, "Applied (backup %s; undo with: tcptune rollback %s)\n", r.BackupID, strings.Split(r.BackupID, ",")[0])
		case r.Kept && r.BothEnds: // the lab: --apply is refused there
			fmt.Fprintln(w, "Not applied: the lab's settings were restored (on a host, tune --peer ADDRESS --apply keeps them, --persist writes sysctl.d).")
		case r.Kept:
			fmt.Fprintln(w, "Not applied: the settings were restored (run with --apply to keep them, --persist to write sysctl.d).")
		default:
			fmt.Fprintln(w, "The settings were restored.")
		}
	}
	fmt.Fprintln(w)
	for _, l := range r.Limits() {
		fmt.Fprintf(w, "Limit %-6s (%s): %s\n", l.When, l.Direction, l.Verdict)
	}
	fmt.Fprintf(w, "\nCandidates (memory = tcp_rmem max + tcp_wmem max per busy connection / the defaults per idle socket):\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "CANDIDATE\tMEMORY\t")
	for _, d := range r.Options.Directions {
		fmt.Fprintf(tw, "%s\t", strings.ToUpper(string(d)))
	}
	fmt.Fprintln(tw, "STATUS")
	for _, row := range r.rows() {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	for _, c := range r.Candidates {
		for _, x := range c.Cautions {
			fmt.Fprintf(w, "Caution (%s): %s\n", c.Name, x)
		}
	}
	if n := r.relayNote(); n != "" {
		fmt.Fprint(w, "\n"+n)
	}
	fmt.Fprintf(w, "\ntook %.0f s\n", r.Elapsed)
}

// relayNote is what the report says of a lab's relay that fell behind
// beyond the lab's accuracy ("" otherwise).
func (r *Result) relayNote() string {
	l := r.Relay
	if l == nil || l.Faithful {
		return ""
	}
	var b strings.Builder
	lab.WriteBehind(&b, "Lab", time.Duration(l.BehindUS)*time.Microsecond, r.RTT)
	return b.String()
}
