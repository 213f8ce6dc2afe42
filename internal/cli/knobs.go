package cli

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/advise"
	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/flagx"
	"github.com/tcptune/tcptune/internal/show"
	"github.com/tcptune/tcptune/internal/watch"
)

func newAdviseCmd() *cobra.Command {
	var role, osName, format, flows string
	var streams, conns int
	in := advise.Input{}
	cmd := &cobra.Command{
		Use:   "advise (--rate RATE --rtt RTT | --flows FILE [--rate RATE]) [--streams N] [--connections N] [--memory SIZE] [--role host|storage|firewall|router] [--os OS] [--format FORMAT]",
		Short: "Recommend socket-buffer settings from rate × RTT, with a reason per value and a memory budget",
		Example: `  tcptune advise --rate 10gbit --rtt 80ms
  tcptune advise --rate 1gbit --rtt 50ms --format sysctl > p.conf && sudo tcptune apply p.conf
  tcptune advise --rate 10G --rtt 30ms --os solaris11 --format script
  tcptune advise --rate 1gbit --rtt 20ms --os windows --format script
  tcptune advise --flows flows.json --format sysctl > p.conf`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Streams, in.Connections, in.Role, in.OS = streams, conns, role, osName
			return watch.WriteAdvice(cmd.OutOrStdout(), advise.WithHost(in, runtime.GOOS, "/"), flows, format)
		},
	}
	f := cmd.Flags()
	flagx.PathRateVarP(f, &in.Rate, &in.RateAsWritten, "rate", "", "path or NIC rate with its unit: bits (1gbit, 10G, 500Mbit/s) or bytes (125MB/s) (required)")
	flagx.SecondsVarP(f, &in.RTT, "rtt", "", 0, time.Millisecond, 10*time.Second, false, "round-trip time, e.g. 50ms (required)")
	flagx.IntVarP(f, &streams, "streams", "", 1, 1, 1024, "streams", "parallel streams per transfer")
	flagx.IntVarP(f, &conns, "connections", "", 100, 1, 10000000, "connections", "concurrent connections on the host (for the memory budget)")
	flagx.SizeVarP(f, &in.Memory, "memory", "", 0, "host RAM, e.g. 64G (default: this host's, when advising for its own OS)")
	f.StringVar(&role, "role", "host", "host, storage, firewall or router")
	f.StringVar(&osName, "os", "linux", "linux, freebsd, solaris10, solaris11, macos or windows")
	f.StringVar(&flows, "flows", "", "size for what watch --flows --json saw (its output file): the RTT of the groups this host's buffers held")
	f.StringVar(&format, "format", "text", "text; linux: sysctl, script, tuned, ansible; freebsd/macos: sysctl; solaris/windows: script; json")
	return cmd
}

func newShowCmd() *cobra.Command {
	var netns string
	var rtt time.Duration
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show [--netns NS] [--rtt RTT] [--json]",
		Short: "Show the buffer knobs' current values, the largest windows they allow, and what that caps a stream at",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runtime.GOOS != "linux" {
				return fmt.Errorf("tcptune show reads Linux sysctls; it is not supported on %s (use tcptune advise --os)", runtime.GOOS)
			}
			rtts := show.DefaultRTTs
			if rtt > 0 {
				rtts = []time.Duration{rtt}
			}
			r, err := show.ReadNetNS(netns, rtts)
			if err != nil {
				return err
			}
			return output(cmd.OutOrStdout(), asJSON, r, r.WriteText)
		},
	}
	cmd.Flags().StringVar(&netns, "netns", "", "read the values inside this network namespace")
	flagx.SecondsVarP(cmd.Flags(), &rtt, "rtt", "", 0, time.Millisecond, 10*time.Second, false, "RTT to compute the cap for, e.g. 50ms (default: 1, 10, 50, 100 and 200 ms)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "output JSON")
	return cmd
}

// applyOptions builds apply options (with the environment's state
// directories).
func applyOptions(netns string, persist, dry bool) (apply.Options, error) {
	return apply.Options{NetNS: netns, Persist: persist, DryRun: dry}.FromEnv(os.Getenv)
}

