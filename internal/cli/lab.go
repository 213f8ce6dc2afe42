package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/lab"
)

// linkFlags are a lab link's flags, onto a lab.Spec (--rate-trace
// names files, read when the link is built).
type linkFlags struct {
	s     lab.Spec
	trace string
}

func (f *linkFlags) register(fs *pflag.FlagSet) {
	s := &f.s
	fs.StringVar(&s.Rate, "rate", "", "link rate (default "+lab.DefaultRate+"), e.g. 100mbit, 1gbit, 2.5G; A→B/B→A for an asymmetric link, e.g. 100mbit/10mbit")
	fs.StringVar(&s.RTT, "rtt", "", "round-trip time (default "+lab.DefaultRTT+"), e.g. 50ms, 0.2s (half each way)")
	fs.StringVar(&s.Delay, "delay", "", "one-way delays A→B/B→A in place of --rtt, e.g. 20ms/300ms (their sum is the RTT)")
	fs.StringVar(&s.Loss, "loss", "0", "random loss per segment, e.g. 0.01% or 0.0001; A→B/B→A per direction")
	fs.StringVar(&s.Queue, "queue", "1bdp", "drop-tail queue: a multiple of the BDP (1bdp; at least 256 KB) or bytes (4M); A→B/B→A per direction")
	flagx.IntVarP(fs, &s.MTU, "mtu", "", 1500, 576, 65000, "bytes", "MTU of the hosts' interfaces")
	flagx.IntVarP(fs, &s.PathMTU, "path-mtu", "", 0, 0, 65000, "bytes", "largest packet the path carries (0 = --mtu); a larger one with DF gets an ICMP \"fragmentation needed\" from a router on the path")
	fs.BoolVar(&s.PMTUBlackhole, "pmtu-blackhole", false, "with --path-mtu: drop larger packets silently, as a misconfigured switch or a firewall that eats ICMP does")
	flagx.IntVarP(fs, &s.TxQLen, "txqueuelen", "", lab.DefaultTxQueueLen, 1, 1000000, "packets", "the hosts' interfaces' transmit ring (a TUN drops what it cannot hold, counted as tx_dropped: a host whose NIC queue is too short)")
	fs.StringVar(&s.LossGE, "loss-gemodel", "", "bursty loss, netem's Gilbert-Elliott model: P[,R[,LOSS_BAD[,LOSS_GOOD]]] (good→bad, bad→good, loss in each state; defaults R = 1−P, 100%, 0), e.g. 1%,25% (instead of --loss)")
	fs.StringVar(&s.Jitter, "jitter", "", "vary each packet's one-way delay: AMOUNT[,DIST][,reorder], DIST uniform (±AMOUNT, the default), normal or pareto (σ AMOUNT); packets keep their order unless reorder, e.g. 5ms,normal")
	fs.StringVar(&s.RateSchedule, "rate-schedule", "", "a rate that changes over time, each way, in place of --rate: RATE:DURATION,... repeated, e.g. 100mbit:2s,20mbit:1s")
	fs.StringVar(&f.trace, "rate-trace", "", "a rate that changes over time in place of --rate: a Mahimahi packet-delivery trace FILE each way, or A→B,B→A (one line per 1500-byte opportunity, in ms; it repeats), e.g. Verizon-LTE-short.down,Verizon-LTE-short.up")
	fs.StringVar(&s.Reorder, "reorder", "", "hold back a share of packets, each way, for later ones to overtake: SHARE,GAP, e.g. 1%,2ms")
	fs.StringVar(&s.CoDel, "codel", "", "manage each direction's queue with CoDel: TARGET[,INTERVAL] (RFC 8289; e.g. 5ms, interval 100ms by default); --queue stays its limit")
	fs.StringVar(&s.Police, "police", "", "drop (not queue) what exceeds this rate at the link's entry, each way: a token-bucket policer, as a provider's contract, e.g. 50mbit")
	fs.StringVar(&s.PoliceBurst, "police-burst", "", "the policer's bucket, e.g. 256K (default 10 ms at its rate, at least 64 KB)")
	fs.Uint64Var(&s.Seed, "seed", 0, "seed of the random loss, to repeat a run (0 = from the clock; lab ls --json shows it)")
}

func (f *linkFlags) config(name string) (lab.Config, error) {
	s := f.s
	if f.trace != "" {
		var err error
		if s.RateTrace, s.RateTraceBA, err = lab.ReadTraces(f.trace); err != nil {
			return lab.Config{}, err
		}
	}
	return lab.ParseConfig(name, s)
}

func newLabCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Emulated wide-area links between network namespaces (Linux, root)",
		Long: `Build a link with a given rate, RTT, loss and queue between two network
namespaces on this machine, tcptune-NAME-a (10.201.N.1) and tcptune-NAME-b
(10.201.N.2), joined by TUN devices through a relay process. Sysctls inside
the namespaces are their own, so experiments never touch the host.`,
	}
	cmd.AddCommand(newLabUpCmd(), newLabDownCmd(), newLabLsCmd(), newLabExecCmd(), newLabRunCmd(), newLabRelayCmd())
	return cmd
}

