// Package cli is tcptune's command line: it parses flags, calls the
// capability packages and prints. It holds no logic a test would want.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/sigctx"
	"github.com/tcptune/tcptune/internal/version"
)

// NewRoot builds the tcptune command tree.
func NewRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "tcptune",
		Short: "Measure, explain and tune TCP throughput",
		Long: `tcptune measures TCP throughput (speaking iperf3's protocol), says what limited
each transfer, and tunes the kernel's socket buffers to the path's
bandwidth-delay product.`,
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newBenchCmd(), newServeCmd(), newLabCmd(), newPingCmd(), newShowCmd(), newAdviseCmd(), newApplyCmd(), newRollbackCmd(), newTuneCmd(), newWatchCmd(), newDoctorCmd())
	root.AddCommand(newReportCmd(), newManCmd(root))
	root.SetFlagErrorFunc(flagError)
	return root
}

// flagError turns pflag's messages into one line naming the flag.
func flagError(_ *cobra.Command, err error) error { return flagx.OneLine(err) }

// Main runs tcptune (or, when invoked as "iperf3", the drop-in) and
// returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	// Every signal that ends the process cancels the context, so that
	// what changed a host (tune's candidates, a lab link) is undone: a
	// dropped SSH session (HUP) as well as Ctrl-C and TERM. A closed
	// output (SIGPIPE, "tune | head") is handled by the commands that
	// change a host (see sigctx.ClosedOutput).
	ctx, stop := sigctx.Notify(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	var cmd *cobra.Command
	name := "tcptune"
	if base := filepath.Base(args[0]); strings.TrimSuffix(base, ".exe") == "iperf3" {
		cmd = newIperf3Cmd()
		name = "iperf3"
	} else {
		cmd = NewRoot()
	}
	// Long options may be given as unambiguous prefixes (--bid), as
	// getopt_long allows iperf3's users.
	target := cmd
	if c, _, err := cmd.Find(args[1:]); err == nil && c != nil {
		target = c
	}
	rest, err := flagx.ExpandPrefixes(target.Flags(), args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "%s: error - %v\n", name, err)
		return 1
	}
	cmd.SetArgs(rest)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	return exitStatus(cmd.ErrOrStderr(), name, cmd.ExecuteContext(ctx))
}

// exitStatus prints err on w as iperf3 does (name: error - ..., or the
// signal that ended the run) and returns the exit status it gives.
func exitStatus(w io.Writer, name string, err error) int {
	var code exitCode
	var sig endedBySignal
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &sig):
		fmt.Fprintf(w, "%s: %v\n", name, sig.error)
		return 0
	}
	fmt.Fprintf(w, "%s: error - %v\n", name, err)
	return 1
}
