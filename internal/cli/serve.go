package cli

import (
	"log/slog"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/servemetrics"
	"github.com/tcptune/tcptune/internal/server"
	"github.com/tcptune/tcptune/internal/wire"
)

type serveFlags struct {
	auth                     authFlags
	port                     int
	bind                     string
	oneOff                   bool
	json                     bool
	maxTests                 int
	perClient                int
	maxDuration              int
	interval                 time.Duration
	rcvTimeout               int
	format                   byte
	prometheus               string
	maxTestMemory, maxMemory int64
	ccFromStart              bool
	proc                     procFlags
}

func (f *serveFlags) register(fs *pflag.FlagSet) {
	flagx.IntVarP(fs, &f.port, "port", "p", wire.DefaultPort, 1, 65535, "a port", "server port to listen on")
	fs.StringVarP(&f.bind, "bind", "B", "", "bind to the interface associated with this address")
	fs.BoolVarP(&f.oneOff, "one-off", "1", false, "handle one client connection, then exit")
	fs.BoolVarP(&f.json, "json", "J", false, "output one JSON document per test (and JSON log lines on stderr)")
	flagx.IntVarP(fs, &f.maxTests, "max-tests", "", 4, 1, 1024, "tests", "tests served at once; past that, refuse like a busy iperf3")
	flagx.IntVarP(fs, &f.perClient, "max-tests-per-client", "", 2, 1, 1024, "tests", "tests one client address may run at once")
	flagx.IntVarP(fs, &f.maxDuration, "server-max-duration", "", 3600, 0, wire.MaxDuration, "seconds", "refuse timed tests longer than this and end -n/-k tests at it (0 = no limit)")
	flagx.SizeVarP(fs, &f.maxTestMemory, "max-test-memory", "", 1<<40, "buffer memory one test may make the server hold: its blocks, and its send buffers with -w (default: half of tcp_mem's pressure threshold)")
	flagx.SizeVarP(fs, &f.maxMemory, "max-memory", "", 1<<40, "buffer memory all running tests may hold together; past it, refuse like a busy iperf3 (default: tcp_mem's pressure threshold)")
	flagx.SecondsVarP(fs, &f.interval, "interval", "i", time.Second, 100*time.Millisecond, 60*time.Second, true, "seconds between periodic reports (0 = none)")
	flagx.IntVarP(fs, &f.rcvTimeout, "rcv-timeout", "", 120000, 100, 86400000, "milliseconds", "abort a test when no data moves for this long (ms)")
	fs.VarP(flagx.Format(&f.format), "format", "f", "format to report: k m g t (bits) K M G T (bytes)")
	f.auth.registerServer(fs)
	f.auth.registerPadding(fs)
	fs.BoolVar(&f.ccFromStart, "cc-from-start", false, "give a client's -C to its data connections from their first packet (set on the listener while they connect, tests taking turns), as on a host whose default it is; without it, as iperf3: set once accepted, where a connection begun under a pacing default such as BBR keeps pacing")
	fs.StringVar(&f.prometheus, "prometheus", "", "also serve each finished test as Prometheus metrics on [HOST]:PORT (loopback unless HOST is given; e.g. :9466)")
}

func (f *serveFlags) options(cmd *cobra.Command) (server.Options, error) {
	v, err := f.auth.verifier()
	if err != nil {
		return server.Options{}, err
	}
	mode := report.Text
	var h slog.Handler = slog.NewTextHandler(cmd.ErrOrStderr(), nil)
	if f.json {
		mode = report.JSON
		h = slog.NewJSONHandler(cmd.ErrOrStderr(), nil)
	}
	return server.Options{Bind: f.bind, Port: f.port, OneOff: f.oneOff, MaxTests: f.maxTests, MaxPerClient: f.perClient, MaxDuration: f.maxDuration,
		MaxTestMemory: f.maxTestMemory, MaxMemory: f.maxMemory,
		Mode: mode, Interval: f.interval, RcvTimeout: time.Duration(f.rcvTimeout) * time.Millisecond,
		Out: cmd.OutOrStdout(), Log: slog.New(h), Auth: v, CongestionFromStart: f.ccFromStart}, nil
}

func newServeCmd() *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Run an iperf3-compatible server that serves several tests at once",
		Long: `Serve throughput tests on port 5201 for iperf3 clients and 'tcptune bench'.
Unlike iperf3 it serves up to --max-tests tests at once; past that it
answers like a busy iperf3. When the client is tcptune, the server sends its
TCP_INFO figures back, so that reverse (-R) tests say what limited them.`,
		Example: `  tcptune serve
  tcptune serve -p 5202 -B 10.0.0.2 --max-tests 8
  tcptune serve -1 -J
  tcptune serve -D -I /run/tcptune.pid --logfile /var/log/tcptune.log`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.proc.run(cmd, "tcptune", func() error {
				o, err := f.options(cmd)
				if err != nil {
					return err
				}
				if f.prometheus != "" {
					m := servemetrics.New()
					stop, err := servePrometheus(cmd, f.prometheus, m)
					if err != nil {
						return err
					}
					defer stop()
					o.OnTestEnd = m.Record
				}
				return server.New(o).ListenAndServe(cmd.Context())
			})
		},
	}
	f.register(cmd.Flags())
	f.proc.register(cmd.Flags())
	return cmd
}
