package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd writes the manual pages (section 1) of every command, for
// the packages (make package). It is hidden: users read the pages.
func newManCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the manual pages of every command into DIR",
		Hidden: true,
		Args:   exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			root.DisableAutoGenTag = true
			return doc.GenManTree(root, &doc.GenManHeader{Title: "TCPTUNE", Section: "1", Source: "tcptune", Manual: "tcptune manual"}, args[0])
		},
	}
}
