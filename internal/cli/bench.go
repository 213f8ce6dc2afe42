package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/affinity"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/daemon"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/wire"
)

// benchFlags are iperf3's client flags, with iperf3's letters: the
// test's onto a client.Request, the output's here.
type benchFlags struct {
	r                          client.Request
	auth                       authFlags
	compat                     compatFlags
	json, jsonStream, jsonFull bool
	repeat                     int
}

func (f *benchFlags) register(fs *pflag.FlagSet) {
	flagx.IntVarP(fs, &f.r.Port, "port", "p", wire.DefaultPort, 1, 65535, "a port", "server port to connect to")
	flagx.SecondsVarP(fs, &f.r.Time, "time", "t", 10*time.Second, time.Millisecond, wire.MaxDuration*time.Second, true, "time in seconds to transmit for (fractions allowed)")
	flagx.SizeVarP(fs, &f.r.Bytes, "bytes", "n", 1<<50, "number of bytes to transmit (instead of -t), e.g. 100M")
	flagx.SizeVarP(fs, &f.r.Blocks, "blockcount", "k", 1<<50, "number of blocks (packets) to transmit (instead of -t or -n)")
	flagx.IntVarP(fs, &f.r.Parallel, "parallel", "P", 1, 1, wire.MaxParallel, "streams", "number of parallel client streams to run")
	fs.BoolVarP(&f.r.Reverse, "reverse", "R", false, "run in reverse mode (server sends, client receives)")
	fs.BoolVar(&f.r.Bidir, "bidir", false, "run in bidirectional mode (client and server send and receive)")
	fs.BoolVarP(&f.r.UDP, "udp", "u", false, "use UDP rather than TCP")
	flagx.RateVarP(fs, &f.r.Bitrate, "bitrate", "b", "target bitrate in bits/sec per stream (0 = unlimited; default 1M for UDP), e.g. 100M, 1gbit")
	flagx.SizeVarP(fs, &f.r.Window, "window", "w", wire.MaxWindow, "set socket buffer sizes (SO_SNDBUF/SO_RCVBUF; turns autotuning off), e.g. 256K")
	flagx.IntVarP(fs, &f.r.MSS, "set-mss", "M", 0, 0, wire.MaxMSS, "bytes", "set TCP maximum segment size (MTU - 40 bytes)")
	flagx.SizeVarP(fs, &f.r.Length, "length", "l", wire.MaxTCPLen, "length of buffer to read or write (default 128 KB for TCP, the path MSS for UDP)")
	fs.StringVarP(&f.r.Congestion, "congestion", "C", "", "set TCP congestion control algorithm (Linux), e.g. cubic, bbr")
	fs.BoolVar(&f.r.CCFromStart, "cc-from-start", false, "set -C before connecting, so each connection runs it from its first packet, as on a host whose default it is (without it, as iperf3: set once connected, where a connection begun under a pacing default such as BBR keeps pacing)")
	fs.BoolVarP(&f.r.NoDelay, "no-delay", "N", false, "set TCP no delay, disabling Nagle's algorithm")
	flagx.IntVarP(fs, &f.r.Omit, "omit", "O", 0, 0, wire.MaxOmit, "seconds", "omit the first n seconds of the test from the totals")
	flagx.SecondsVarP(fs, &f.r.Interval, "interval", "i", time.Second, 100*time.Millisecond, 60*time.Second, true, "seconds between periodic reports (0 = none)")
	fs.BoolVarP(&f.json, "json", "J", false, "output in JSON format (iperf3's -J schema; tcptune's additions under \"tcptune\")")
	fs.BoolVar(&f.jsonStream, "json-stream", false, "output in line-delimited JSON events")
	fs.BoolVar(&f.jsonFull, "json-stream-full-output", false, "with --json-stream (implied): also print the -J document at the end")
	fs.BoolVar(&f.r.ServerOutput, "get-server-output", false, "get results from the server")
	fs.BoolVarP(&f.r.IPv4, "version4", "4", false, "only use IPv4")
	fs.BoolVarP(&f.r.IPv6, "version6", "6", false, "only use IPv6")
	fs.StringVarP(&f.r.Bind, "bind", "B", "", "bind to the interface associated with this address")
	flagx.IntVarP(fs, &f.r.ConnectTimeout, "connect-timeout", "", 0, 0, 3600000, "milliseconds", "timeout for the control connection setup (ms)")
	flagx.IntVarP(fs, &f.r.RcvTimeout, "rcv-timeout", "", 0, 100, 86400000, "milliseconds", "idle timeout for receiving data, with -R or --bidir; as a server, for any test (ms; default 120000)")
	flagx.SecondsVarP(fs, &f.r.BusyWait, "busy-wait", "", 0, time.Second, 24*time.Hour, true, "seconds to keep trying a server that is busy running another test (0 = fail at once, as iperf3)")
	fs.BoolVarP(&f.r.ZeroCopy, "zerocopy", "Z", false, "use a 'zero copy' method of sending data (sendfile from memory, Linux)")
	fs.BoolVar(&f.r.SkipRxCopy, "skip-rx-copy", false, "ignore received data instead of copying it (MSG_TRUNC, Linux TCP; iperf3 3.19+ servers)")
	fs.StringVarP(&f.r.Affinity, "affinity", "A", "", "set CPU affinity n[,m]: n for this side, m for the server (Linux)")
	fs.StringVarP(&f.r.TOS, "tos", "S", "", "set the IP type of service, 0-255 (decimal, 0x hex or 0 octal)")
	flagx.IntVarP(fs, &f.r.FlowLabel, "flowlabel", "L", 0, 0, 0xFFFFF, "a flow label", "set the IPv6 flow label of the data streams, 1-1048575 (Linux)")
	flagx.IntVarP(fs, &f.r.CPort, "cport", "", 0, 0, 65535, "a port", "bind data streams to this client port (and the ports after it for -P)")
	fs.StringVarP(&f.r.Title, "title", "T", "", "prefix every output line with this string")
	fs.StringVar(&f.r.ExtraData, "extra-data", "", "a string to include in the JSON output (and the server's)")
	fs.VarP(flagx.Format(&f.r.Format), "format", "f", "format to report: k m g t (bits) K M G T (bytes)")
	flagx.IntVarP(fs, &f.repeat, "repeat", "", 1, 1, 1000, "runs", "run the test N times and report median, min/max and a 95% confidence interval")
	fs.BoolVar(&f.r.UDP64, "udp-counters-64bit", false, "use 64-bit counters in UDP test packets")
	flagx.RateVarP(fs, &f.r.FQRate, "fq-rate", "", "enable fair-queuing based socket pacing in bits/sec (Linux)")
	fs.BoolVar(&f.r.DontFrag, "dont-fragment", false, "set IPv4 Don't Fragment flag")
	fs.Var(flagx.KeepAlive(&f.r.KeepAlive), "cntl-ka", "use TCP keepalive on the control connection: [IDLE/INTERVAL/COUNT], each optional (system default)")
	fs.Lookup("cntl-ka").NoOptDefVal = " "
	f.auth.registerClient(fs)
	f.auth.registerPadding(fs)
	f.compat.register(fs, &f.r)
}