func newLabUpCmd() *cobra.Command {
	f := &linkFlags{}
	var hub string
	cmd := &cobra.Command{
		Use:     "up NAME [--rate 1gbit] [--rtt 50ms] [--loss 0] [--queue 1bdp] [--mtu 1500] [--path-mtu N [--pmtu-blackhole]] [--hub HUB]",
		Short:   "Create a link",
		Example: "  tcptune lab up wan --rate 1gbit --rtt 50ms\n  tcptune lab up lossy --rate 100mbit --rtt 200ms --loss 0.01% --queue 0.5bdp\n  tcptune lab up h1 --hub dc --rate 1gbit; tcptune lab up h2 --hub dc --rate 100mbit   # a star: h1's b reaches h2's b",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := f.config(args[0])
			if err != nil {
				return err
			}
			if c.Hub = hub; hub != "" {
				if err := c.Validate(); err != nil {
					return err
				}
			}
			st, err := lab.Up(c)
			if err != nil {
				return err
			}
			lab.WriteUp(cmd.OutOrStdout(), st)
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&hub, "hub", "", "make end a the shared namespace tcptune-hub-HUB: links with one hub form a star whose b ends reach each other")
	return cmd
}

func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return fmt.Errorf("%s: want %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

func newLabDownCmd() *cobra.Command {
	var all, orphaned bool
	cmd := &cobra.Command{
		Use:   "down NAME | --all | --orphaned",
		Short: "Remove a link (or all, or those a killed run left): namespaces, devices, relay and state",
		RunE: func(cmd *cobra.Command, args []string) error {
			if all || orphaned {
				names, err := lab.DownAll(orphaned)
				for _, n := range names {
					fmt.Fprintf(cmd.OutOrStdout(), "lab %s down\n", n)
				}
				return err
			}
			if len(args) != 1 {
				return errors.New("lab down: want NAME, --all or --orphaned")
			}
			if err := lab.Down(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "lab %s down\n", args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "remove every lab link")
	cmd.Flags().BoolVar(&orphaned, "orphaned", false, "remove the links whose owner (a tune --lab or lab run that was killed) is gone")
	return cmd
}

func newLabLsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls [--json]",
		Short: "List links with their relay's state and counters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			links, err := lab.List()
			if err != nil {
				return err
			}
			if links == nil {
				links = []lab.Link{}
			}
			return output(cmd.OutOrStdout(), asJSON, links, func(w io.Writer) error { return lab.WriteList(w, links) })
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "output JSON")
	return cmd
}

func newLabExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "exec NAME a|b -- CMD [ARGS...]",
		Short:              "Run a command in one end of a link (TCPTUNE_PEER is the other end's address)",
		Example:            "  tcptune lab exec wan b -- tcptune serve\n  tcptune lab exec wan a -- sh -c 'iperf3 -c $TCPTUNE_PEER'",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
				return cmd.Help()
			}
			if len(args) < 3 {
				return errors.New("lab exec: want NAME a|b -- CMD [ARGS...]")
			}
			argv := args[2:]
			if argv[0] == "--" {
				argv = argv[1:]
			}
			return lab.Exec(args[0], args[1], argv)
		},
	}
}

func newLabRunCmd() *cobra.Command {
	f := &linkFlags{}
	var name string
	var noServe bool
	cmd := &cobra.Command{
		Use:   "run [link flags] [--no-serve] -- CMD [ARGS...]",
		Short: "Bring a link up with tcptune serve in end b, run CMD in end a, take the link down",
		Long: `run brings a link up, starts "tcptune serve" in end b (unless --no-serve),
runs CMD in end a, and takes everything down when CMD ends or on a signal.
Every {peer} in CMD's arguments becomes end b's address; TCPTUNE_PEER holds
it too, for shells. The addresses are printed on stderr first.`,
		Example: "  tcptune lab run --rate 100mbit --rtt 200ms -- tcptune bench -c {peer}\n  tcptune lab run --rate 1gbit --rtt 50ms -- iperf3 -c {peer} -t 5\n  tcptune lab run --no-serve -- sh -c 'ping -c 3 $TCPTUNE_PEER'",
		RunE: func(cmd *cobra.Command, args []string) error {
			if name == "" {
				name = fmt.Sprintf("run%d", os.Getpid()%100000)
			}
			c, err := f.config(name)
			if err != nil {
				return err
			}
			code, err := lab.Run(cmd.Context(), c, args, lab.RunOptions{NoServe: noServe, Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&name, "name", "", "link name (default run<pid>)")
	cmd.Flags().BoolVar(&noServe, "no-serve", false, "do not start tcptune serve in end b")
	return cmd
}

// exitCode passes a child's exit status through.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("command exited with status %d", int(e)) }

func newLabRelayCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "relay NAME",
		Short:  "The relay process of a link (started by lab up)",
		Hidden: true,
		Args:   exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return lab.RunRelay(cmd.Context(), args[0])
		},
	}
}
