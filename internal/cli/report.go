package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/mesh"
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
	cmd.AddCommand(m)
	return cmd
}
