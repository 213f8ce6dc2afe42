package apply

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteList writes backups as rollback --list's table.
func WriteList(w io.Writer, backups []Backup) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tNETNS\tSTATE\tCHANGES")
	for _, b := range backups {
		var keys []string
		for _, c := range b.Changes {
			keys = append(keys, c.Key)
		}
		ns := b.NetNS
		if ns == "" {
			ns = "(host)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", b.ID, b.Time.Format(time.RFC3339), ns, b.State, strings.Join(keys, ","))
	}
	return tw.Flush()
}
