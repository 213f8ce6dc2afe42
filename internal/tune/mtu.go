package tune

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/linkem"
	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/pmtu"
)

// linker is an Env whose interfaces tune may change (the lab: both
// ends' devices toward each other), and that can probe the path's MTU.
type linker interface {
	// Device is the interface tune may change ("" = none: a peer).
	Device() string
	// Route is the interface toward the peer and its MTU.
	Route() (iface string, mtu int, err error)
	PathMTU(ctx context.Context, max int) (pmtu.Result, error)
}

// jumboMTU is the MTU tune tries where the path carries it.
const jumboMTU = 9000

const keyMTUProbing = "net.ipv4.tcp_mtu_probing"

// PathMTU is what tune found about the path's MTU.
type PathMTU struct {
	// Interface is the MTU the interfaces had; Probed what the path
	// carried with both ends raised to Tried (package pmtu).
	Interface int         `json:"interface_mtu"`
	Tried     int         `json:"tried_mtu"`
	Raised    string      `json:"raised"` // which interfaces were raised to Tried
	Probed    pmtu.Result `json:"probed"`
	// MSSBefore and MSSAfter are the senders' MSS in the baseline and
	// in the verification.
	MSSBefore int `json:"mss_before,omitempty"`
	MSSAfter  int `json:"mss_after,omitempty"`
}

// jumbo is the larger MTU the search's grid may raise the interfaces
// toward the peer to (larger 0: none), the interface's key and its MTU
// as found.
type jumbo struct {
	key           string
	found, larger int
}

// probeMTU finds, before the search, whether the path carries a larger
// MTU where tune controls the interfaces toward the peer (both ends' in
// the lab, this host's against a peer): it raises them to jumboMTU for
// a moment (with tcp_mtu_probing=1 as the guard), probes the path with
// DF echo requests, and puts them back. The largest MTU the path
// carried above theirs is a dimension of the search's grid: a larger
// MTU changes what every other setting yields (the MSS, the headers'
// share, a core's cost per byte), so it is planned with them. An MTU
// the path does not carry is never tried.
func (r *runner) probeMTU(ctx context.Context) (jumbo, error) {
	l, ok := r.env.(linker)
	if !ok || (r.env.BothEnds() && l.Device() == "") {
		return jumbo{}, nil
	}
	res := r.res
	iface, mtu, err := l.Route()
	if err != nil {
		if r.env.BothEnds() {
			return jumbo{}, err
		}
		return jumbo{}, nil // a peer's route unknown here: no MTU step
	}
	j := jumbo{key: linkset.Key(iface, "mtu"), found: mtu}
	if mtu <= 0 || mtu >= jumboMTU {
		return j, nil
	}
	ends := "both ends' interfaces"
	if !r.env.BothEnds() {
		ends = "this host's interface " + iface
	}
	pm := &PathMTU{Interface: mtu, Tried: jumboMTU, Raised: ends}
	res.PathMTU = pm
	r.pr.Stage("path MTU: %s at %d for a moment (tcp_mtu_probing=1 as the guard), probing with DF echo requests", ends, jumboMTU)
	undo, err := r.env.Set([]apply.KV{{Key: j.key, Value: strconv.Itoa(jumboMTU)}, {Key: keyMTUProbing, Value: "1"}})
	if err != nil {
		res.Steps = append(res.Steps, fmt.Sprintf("path MTU: could not raise %s to %d (%v): the MTU stays %d", ends, jumboMTU, err, mtu))
		return j, nil
	}
	probed, perr := l.PathMTU(ctx, jumboMTU)
	if err := undo(); err != nil {
		return jumbo{}, fmt.Errorf("putting %s back to MTU %d: %w", ends, mtu, err)
	}
	if perr != nil {
		if ctx.Err() != nil {
			return jumbo{}, ctx.Err()
		}
		res.Steps = append(res.Steps, fmt.Sprintf("path MTU: the probe failed (%v): the MTU stays %d", perr, mtu))
		return j, nil
	}
	pm.Probed = probed
	if probed.Unknown || probed.Largest <= mtu {
		res.Steps = append(res.Steps, fmt.Sprintf("path MTU: %s, probed with %s at %d: the MTU stays %d", probed, ends, jumboMTU, mtu))
		return j, nil
	}
	j.larger = probed.Largest
	res.Steps = append(res.Steps, fmt.Sprintf("path MTU: the path carries %s (%s raised to %d, probed with DF echo requests): MTU %d is a dimension of the search (goodput %s at MTU %d, %s at %d)",
		probed, ends, jumboMTU, j.larger, rate(linkem.Goodput(res.Rate, mtu)), mtu, rate(linkem.Goodput(res.Rate, j.larger)), j.larger))
	return j, nil
}