func newApplyCmd() *cobra.Command {
	var sets []string
	var netns string
	var persist, dry, force, asJSON bool
	cmd := &cobra.Command{
		Use:   "apply FILE | --set KEY=VALUE... [--netns NS] [--persist] [--dry-run] [--force] [--json]",
		Short: "Apply sysctl settings safely: validate all, back up, write, restore on failure (Linux)",
		Example: `  tcptune advise --rate 1gbit --rtt 50ms --format sysctl > p.conf && sudo tcptune apply p.conf
  sudo tcptune tune --peer ref --json > canary.json; sudo tcptune apply canary.json   # a tune result's verified choice
  sudo tcptune apply --set net.ipv4.tcp_rmem='4096 131072 16777216' --netns tcptune-wan-a
  sudo tcptune apply p.conf --persist     # also /etc/sysctl.d/90-tcptune.conf
  sudo tcptune apply --set link.eth0.mtu=9000 --persist   # also the interface's ifupdown, networkd or NetworkManager file`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runtime.GOOS != "linux" {
				return fmt.Errorf("tcptune apply is not supported on %s: use tcptune advise --os %s --format script", runtime.GOOS, runtime.GOOS)
			}
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			kvs, err := apply.ReadRequest(file, sets)
			if err != nil {
				return err
			}
			o, err := applyOptions(netns, persist, dry)
			if err != nil {
				return err
			}
			o.Force = force
			out, wrote, err := apply.Run(kvs, o)
			w := cmd.OutOrStdout()
			switch {
			case err != nil && !wrote:
				return err // refused before anything was written
			case err != nil:
				out.WriteChanges(w)
				return err
			case asJSON:
				return writeJSON(w, out)
			}
			out.WriteApplied(w)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "KEY=VALUE to apply (repeatable)")
	cmd.Flags().StringVar(&netns, "netns", "", "apply inside this network namespace")
	cmd.Flags().BoolVar(&persist, "persist", false, "also keep the values at boot: sysctls in /etc/sysctl.d/90-tcptune.conf, link settings in the interface's network configuration (atomically, with a backup)")
	cmd.Flags().BoolVar(&dry, "dry-run", false, "validate and show the diff only")
	cmd.Flags().BoolVar(&force, "force", false, "also write keys outside tcptune's catalogue of network buffer knobs (kernel.*, vm.*, …)")
	cmd.Flags().BoolVarP(&asJSON, "json", "J", false, "print what changed as JSON (changed, changes, backup, persist_file)")
	return cmd
}

func newRollbackCmd() *cobra.Command {
	var netns string
	var list, asJSON, force, again, ignoreDrift bool
	cmd := &cobra.Command{
		Use:   "rollback [ID] [--netns NS] [--force] [--again] [--ignore-drift] [--json] | --list [--json]",
		Short: "Restore the values a tcptune apply replaced (Linux)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := applyOptions(netns, false, false)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			l, err := apply.ListAll(o)
			if err != nil {
				return err
			}
			for _, s := range l.Skipped {
				fmt.Fprintf(cmd.ErrOrStderr(), "tcptune: warning - skipped %s\n", s)
			}
			if list {
				return output(w, asJSON, apply.Listed(l.Backups, o), func(w io.Writer) error { return apply.WriteList(w, l.Backups) })
			}
			id := ""
			if len(args) == 1 {
				id = args[0]
			}
			o.Force, o.Again, o.IgnoreDrift = force, again, ignoreDrift
			out, err := apply.Undo(id, o)
			switch {
			case err != nil:
				return err
			case asJSON:
				return writeJSON(w, out)
			}
			out.WriteRolledBack(w)
			return nil
		},
	}
	cmd.Flags().StringVar(&netns, "netns", "", "restore in this network namespace (a backup made there, or its latest)")
	cmd.Flags().BoolVar(&list, "list", false, "list backups")
	cmd.Flags().BoolVar(&force, "force", false, "also restore keys outside tcptune's catalogue (as apply --force wrote them)")
	cmd.Flags().BoolVar(&again, "again", false, "restore a backup that was already rolled back")
	cmd.Flags().BoolVar(&ignoreDrift, "ignore-drift", false, "restore values and files even where they changed since apply wrote them")
	cmd.Flags().BoolVarP(&asJSON, "json", "J", false, "print JSON: what was restored, or with --list the backups")
	return cmd
}
