package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/mesh"
	"github.com/tcptune/tcptune/internal/rollout"
)

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Render results gathered from many hosts",
	}
	var html string
	m := &cobra.Command{
		Use:   "mesh FILE... [--html OUT.html]",
		Short: "Render bench -J results of host pairs as a matrix, with what limited each pair",
		Long: `mesh reads "tcptune bench -J" documents, one per ordered pair of hosts, each
naming its pair with --extra-data "from=HOST to=HOST" (the Ansible playbook
mesh.yml runs them so), and prints the matrix: one cell per pair with its
rate (the median of --repeat runs) and what limited it: "rwnd on HOST" (the
receiver's window), "sndbuf on HOST", "path full", "network", "cpu". The
slow pairs follow with their verdicts. --html also writes the matrix as a
self-contained page, the verdict on hover.`,
		Example: "  tcptune report mesh results/*.json --html mesh.html",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pairs, err := mesh.Read(args)
			if err != nil {
				return err
			}
			if html != "" {
				if err := mesh.WriteHTMLFile(html, pairs); err != nil {
					return fmt.Errorf("--html: %w", err)
				}
			}
			return mesh.WriteText(cmd.OutOrStdout(), pairs)
		},
	}
	m.Flags().StringVar(&html, "html", "", "also write the matrix as a self-contained HTML page")
	cmd.AddCommand(m, newReportCompareCmd())
	return cmd
}

func newReportCompareCmd() *cobra.Command {
	var floor float64
	var asJSON bool
	c := &cobra.Command{
		Use:   "compare BEFORE.json AFTER.json [AGAIN.json]",
		Short: "Judge a change from one host's bench -J results before and after it (and again rolled back)",
		Long: `compare reads "tcptune bench -J" documents of one host against one server,
before and after a change, and says "better", "same" or "worse": a difference
counts beyond --noise and two standard errors at the runs' pooled spread. A
drop is the change's only if rolling it back restores the rate: with AGAIN.json
(measured rolled back), a host no better without the change is "path-varied".`,
		Example: "  tcptune report compare before.json after.json --noise 0.05\n  tcptune report compare before.json after.json again.json -J",
		Args:    cobra.RangeArgs(2, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := rollout.JudgeFiles(floor, args[0], args[1], args[2:]...)
			if err != nil {
				return err
			}
			return output(cmd.OutOrStdout(), asJSON, d, func(w io.Writer) error { _, err := fmt.Fprintln(w, d); return err })
		},
	}
	flagx.FractionVar(c.Flags(), &floor, "noise", 0.05, "the least relative difference that counts (0.05 or 5%)")
	c.Flags().BoolVarP(&asJSON, "json", "J", false, "output the decision as JSON")
	return c
}