// mtuSettings are the settings that raise the interfaces to the larger
// MTU, and the guard that goes with it.
func (r *runner) mtuSettings() []Setting {
	why := fmt.Sprintf("the path carries %d: fewer, larger packets cut the per-packet cost and the headers' share (MTU %d as found)", r.jumbo.larger, r.jumbo.found)
	return []Setting{{Key: r.jumbo.key, Value: strconv.Itoa(r.jumbo.larger), Reason: why},
		{Key: keyMTUProbing, Value: "1", Reason: "the guard with a larger MTU: if a hop stops carrying it (and says nothing), TCP probes its way down instead of stalling"}}
}

// mtuOutcome reports what the search made of a larger MTU: where the
// choice raises it, the goodput is judged at it; where a trial with it
// kept the connection's MSS (against a peer: the MSS is the smaller
// end's), the peer's interface is what holds it, and its command is in
// PeerAdvice.
func (r *runner) mtuOutcome(choice *Candidate) {
	res, mtu, target := r.res, r.jumbo.found, r.jumbo.larger
	if target == 0 {
		return
	}
	if slices.ContainsFunc(choice.Settings, func(s Setting) bool { return s.Key == r.jumbo.key }) {
		res.Goodput = linkem.Goodput(res.Rate, target)
		if r.source != plan.SourceEstimated { // an estimate stays one, raised by trials
			res.GoodputSource = fmt.Sprintf("the link's rate × MSS/MTU at MTU %d", target)
		}
		if m := mssOf(choice); m > 0 {
			r.mss = m // the MSS the goodput is now judged at
		}
		res.Steps = append(res.Steps, fmt.Sprintf("path MTU: %d carried, and the choice's full set with it carried more than MTU %d allows or than any setting at it: the choice raises it (goodput now judged at MTU %d: %s)", target, mtu, target, rate(res.Goodput)))
		return
	}
	before, tried := r.mss, false
	for _, c := range res.Candidates { // in the order they ran
		with := c.Origin == OriginSearch && slices.ContainsFunc(c.Settings, func(s Setting) bool { return s.Key == r.jumbo.key })
		tried = tried || with && len(c.Trials) > 0
		if after := mssOf(c); with && !r.env.BothEnds() && after > 0 && after <= before {
			res.Steps = append(res.Steps, fmt.Sprintf("path MTU: the path carries %d from here, but with this host's interface at %d the connection's MSS stayed %d: the peer's interface sends and receives at most %d: the MTU stays %d here; raise the peer's too (see \"On the peer\"), then run tune again", target, target, after, after+52, mtu))
			res.PeerAdvice = append(res.PeerAdvice, fmt.Sprintf("ip link set dev IFACE mtu %d  (the peer's interface toward this host; the path carries %d, and this host can follow: tcptune tune --peer again)", target, target))
			return
		}
	}
	if !tried {
		res.Steps = append(res.Steps, fmt.Sprintf("path MTU: %d carried, but the budget left no trial of it: the MTU stays %d", target, mtu))
		return
	}
	res.Steps = append(res.Steps, fmt.Sprintf("path MTU: %d carried, but no setting with it carried more than the noise or than MTU %d allows: the MTU stays %d", target, mtu, mtu))
}

// blackHole checks, before any trial, a path where tune controls the
// interfaces and they send more than 1500 bytes: a path that drops the
// larger packets without a word (a PMTU black hole) stalls every
// transfer after its handshake, so no trial could measure anything.
// tune then stops and says what to fix; the probe leaves nothing
// changed.
func (r *runner) blackHole(ctx context.Context) error {
	l, ok := r.env.(linker)
	if !ok {
		return nil
	}
	iface, mtu, err := l.Route()
	if err != nil || mtu <= 1500 {
		return nil // unknown, or nothing above Ethernet's 1500 to lose
	}
	r.pr.Stage("path MTU: %s sends up to %d bytes: probing the path before any trial", iface, mtu)
	probed, err := l.PathMTU(ctx, min(mtu, 65535))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.res.Steps = append(r.res.Steps, fmt.Sprintf("path MTU: the probe failed (%v)", err))
		return nil
	}
	r.res.PathMTU = &PathMTU{Interface: mtu, Tried: mtu, Raised: iface + " (as it was)", Probed: probed}
	if probed.Blackhole && probed.Largest < mtu {
		return fmt.Errorf("the path to the peer is a PMTU black hole: it carries %d bytes and drops larger packets without an ICMP \"fragmentation needed\", while %s sends up to %d: every transfer stalls after its handshake, so no trial can measure it. Fix it first, at both ends: sysctl -w %s=1 (TCP probes its way down), or ip link set dev %s mtu %d",
			probed.Largest, iface, mtu, keyMTUProbing, iface, probed.Largest)
	}
	return nil
}

// mssOf is the MSS of c's median trial forward, else reverse (0 when
// unknown).
func mssOf(c *Candidate) int {
	for _, d := range []Direction{Forward, Reverse} {
		if t, ok := medianTrial(c, d); ok && t.MSS > 0 {
			return t.MSS
		}
	}
	return 0
}
