package doctor

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/pmtu"
)

// checkMTU: the interface MTU, and with a peer the path MTU to it.
func checkMTU(h Host, in inputs) []Result {
	mtu, err := h.readInt("sys/class/net/" + h.Iface + "/mtu")
	if err != nil {
		return []Result{na("mtu", fmt.Sprintf("%s: cannot read the MTU: %v", h.Iface, err))}
	}
	r := Result{Check: "mtu", Verdict: OK, Evidence: fmt.Sprintf("%s MTU %d", h.Iface, mtu)}
	switch {
	case mtu < 1500 && h.Iface != "lo":
		r.Verdict, r.Why, r.Fix = Warn, "an MTU below 1500 costs throughput per packet: check the link, or the tunnel in the path", fmt.Sprintf("ip link set dev %s mtu 1500", h.Iface)
	case mtu < 9000 && in.speedMbps >= 10000:
		r.Evidence += " on a 10G+ link"
		r.Why = "jumbo frames (MTU 9000) cut per-packet CPU cost, if every hop carries them (tcptune tune proves it on the path)"
	}
	out := []Result{r}
	if h.Peer == "" || h.Probe == nil {
		return out
	}
	ifMTU := int(min(mtu, 65535)) // IP packets stop at 65535 (loopback's 65536)
	res, err := h.Probe.PathMTU(h.Peer, ifMTU)
	if err != nil {
		return append(out, na("path-mtu", fmt.Sprintf("path MTU to %s: %v", h.Peer, err)))
	}
	return append(out, pathMTUResult(h, res, ifMTU))
}

// pathMTUResult judges what the probes found.
func pathMTUResult(h Host, res pmtu.Result, ifMTU int) Result {
	p := Result{Check: "path-mtu", Verdict: OK, Evidence: fmt.Sprintf("path MTU to %s: %s (interface %d, %d probes)", h.Peer, res, ifMTU, res.Probes)}
	switch {
	case res.Unknown:
		p.Verdict = NA
	case res.Blackhole:
		p.Verdict = Fail
		p.Why = fmt.Sprintf("TCP sends segments for the interface's MTU (%d) and they vanish with no ICMP to say why: transfers stall after the handshake; probing finds the size that passes", ifMTU)
		p.Fix = "sysctl -w net.ipv4.tcp_mtu_probing=1"
	case res.Largest < ifMTU:
		p.Verdict = Warn
		p.Why = "a hop carries less than the interface: routers say so (ICMP) and TCP learns it, but if ICMP is ever filtered large segments vanish (a PMTU black hole); probing is the guard"
		p.Fix = "sysctl -w net.ipv4.tcp_mtu_probing=1"
	}
	return p
}
