package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/probe"
	"github.com/tcptune/tcptune/internal/stats"
)

func newPingCmd() *cobra.Command {
	var port, count int
	var interval time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ping HOST [-p PORT] [-c COUNT]",
		Short: "Measure RTT with TCP connects (no ICMP needed; a refused port answers too)",
		Args:  exactArgs(1, "HOST"),
		RunE: func(cmd *cobra.Command, args []string) error {
			rtts, err := probe.ConnectRTT(cmd.Context(), args[0], port, count, interval, 5*time.Second)
			if err != nil {
				return fmt.Errorf("ping %s: %v", args[0], client.UnwrapOp(err))
			}
			var ms []float64
			for _, r := range rtts {
				ms = append(ms, float64(r)/1e6)
			}
			s := stats.Summarize(ms, 0.95)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), map[string]any{"host": args[0], "port": port, "rtt_ms": ms, "summary_ms": s})
			}
			for i, v := range ms {
				fmt.Fprintf(cmd.OutOrStdout(), "connect to %s port %d: seq=%d time=%.3f ms\n", args[0], port, i+1, v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "rtt min/median/max = %.3f/%.3f/%.3f ms (%d samples)\n", s.Min, s.Median, s.Max, s.N)
			return nil
		},
	}
	flagx.IntVarP(cmd.Flags(), &port, "port", "p", 9, 1, 65535, "a port", "TCP port to connect to (a closed port answers with RST)")
	flagx.IntVarP(cmd.Flags(), &count, "count", "c", 10, 1, 100000, "probes", "number of probes")
	flagx.SecondsVarP(cmd.Flags(), &interval, "interval", "i", 200*time.Millisecond, time.Millisecond, time.Minute, false, "time between probes")
	cmd.Flags().BoolVarP(&asJSON, "json", "J", false, "print the samples and their summary as JSON")
	return cmd
}
