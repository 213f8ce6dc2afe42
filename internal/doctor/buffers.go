package doctor

import (
	"fmt"
	"time"

	"github.com/tcptune/tcptune/internal/units"
)

// checkBuffers: tcp_rmem/tcp_wmem maxima against the BDP to the peer
// (RTT by TCP connects, rate = the NIC's speed).
func checkBuffers(h Host, f *facts) []Result {
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
	f.rtt = rtt
	if f.speedMbps <= 0 {
		return []Result{{Check: "buffers", Verdict: OK, Evidence: fmt.Sprintf("%s; RTT %v, but the link speed is unknown: use tcptune advise --rate R --rtt %v", ev, rtt.Round(10*time.Microsecond), rtt.Round(10*time.Microsecond))}}
	}
	return []Result{bufferVerdict(ev, float64(f.speedMbps)*1e6, rtt, rmem[2], wmem[2])}
}

// bufferVerdict compares the maxima with the BDP: the advertised window
// is about half the receive buffer, and the send buffer holds everything
// unacknowledged.
func bufferVerdict(ev string, rate float64, rtt time.Duration, rmax, wmax int64) Result {
	bdp := int64(rate * rtt.Seconds() / 8)
	capR := float64(rmax) / 2 * 8 / rtt.Seconds()
	capW := float64(wmax) * 8 / rtt.Seconds()
	r := Result{Check: "buffers", Verdict: OK, Evidence: fmt.Sprintf("%s; BDP %s (%s × %v)", ev, units.FormatSize(float64(bdp)), units.FormatRateShort(rate), rtt.Round(10*time.Microsecond))}
	switch {
	case rmax < bdp || wmax < bdp:
		r.Verdict = Fail
		r.Evidence += fmt.Sprintf(": one flow is capped near %s", units.FormatRateShort(min(capR, capW)))
	case rmax < 2*bdp:
		r.Verdict = Warn
		r.Evidence += fmt.Sprintf(": the receive window (≈ half of tcp_rmem max) caps one flow near %s", units.FormatRateShort(capR))
	default:
		return r
	}
	r.Fix = fmt.Sprintf("tcptune advise --rate %s --rtt %v (or tcptune tune --peer …)", units.FormatRateShort(rate), rtt.Round(100*time.Microsecond))
	return r
}
