package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/sigctx"
	"github.com/tcptune/tcptune/internal/tune"
)

func newTuneCmd() *cobra.Command {
	link := &linkFlags{}
	var (
		onLab, doApply, persist, asJSON bool
		force, allowLower               bool
		peer, direction, report, name   string
		compare                         string
		congestion                      string
		port, trials                    int
		dur, omit, budget               time.Duration
	)
	cmd := &cobra.Command{
		Use:   "tune --lab [--rate 1gbit --rtt 50ms --loss 0 --queue 1bdp] | --peer HOST [-p 5201] [--apply [--persist]]",
		Short: "Measure, try candidate buffer settings, keep the smallest that reaches the best throughput",
		Long: `tune measures the idle RTT and a baseline (--trials of --time per
direction), then searches a grid of tcp_rmem and tcp_wmem maxima (rungs 1.15×
apart, from the host's own up to 4 × BDP) × the congestion controls × the
host queues' raise and a larger MTU where the path calls for them: a model of
the path, updated by every trial, says which point to screen next, and tune
keeps the cheapest point whose full set (its verification) is within the
noise of the best. --lab tunes both ends of a lab link; --peer this host
against a tcptune or iperf3 server, printing the peer's command where its
side limits. Without --apply every value is restored, also after Ctrl-C,
TERM, HUP or a closed output. docs/tune.md has the whole of it.`,
		Example: "  tcptune tune --lab\n  tcptune tune --lab --rate 100mbit --rtt 200ms --report tune.html\n  tcptune tune --peer 10.0.0.2 --rate 10gbit --apply --persist",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && cmd.Flags().Changed("compare") {
				return fmt.Errorf("--compare: takes its value after '=' (--compare=%s)", args[0])
			}
			return cobra.NoArgs(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o := tune.Options{Trials: trials, Time: dur, Omit: omit, Apply: doApply, Persist: persist, Force: force, Congestion: congestion, AllowLower: allowLower, Budget: budget}
			o.LabFlag = flagx.FirstChanged(cmd.Flags(), "rtt", "delay", "loss", "loss-gemodel", "queue", "codel", "jitter", "reorder", "rate-schedule", "rate-trace", "police", "police-burst", "mtu", "path-mtu", "pmtu-blackhole", "txqueuelen", "name")
			var err error
			if o.Directions, err = tune.ParseDirections(direction); err != nil {
				return err
			}
			if o.Compare, err = tune.ParseCompare(compare); err != nil {
				return err
			}
			if err := o.Validate(onLab, peer != ""); err != nil {
				return err
			}
			ctx, stdout, errw, done := sigctx.ClosedOutput(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			defer done()
			var env *tune.Setup
			if onLab {
				if name == "" {
					name = fmt.Sprintf("tune%d", os.Getpid()%100000000)
				}
				c, err := link.config(name)
				if err != nil {
					return err
				}
				e, closeLab, err := tune.OpenLab(ctx, c)
				if err != nil {
					return err
				}
				defer closeLab()
				env = e
			} else {
				if o.Rate, err = tune.ParsePathRate(link.s.Rate); err != nil {
					return err
				}
				ao, err := applyOptions("", false, false)
				if err != nil {
					return err
				}
				e, release, err := tune.OpenPeer(peer, port, ao)
				if err != nil {
					return err
				}
				defer release()
				env = e
			}
			res, err := tune.Run(ctx, env, o, tune.NewPrinter(errw, isTerminal(cmd.ErrOrStderr())))
			if res != nil && res.ChoiceID != "" {
				if report != "" {
					if werr := tune.WriteHTMLFile(report, res); werr != nil {
						return fmt.Errorf("--report: %w", werr)
					}
				}
				if jerr := output(stdout, asJSON, res, func(w io.Writer) error { tune.WriteText(w, res); return nil }); jerr != nil {
					return jerr
				}
			}
			return err
		},
	}
	fs := cmd.Flags()
	fs.BoolVar(&onLab, "lab", false, "tune on a lab link built for the run (Linux, root)")
	link.register(fs)
	fs.StringVar(&name, "name", "", "lab link name (default tunePID)")
	fs.StringVar(&peer, "peer", "", "tune this host against the tcptune or iperf3 server at HOST")
	flagx.IntVarP(fs, &port, "port", "p", 5201, 1, 65535, "a port", "the server's port")
	flagx.IntVarP(fs, &trials, "trials", "", 3, 2, 50, "trials", "trials per direction in a full set (the baseline's, and the choice's: its verification); two where a buffer of this host, or the path filled by a pacing control, held both alike")
	flagx.SecondsVarP(fs, &dur, "time", "t", 5*time.Second, time.Second, time.Hour, false, "measured seconds per trial (fractions allowed)")
	flagx.SecondsVarP(fs, &omit, "omit", "O", 0, 0, time.Minute, true, "seconds of slow start omitted per trial, fractions allowed (0 = max(1 s, 10 × RTT))")
	fs.BoolVar(&force, "force", false, "search even when the baseline already fills the path")
	flagx.SecondsVarP(fs, &budget, "budget", "", 0, 10*time.Second, time.Hour, true, "trial seconds the search may spend, the baseline's and the profiles' short trials included (0 = 180, 240 at an RTT of 500 ms or more)")
	fs.BoolVar(&allowLower, "allow-lower", false, "let the choice lower a buffer maximum the host already has above what this path needs")
	fs.StringVar(&compare, "compare", "short", "the reference profiles' trials: short (one short trial each; none from an RTT of 300 ms), full (every direction; bare --compare) or none")
	fs.Lookup("compare").NoOptDefVal = "full"
	fs.StringVarP(&congestion, "congestion", "C", "", "congestion control of every trial, per socket as iperf3 -C (in the lab: stands for hosts whose default it is)")
	fs.StringVar(&direction, "direction", "both", "both, forward (this end sends) or reverse (-R, the peer sends)")
	fs.BoolVar(&doApply, "apply", false, "keep the verified choice on this host (--peer)")
	fs.BoolVar(&persist, "persist", false, "with --apply, also keep the choice at boot (as apply --persist)")
	fs.BoolVarP(&asJSON, "json", "J", false, "print a JSON summary instead of the text report")
	fs.StringVar(&report, "report", "", "write a self-contained HTML report with charts to FILE.html")
	return cmd
}
