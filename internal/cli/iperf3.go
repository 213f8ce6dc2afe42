package cli

import (
	"errors"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/server"
)

// newIperf3Cmd is the drop-in: iperf3's command line (-s, or -c HOST),
// so that scripts calling iperf3 run tcptune unchanged.
func newIperf3Cmd() *cobra.Command {
	b := &benchFlags{}
	s := &serveFlags{}
	var serverMode bool
	cmd := &cobra.Command{
		Use:           "iperf3 (-s | -c HOST) [flags]",
		Short:         "tcptune running as iperf3",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case serverMode && b.host != "":
				return errors.New("-s and -c: choose one")
			case serverMode:
				s.port, s.bind, s.json, s.interval, s.format = b.port, b.bind, b.json, b.interval, b.format
				return server.New(s.options(cmd)).ListenAndServe(cmd.Context())
			case b.host != "":
				return runBench(cmd.Context(), cmd, b)
			}
			return errors.New("parameter error - must either be a client (-c) or server (-s)")
		},
	}
	fs := cmd.Flags()
	fs.BoolVarP(&serverMode, "server", "s", false, "run in server mode")
	fs.StringVarP(&b.host, "client", "c", "", "run in client mode, connecting to HOST")
	b.register(fs)
	fs.BoolVarP(&s.oneOff, "one-off", "1", false, "handle one client connection then exit")
	intVarP(fs, &s.maxTests, "max-tests", "", 1, 1, 1024, "tests", "tests served at once (iperf3 serves one)")
	intVarP(fs, &s.maxDuration, "server-max-duration", "", 0, 0, 86400, "seconds", "refuse tests longer than this")
	intVarP(fs, &s.rcvTimeout, "rcv-timeout", "", 120000, 1000, 86400000, "milliseconds", "idle timeout for receiving data (ms)")
	cmd.SetFlagErrorFunc(flagError)
	return cmd
}
