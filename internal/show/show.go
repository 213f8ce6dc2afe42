// Package show is tcptune show's report: the current values of the
// buffer knobs in the catalogue, the largest windows they allow through
// the window model, and what those windows cap one stream at per RTT.
package show

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

// DefaultRTTs are the RTTs the caps are shown for without --rtt.
var DefaultRTTs = []time.Duration{time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}

// Knob is one knob's current value.
type Knob struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Meaning  string `json:"meaning"`
	PerNetns bool   `json:"per_netns"`
}

// Report is what show prints (and its JSON).
type Report struct {
	NetNS   string        `json:"netns"`
	Knobs   []Knob        `json:"knobs"`
	Windows window.Limits `json:"windows"`
	Caps    []window.Caps `json:"caps"`
	Model   window.Model  `json:"-"`
}

// Read reads the catalogue's knobs under fs (those the kernel does not
// have are left out) and computes the windows with model m and the caps
// ReadNetNS reads this host's Linux knobs live, in the network
// namespace netns ("" = the caller's), with the host's window model.
func ReadNetNS(netns string, rtts []time.Duration) (Report, error) {
	cat, err := knobs.Catalogue("linux")
	if err != nil {
		return Report{}, err
	}
	var r Report
	err = nsx.Do(netns, func() error {
		r = Read(sysctl.Host(), cat, window.Host(), rtts)
		return nil
	})
	r.NetNS = netns
	return r, err
}

// at rtts.
func Read(fs sysctl.FS, cat knobs.OS, m window.Model, rtts []time.Duration) Report {
	r := Report{Model: m}
	last := map[string]int64{}
	for _, k := range cat.Knobs {
		if strings.Contains(k.Name, "*") {
			continue // a pattern (link.*.mtu): per interface, not a sysctl
		}
		v, err := fs.Get(k.Name)
		if err != nil {
			continue
		}
		r.Knobs = append(r.Knobs, Knob{Name: k.Name, Value: v, Meaning: k.Meaning, PerNetns: k.PerNetns != nil && *k.PerNetns})
		if n, err := fs.Ints(k.Name); err == nil && len(n) > 0 {
			last[k.Name] = n[len(n)-1]
		}
	}
	r.Windows = m.Limits(last["net.ipv4.tcp_rmem"], last["net.ipv4.tcp_wmem"], last["net.core.rmem_max"], last["net.core.wmem_max"])
	for _, d := range rtts {
		r.Caps = append(r.Caps, r.Windows.At(d))
	}
	return r
}

// WriteText writes the report as a table of knobs, the windows, and a
// table of caps.
func (r Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, k := range r.Knobs {
		scope := "per namespace"
		if !k.PerNetns {
			scope = "host-wide"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s; %s\n", k.Name, k.Value, k.Meaning, scope)
	}
	tw.Flush()
	lim := r.Windows
	fmt.Fprintf(w, "\nLargest window per stream (≈ %.2f of the receive buffer and %.2f of the send buffer carry payload):\n", r.Model.Recv, r.Model.Send)
	fmt.Fprintf(w, "  autotuned:        receive %s (tcp_rmem max), send %s (tcp_wmem max)\n", units.FormatSize(float64(lim.RecvAuto)), units.FormatSize(float64(lim.SendAuto)))
	fmt.Fprintf(w, "  with SO_RCVBUF/SO_SNDBUF (e.g. iperf3 -w): receive %s (2 × rmem_max), send %s (2 × wmem_max)\n", units.FormatSize(float64(lim.RecvExplicit)), units.FormatSize(float64(lim.SendExplicit)))
	fmt.Fprintf(w, "\nWhat that caps one stream at:\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RTT\treceive (auto)\tsend (auto)\treceive (SO_RCVBUF)\tsend (SO_SNDBUF)")
	for _, c := range r.Caps {
		fmt.Fprintf(tw, "%g ms\t%s\t%s\t%s\t%s\n", c.RTTms, units.FormatRateShort(c.RecvAuto), units.FormatRateShort(c.SendAuto), units.FormatRateShort(c.RecvExplicit), units.FormatRateShort(c.SendExplicit))
	}
	return tw.Flush()
}
