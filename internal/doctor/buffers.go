package doctor

import (
	"fmt"
	"time"

	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

// checkBuffers: tcp_rmem/tcp_wmem maxima against the BDP to the peer
// (RTT by TCP connects, rate = the NIC's speed).
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
	if in.speedMbps <= 0 {
		return []Result{{Check: "buffers", Verdict: OK, Evidence: fmt.Sprintf("%s; RTT %v, but the link speed is unknown: use tcptune advise --rate R --rtt %v", ev, rtt.Round(10*time.Microsecond), rtt.Round(10*time.Microsecond))}}
	}
	rel, _ := h.sysctl("kernel.osrelease")
	return []Result{bufferVerdict(window.Linux(rel), ev, float64(in.speedMbps)*1e6, rtt, rmem[2], wmem[2])}
}

// bufferVerdict compares the maxima with the BDP through the window
// model: only a share of each buffer becomes window.
func bufferVerdict(m window.Model, ev string, rate float64, rtt time.Duration, rmax, wmax int64) Result {
	bdp := window.BDP(rate, rtt)
	capR, capW := m.RecvCap(rmax, rtt), m.SendCap(wmax, rtt)
	r := Result{Check: "buffers", Verdict: OK, Evidence: fmt.Sprintf("%s; BDP %s (%s × %s)", ev, units.FormatSize(float64(bdp)), units.FormatRateShort(rate), units.FormatDuration(rtt))}
	switch {
	case capR < rate || capW < rate:
		r.Verdict = Fail
		r.Evidence += fmt.Sprintf(": one flow is capped near %s (%.2f of tcp_rmem max and %.2f of tcp_wmem max become window)", units.FormatRateShort(min(capR, capW)), m.Recv, m.Send)
	case rmax < 2*bdp || wmax < 2*bdp:
		r.Verdict = Warn
		r.Evidence += fmt.Sprintf(": less than 2 × BDP leaves no margin; one flow is capped near %s", units.FormatRateShort(min(capR, capW)))
	default:
		return r
	}
	r.Fix = fmt.Sprintf("tcptune advise --rate %s --rtt %v (or tcptune tune --peer …)", units.FormatRateShort(rate), rtt.Round(100*time.Microsecond))
	return r
}
