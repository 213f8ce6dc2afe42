package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/watch"
)

func newWatchCmd() *cobra.Command {
	var (
		interval      time.Duration
		port, count   int
		filter, netns string
		promAddr      string
		asJSON        bool
	)
	cmd := &cobra.Command{
		Use:   "watch [--interval 1s] [--port P | --filter EXPR] [--count N] [--netns NS] [--json] [--prometheus ADDR]",
		Short: "Live socket buffers (sock_diag) and the kernel counters that show overflow (Linux)",
		Long: `watch lists TCP sockets through sock_diag netlink, as ss does: addresses,
state, Recv-Q/Send-Q, skmem (rmem_alloc/rcvbuf, wmem_queued/sndbuf, drops),
cwnd, RTT, delivery rate, and the share of the last interval each was
limited by the peer's window or its send buffer. Below, the per-second
change of the host's counters that reveal buffer trouble (PruneCalled,
TCPRcvCollapsed, TCPZeroWindowDrop, TCPMemoryPressures, ListenOverflows,
retransmits, softnet drops ...), and verdicts in words.

--filter takes terms KEY=VALUE, all of which must hold: sport, dport, port,
src, dst, state (e.g. "dport=5201 state=estab").`,
		Example: "  tcptune watch --port 5201\n  tcptune watch --filter 'dst=10.0.0.2' --count 10 --json\n  tcptune watch --prometheus :9465",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if port != 0 && filter != "" {
				return errors.New("--port: give --port or --filter, not both")
			}
			f, err := watch.ParseFilter(filter)
			if err != nil {
				return err
			}
			f.Port = port
			src := watch.Live{NetNS: netns, Filter: f}
			if promAddr != "" {
				at, stop, err := watch.ServeMetrics(promAddr, src)
				if err != nil {
					return fmt.Errorf("--prometheus %s: %v", promAddr, client.UnwrapOp(err))
				}
				defer stop()
				fmt.Fprintf(cmd.ErrOrStderr(), "serving Prometheus metrics on http://%s/metrics\n", at)
			}
			out := cmd.OutOrStdout()
			format := watch.Text
			switch {
			case asJSON:
				format = watch.JSONLines
			case isTerminal(out):
				format = watch.Screen
			}
			return watch.Run(cmd.Context(), src, interval, count, watch.Printer(out, format))
		},
	}
	fs := cmd.Flags()
	flagx.SecondsVarP(fs, &interval, "interval", "i", time.Second, 100*time.Millisecond, time.Hour, false, "seconds between refreshes")
	flagx.IntVarP(fs, &port, "port", "p", 0, 0, 65535, "a port", "only sockets with this local or peer port")
	fs.StringVar(&filter, "filter", "", "only sockets matching EXPR: sport=N dport=N port=N src=IP dst=IP state=S")
	flagx.IntVarP(fs, &count, "count", "c", 0, 0, 1000000, "refreshes", "stop after N refreshes (0 = until interrupted)")
	fs.StringVar(&netns, "netns", "", "watch inside this network namespace")
	fs.BoolVarP(&asJSON, "json", "J", false, "one JSON object per refresh")
	fs.StringVar(&promAddr, "prometheus", "", "also serve the figures as Prometheus metrics on [HOST]:PORT (loopback unless HOST is given; e.g. :9465)")
	return cmd
}
