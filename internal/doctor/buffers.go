package doctor

import (
	"fmt"
	"time"

	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

// checkBuffers: tcp_rmem/tcp_wmem maxima against the BDP to the peer
// (RTT by TCP connects; the rate from --rate, else the NIC's speed).
func checkBuffers(h Host, in inputs) []Result {
	rmem, err1 := h.sysctlInts("net.ipv4.tcp_rmem")
	wmem, err2 := h.sysctlInts("net.ipv4.tcp_wmem")
	if err1 != nil || err2 != nil || len(rmem) != 3 || len(wmem) != 3 {
		return []Result{na("buffers", "tcp_rmem/tcp_wmem unreadable")}
	}
	ev := fmt.Sprintf("tcp_rmem max %s, tcp_wmem max %s", units.FormatSize(float64(rmem[2])), units.FormatSize(float64(wmem[2])))
	if h.Peer == "" || h.Probe == nil {
		return []Result{{Check: "buffers", Verdict: OK, Evidence: ev + "; give --peer to compare them with the BDP"}}
	}
	rtt, err := h.Probe.RTT(h.Peer, h.Port)
	if err != nil {
		return []Result{na("buffers", fmt.Sprintf("%s; RTT to %s unmeasurable: %v", ev, h.Peer, err))}
	}
	if in.rate <= 0 {
		return []Result{{Check: "buffers", Verdict: NA, Evidence: fmt.Sprintf("%s; RTT %v, but the path's rate is unknown (%s reports no real link speed)", ev, rtt.Round(10*time.Microsecond), h.Iface),
			Why: "give doctor --rate (the path's rate, e.g. --rate 1gbit) to compare the buffers with the BDP"}}
	}
	rel, _ := h.sysctl("kernel.osrelease")
	r := bufferVerdict(window.Linux(rel), ev, in.rate, rtt, rmem[2], wmem[2])
	r.Evidence += " (rate from " + in.rateFrom + ")"
	if r.Fix != "" {
		r.Why += fmt.Sprintf("; or tcptune tune --peer %s measures it", h.Peer)
	}
	return []Result{r}
}

// bufferVerdict compares the maxima with the BDP through the window
// model: only a share of each buffer becomes window.
func bufferVerdict(m window.Model, ev string, rate float64, rtt time.Duration, rmax, wmax int64) Result {
	bdp := window.BDP(rate, rtt)
	capR, capW := m.RecvCap(rmax, rtt), m.SendCap(wmax, rtt)
	needR, needW := plan.Needs(bdp, rate, rtt, m.Recv, m.Send, plan.DefaultPolicy(3, 5*time.Second, 0, rtt))
	r := Result{Check: "buffers", Verdict: OK, Evidence: fmt.Sprintf("%s; BDP %s (%s × %s)", ev, units.FormatSize(float64(bdp)), units.FormatRateShort(rate), units.FormatDuration(rtt))}
	switch {
	case capR < rate || capW < rate:
		r.Verdict = Fail
		r.Evidence += fmt.Sprintf(": one flow is capped near %s (%.2f of tcp_rmem max and %.2f of tcp_wmem max become window)", units.FormatRateShort(min(capR, capW)), m.Recv, m.Send)
	case rmax < needR || wmax < needW:
		r.Verdict = Warn
		r.Evidence += fmt.Sprintf(": below the window model's need with headroom (tcp_rmem max %s, tcp_wmem max %s), no margin for the RTT under load; one flow is capped near %s", units.FormatSize(float64(needR)), units.FormatSize(float64(needW)), units.FormatRateShort(min(capR, capW)))
	default:
		return r
	}
	r.Why = "buffers the window model needs for this path (what advise prints, tune's first point), with a reason per value"
	r.Fix = fmt.Sprintf("tcptune advise --rate %s --rtt %v", units.FormatRateFlag(rate), rtt.Round(100*time.Microsecond))
	return r
}
