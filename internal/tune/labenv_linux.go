package tune

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/linkem"
	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/pmtu"
	"github.com/tcptune/tcptune/internal/units"
)

// NewLabEnv brings up a lab link, starts "tcptune serve" in its end b,
// and returns an Env whose trials run from end a and whose settings are
// applied in both namespaces (each end's tcp_rmem and tcp_wmem are its
// own). close stops the server and removes the link.
func NewLabEnv(ctx context.Context, c lab.Config, self string) (env *Setup, close func(), err error) {
	c.Owner = os.Getpid()
	st, err := lab.Up(c)
	if err != nil {
		return nil, nil, err
	}
	// The trials' backups live with the link: lab down removes them
	// with it, also after a killed run (lab down --orphaned).
	backups := filepath.Join(lab.StateDir(c.Name), "tune-backups")
	// -C stands for hosts whose default it is, at both ends: the
	// server's reverse trials run it from the first packet as the
	// client's forward ones do (Measurer.Trial).
	stop, err := lab.StartServer(ctx, self, c.Name, lab.ServePort, "--cc-from-start")
	if err != nil {
		lab.Down(c.Name)
		return nil, nil, err
	}
	close = func() {
		stop()
		lab.Down(c.Name)
	}
	env = &Setup{
		Measurer:   Measurer{Host: st.AddrB, Port: lab.ServePort, NetNS: st.NSA, PeerNetNS: st.NSB, Self: st.AddrA, Device: st.TunA},
		Name:       fmt.Sprintf("lab %s × %s (loss %g%%)%s, %s ⇄ %s", units.FormatRateShort(c.Rate), units.FormatDuration(c.RTT), c.Loss*100, policed(c), st.AddrA, st.AddrB),
		PeerAddr:   st.AddrB,
		Namespaces: []string{st.NSA, st.NSB},
		Apply:      apply.Options{BackupDir: backups},
		Rate:       c.PathRate(),
		Payload:    linkem.Goodput(c.PathRate(), c.CarriedMTU()),
		BurstBytes: c.PathBurst(),
		Both:       true,
		Lab:        c.Name,
		LabRTT:     c.RTT,
		Devices:    []string{st.TunA, st.TunB},
		Probe: func(ctx context.Context, max int) (pmtu.Result, error) {
			var r pmtu.Result
			err := nsx.Do(st.NSA, func() error {
				dst, err := netip.ParseAddr(st.AddrB)
				if err != nil {
					return err
				}
				e, err := pmtu.OpenEcho(dst)
				if err != nil {
					return err
				}
				defer e.Close()
				r, err = pmtu.Search(ctx, e, pmtu.Options{Base: 1200, Max: max, Tries: 3, Step: 16})
				return err
			})
			return r, err
		},
	}
	env.labStart, _ = lab.ReadStats(c.Name)
	return env, close, nil
}

// policed names a policer below the link's rate, the path's rate then.
func policed(c lab.Config) string {
	if c.PathRate() < c.Rate {
		return fmt.Sprintf(", policed at %s", units.FormatRateShort(c.PathRate()))
	}
	return ""
}
