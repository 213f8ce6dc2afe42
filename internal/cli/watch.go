package cli

import (
	"bufio"
	"errors"
	"fmt"
	iofs "io/fs"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/advise"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/watch"
)

func newWatchCmd() *cobra.Command {
	var (
		interval      time.Duration
		port, count   int
		filter, netns string
		promAddr      string
		asJSON, flows bool
		group         string
		forDur, every time.Duration
		rate          float64
	)
	cmd := &cobra.Command{
		Use:   "watch [--interval 1s] [--port P | --filter EXPR] [--count N | --flows [--group 24,64|port] [--for D] [--rate R] [--open-every D]] [--netns NS] [--json] [--prometheus ADDR]",
		Short: "Live socket buffers (sock_diag) and the kernel counters that show overflow (Linux)",
		Long: `watch lists TCP sockets through sock_diag netlink, as ss does: addresses,
state, Recv-Q/Send-Q, skmem (rmem_alloc/rcvbuf, wmem_queued/sndbuf, drops),
cwnd, RTT, delivery rate, and the share of the last interval each was
limited by the peer's window or its send buffer. Below, the per-second
change of the host's counters that reveal buffer trouble (PruneCalled,
TCPRcvCollapsed, TCPZeroWindowDrop, TCPMemoryPressures, ListenOverflows,
retransmits, softnet drops ...), and verdicts in words.

--filter takes terms KEY=VALUE, all of which must hold: sport, dport, port,
src, dst, state (e.g. "dport=5201 state=estab").

--flows records every TCP flow as it ends instead (the kernel's sock_diag
destroy notifications, as ss -E; --netns needs root), judges each with the
attribution bench uses (the sender's view where this host sent, the
receiver's where it received), and sums them per peer prefix (--group,
/24 and /64 by default, or per service port) with one verdict per group
and the setting that acts on it, sized for --rate at the group's RTT.
Flows too short to leave slow start are counted, not judged; flows still
open are judged and recorded every --open-every (1m). It prints
each flow as it ends (a live table of the groups on a terminal), and the
summary at the end (--for, --count intervals or Ctrl-C); --json writes
one object per flow and the summary; advise --flows FILE reads it back.`,
		Example: "  tcptune watch --port 5201\n  tcptune watch --filter 'dst=10.0.0.2' --count 10 --json\n  tcptune watch --prometheus :9465\n  sudo tcptune watch --flows --for 10m --rate 10gbit --json > flows.json",
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
			format := watch.FormatOf(asJSON, isTerminal(cmd.OutOrStdout()))
			if flows {
				by, err := watch.ParseGroupBy(group)
				if err != nil {
					return err
				}
				if count > 0 && forDur == 0 {
					forDur = time.Duration(count) * interval
				}
				run := watch.NewFlowRun(watch.FlowConfig{NetNS: netns, Interval: interval, For: forDur, GroupBy: by, Filter: f, TargetBPS: rate, Every: every, Kernel: advise.KernelRelease("/")})
				return watchFlows(cmd, run, promAddr, format)
			}
			if c := flagx.FirstChanged(cmd.Flags(), "group", "for", "rate", "open-every"); c != "" {
				return fmt.Errorf("--%s: applies to --flows", c)
			}
			src := watch.Live{NetNS: netns, Filter: f}
			if promAddr != "" {
				stop, err := servePrometheus(cmd, promAddr, watch.NewCollector(src))
				if err != nil {
					return err
				}
				defer stop()
			}
			return watch.Run(cmd.Context(), src, interval, count, watch.Printer(cmd.OutOrStdout(), format))
		},
	}
	fs := cmd.Flags()
	flagx.SecondsVarP(fs, &interval, "interval", "i", time.Second, 100*time.Millisecond, time.Hour, false, "seconds between refreshes")
	flagx.IntVarP(fs, &port, "port", "p", 0, 0, 65535, "a port", "only sockets with this local or peer port")
	fs.StringVar(&filter, "filter", "", "only sockets matching EXPR: sport=N dport=N port=N src=IP dst=IP state=S")
	flagx.IntVarP(fs, &count, "count", "c", 0, 0, 1000000, "refreshes", "stop after N refreshes (0 = until interrupted)")
	fs.StringVar(&netns, "netns", "", "watch inside this network namespace")
	fs.BoolVarP(&asJSON, "json", "J", false, "one JSON object per refresh")
	fs.BoolVar(&flows, "flows", false, "record every TCP flow as it ends, judge it and sum per group")
	fs.StringVar(&group, "group", "24,64", "with --flows: group peers by prefix lengths V4[,V6], or by service port (port)")
	flagx.SecondsVarP(fs, &forDur, "for", "", 0, 0, 366*24*time.Hour, true, "with --flows: stop after this long (0 = until interrupted)")
	flagx.SecondsVarP(fs, &every, "open-every", "", time.Minute, 0, 24*time.Hour, true, "with --flows: judge and record flows still open this often (0 = only at their end)")
	rate = 1e9
	flagx.RateVarP(fs, &rate, "rate", "", "with --flows: the rate per flow the advice sizes buffers for (default 1gbit)")
	fs.StringVar(&promAddr, "prometheus", "", "also serve the figures as Prometheus metrics on [HOST]:PORT (loopback unless HOST is given; e.g. :9465)")
	return cmd
}

// watchFlows runs --flows: each flow as it ends (or the groups' table,
// redrawn, on a terminal), the summary at the end.
func watchFlows(cmd *cobra.Command, run *watch.FlowRun, promAddr string, format string) error {
	if promAddr != "" {
		stop, err := servePrometheus(cmd, promAddr, watch.NewFlowCollector(run))
		if err != nil {
			return err
		}
		defer stop()
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	s, err := run.Run(cmd.Context(), watch.FlowPrinter(out, cmd.ErrOrStderr(), format))
	if errors.Is(err, iofs.ErrPermission) {
		return fmt.Errorf("--flows: the kernel refused its flow events (%v): run it as root", err)
	}
	if err != nil {
		out.Flush()
		return err
	}
	return watch.FlowEnd(out, s, format)
}
