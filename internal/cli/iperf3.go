package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/daemon"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/server"
	"github.com/tcptune/tcptune/internal/version"
)

// iperf3Flags are the drop-in's own flags.
type iperf3Flags struct {
	proc                procFlags
	version, forceFlush bool
	rateLimit           server.RateLimit
	idleTimeout         int
}

// procFlags are iperf3's process flags, which serve shares.
type procFlags struct {
	daemon           bool
	logfile, pidfile string
}

func (p *procFlags) register(fs *pflag.FlagSet) {
	fs.BoolVarP(&p.daemon, "daemon", "D", false, "run the server in the background as a daemon (not on Windows)")
	fs.StringVar(&p.logfile, "logfile", "", "send output (and errors) to this file, appending")
	fs.StringVarP(&p.pidfile, "pidfile", "I", "", "write the process ID to this file while running")
}

// run runs serve as the process flags say: started again in the
// background (this process then ends), its output in the log file, and
// its PID in the PID file while it runs.
func (p *procFlags) run(cmd *cobra.Command, name string, serve func() error) error {
	if p.daemon && !daemon.IsChild() {
		_, err := daemon.Start(p.logfile)
		return err
	}
	return withLog(cmd, p.logfile, name, func() error { return daemon.WithPIDFile(p.pidfile, serve) })
}

// newIperf3Cmd is the drop-in: iperf3's command line (-s, or -c HOST),
// so that scripts calling iperf3 run tcptune unchanged.
func newIperf3Cmd() *cobra.Command {
	b := &benchFlags{}
	s := &serveFlags{}
	pf := &iperf3Flags{}
	var serverMode bool
	cmd := &cobra.Command{
		Use:           "iperf3 (-s | -c HOST) [flags]",
		Short:         "tcptune running as iperf3",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pf.version {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\n%s\nOptional features available: CPU affinity setting (Linux), TCP congestion algorithm setting (Linux), sendfile / zerocopy (Linux), skip rx copy (Linux), socket pacing (Linux), support IPv4 don't fragment\n",
					version.Iperf3Line(), version.SystemInfo())
				return nil
			}
			if pf.proc.daemon && !serverMode {
				return errors.New("-D/--daemon: only with -s (server mode)")
			}
			return pf.proc.run(cmd, "iperf3", func() error { return runIperf3(cmd, b, s, pf, serverMode) })
		},
	}
	fs := cmd.Flags()
	fs.BoolVarP(&serverMode, "server", "s", false, "run in server mode")
	fs.StringVarP(&b.r.Host, "client", "c", "", "run in client mode, connecting to HOST")
	b.register(fs)
	fs.BoolVarP(&s.oneOff, "one-off", "1", false, "handle one client connection then exit")
	flagx.IntVarP(fs, &s.maxTests, "max-tests", "", 1, 1, 1024, "tests", "tests served at once (iperf3 serves one)")
	flagx.IntVarP(fs, &s.maxDuration, "server-max-duration", "", 0, 0, 86400, "seconds", "refuse timed tests longer than this and end -n/-k tests at it (0 = no limit, as iperf3)")
	flagx.IntVarP(fs, &s.perClient, "max-tests-per-client", "", 2, 1, 1024, "tests", "tests one client address may run at once (with --max-tests)")
	s.auth.registerServer(fs)
	fs.BoolVarP(&pf.version, "version", "v", false, "print the version (iperf 3.22 (tcptune X.Y.Z)) and exit")
	pf.proc.register(fs)
	fs.Var(&pf.rateLimit, "server-bitrate-limit", "end a test whose streams average above RATE over SECONDS (default 5), and refuse one whose -b asks for more: RATE[/SECONDS]")
	flagx.IntVarP(fs, &pf.idleTimeout, "idle-timeout", "", 0, 0, 86400, "seconds", "restart an idle server after this many seconds (accepted with a warning: every read has its own deadline)")
	fs.BoolVar(&pf.forceFlush, "forceflush", false, "flush output at every interval (tcptune never buffers output, so always)")
	cmd.SetFlagErrorFunc(flagError)
	return cmd
}

// runIperf3 runs the drop-in's server or client once its process flags
// are handled.
func runIperf3(cmd *cobra.Command, b *benchFlags, s *serveFlags, pf *iperf3Flags, serverMode bool) error {
	switch {
	case serverMode && b.r.Host != "":
		return errors.New("-s and -c: choose one")
	case serverMode:
		if err := flagx.ClientOnly(cmd.Flags()); err != nil {
			return err
		}
		if pf.idleTimeout > 0 {
			fmt.Fprintln(cmd.ErrOrStderr(), "warning: --idle-timeout: not supported by tcptune (every network read has its own deadline); ignored")
		}
		s.port, s.bind, s.json, s.interval, s.format, s.rcvTimeout = b.r.Port, b.r.Bind, b.json, b.r.Interval, b.r.Format, b.r.RcvTimeout
		s.auth.pkcs1 = b.auth.pkcs1
		o, err := s.options(cmd)
		if err != nil {
			return err
		}
		o.RateLimit = pf.rateLimit
		o.Out = report.Prefixed(o.Out, o.Mode, "", b.compat.timestamps)
		return server.New(o).ListenAndServe(cmd.Context())
	case b.r.Host != "":
		return runBench(cmd.Context(), cmd, b)
	}
	return errors.New("parameter error - must either be a client (-c) or server (-s)")
}
