package doctor

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes results as a table: check, verdict, evidence, then
// what to do ("→ why") and the command that does it ("$ fix", to paste)
// on lines of their own.
func WriteText(w io.Writer, res []Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tVERDICT\tEVIDENCE")
	for _, r := range res {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Check, strings.ToUpper(string(r.Verdict)), r.Evidence)
		if r.Why != "" {
			fmt.Fprintf(tw, "\t\t→ %s\n", r.Why)
		}
		if r.Fix != "" {
			fmt.Fprintf(tw, "\t\t$ %s\n", r.Fix)
		}
	}
	return tw.Flush()
}

// Failed reports whether any check failed (doctor then exits 2).
func Failed(res []Result) bool {
	for _, r := range res {
		if r.Verdict == Fail {
			return true
		}
	}
	return false
}
