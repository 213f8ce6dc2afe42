package doctor

import "fmt"

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
	pmtu, err := h.Probe.PathMTU(h.Peer)
	if err != nil {
		return append(out, na("path-mtu", fmt.Sprintf("path MTU to %s: %v", h.Peer, err)))
	}
	p := Result{Check: "path-mtu", Verdict: OK, Evidence: fmt.Sprintf("path MTU to %s: %d (interface %d)", h.Peer, pmtu, mtu)}
	if int64(pmtu) < min(mtu, 65535) { // IP packets stop at 65535 (loopback's 65536)
		p.Verdict, p.Why, p.Fix = Warn, "a hop has a smaller MTU: if ICMP is filtered, large segments vanish (a PMTU black hole); probing recovers", "sysctl -w net.ipv4.tcp_mtu_probing=1"
	}
	return append(out, p)
}
