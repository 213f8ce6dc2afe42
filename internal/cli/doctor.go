package cli

import (
	"cmp"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/doctor"
	"github.com/tcptune/tcptune/internal/flagx"
)

func newDoctorCmd() *cobra.Command {
	var peer, iface, root string
	var port int
	var rate float64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor [--peer HOST [-p PORT]] [--rate RATE] [--iface IF] [--json]",
		Short: "Check the host for throughput limits beyond TCP's buffers (Linux)",
		Long: `doctor checks the interface MTU and the path MTU to the peer, link speed and
duplex, the PCIe slot against the NIC, ring sizes, offloads and channels,
irqbalance and the CPU governor, the default qdisc and congestion control,
window scaling, SACK and timestamps, tcp_rmem/tcp_wmem against the BDP to
the peer (RTT by TCP connects to PORT; the rate from --rate, else the
NIC's link speed, which a virtual interface does not have), tcp_mem
pressure, and netdev_max_backlog against softnet drops. Each check prints
ok, warn, fail or n/a (could not be read: a VM without ethtool or sysfs
entries), the evidence, what to do ("→") and the command that does it
("$", to paste as printed). The exit status is 2 when a check fails.`,
		Example: "  tcptune doctor\n  tcptune doctor --peer 10.0.0.2 -p 5201 --rate 1gbit --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runtime.GOOS != "linux" && root == "/" {
				return fmt.Errorf("doctor: not supported on %s (reads Linux's /proc and /sys)", runtime.GOOS)
			}
			h := doctor.Host{Root: root, Iface: iface, Peer: peer, Port: port, Rate: rate}
			if root == "/" {
				h.Probe = doctor.Live{}
				ao, err := applyOptions("", false, false)
				if err != nil {
					return err
				}
				h.Backups = cmp.Or(ao.BackupDir, apply.DefaultBackupDir)
			}
			res, err := doctor.Run(h)
			if err != nil {
				return err
			}
			if err := output(cmd.OutOrStdout(), asJSON, res, func(w io.Writer) error { return doctor.WriteText(w, res) }); err != nil {
				return err
			}
			if doctor.Failed(res) {
				return exitCode(2)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&peer, "peer", "", "check the path to HOST: path MTU, RTT and BDP")
	flagx.IntVarP(fs, &port, "port", "p", 5201, 1, 65535, "a port", "TCP port for the RTT probes (a closed port answers too)")
	flagx.PathRateVarP(fs, &rate, nil, "rate", "", "the path's rate for the BDP, e.g. 1gbit or 125MB/s (default: the NIC's link speed)")
	fs.StringVar(&iface, "iface", "", "interface to check (default: the route to --peer, or the default route)")
	fs.BoolVarP(&asJSON, "json", "J", false, "output JSON")
	fs.StringVar(&root, "root", "/", "read /proc and /sys under this directory (a fixture tree); live probes only with /")
	fs.MarkHidden("root")
	return cmd
}