func newBenchCmd() *cobra.Command {
	f := &benchFlags{}
	var logfile string
	cmd := &cobra.Command{
		Use:   "bench -c HOST [flags]",
		Short: "Measure throughput to an iperf3 or tcptune server, and say what limited it",
		Long: `Run a throughput test against an iperf3 server or 'tcptune serve', speaking
iperf3's protocol. Flags have iperf3's letters and meanings. Besides iperf3's
report it shows the socket buffers granted, the MSS and path MTU, RTT per
interval, and what limited the transfer: the receiver's window, the send
buffer, the network, or the CPU.`,
		Example: `  tcptune bench -c 10.0.0.2
  tcptune bench -c 10.0.0.2 -P 4 -t 30 -R
  tcptune bench -c 10.0.0.2 -u -b 100M
  tcptune bench -c 10.0.0.2 --repeat 5 -J`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.r.Host == "" {
				return errors.New("-c/--client: accepts the server's host name or address (required)")
			}
			return withLog(cmd, logfile, "tcptune", func() error { return runBench(cmd.Context(), cmd, f) })
		},
	}
	cmd.Flags().StringVarP(&f.r.Host, "client", "c", "", "server host to connect to (required)")
	cmd.Flags().StringVar(&logfile, "logfile", "", "send output (and errors) to this file, appending (as iperf3's --logfile)")
	f.register(cmd.Flags())
	return cmd
}

// withLog runs run with its output appended to file ("" none), and its
// error too, as iperf3's --logfile: printed there as Main prints it to
// stderr, with the exit status Main would give.
func withLog(cmd *cobra.Command, file, name string, run func() error) error {
	if file == "" {
		return run()
	}
	w, err := daemon.OpenLog(file)
	if err != nil {
		return err
	}
	defer w.Close()
	cmd.SetOut(w)
	cmd.SetErr(w)
	if code := exitStatus(w, name, run()); code != 0 {
		return exitCode(code)
	}
	return nil
}

func runBench(ctx context.Context, cmd *cobra.Command, f *benchFlags) error {
	f.r.BitrateSet, f.r.TimeSet = cmd.Flags().Changed("bitrate"), cmd.Flags().Changed("time")
	mode, err := report.ModeOf(f.json, f.jsonStream, f.jsonFull)
	if err != nil {
		return err
	}
	o, local, err := f.r.Options()
	if err != nil {
		return err
	}
	for _, w := range f.r.Warnings() {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
	}
	if o.Auth, err = f.auth.credentials(cmd); err != nil {
		return err
	}
	if local >= 0 {
		if err := affinity.Pin(local); err != nil {
			return fmt.Errorf("-A/--affinity: %v", err)
		}
	}
	out := report.Prefixed(cmd.OutOrStdout(), mode, f.r.Title, f.compat.timestamps)
	return bench(ctx, o, &report.Runs{W: out, Err: cmd.ErrOrStderr(), Mode: mode, N: f.repeat})
}

// bench runs the test once or --repeat times, rendered by runs.
func bench(ctx context.Context, o client.Options, runs *report.Runs) error {
	series, err := client.Repeated(ctx, o, runs.N, func(i int) client.Observer { return runs.Run(i) })
	if err != nil {
		runs.Failed()
		if errors.Is(err, client.ErrInterrupted) {
			return endedBySignal{err}
		}
		return err
	}
	ext := series.Last.Ext
	if ext != nil {
		ext.Repeat = series.Repeat()
	}
	runs.Done(series.Stats, o.Unit, ext, series.Repeat())
	return nil
}
