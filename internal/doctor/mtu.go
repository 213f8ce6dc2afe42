package doctor

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/pmtu"
)

// tunnelHeaders is what each kind of overlay adds to a packet, for an
// IPv6 underlay (the larger case, so that an MTU derived from it fits
// either): VXLAN and Geneve (outer Ethernet, IPv6, UDP, their header),
// WireGuard (IPv6, UDP, its header and tag), GRE and its tap (IPv6, GRE
// with a key; the tap's inner Ethernet), IP-in-IP and SIT (IPv4),
// IPv6-in-IPv6.
var tunnelHeaders = map[string]int{
	"vxlan": 70, "geneve": 70, "wireguard": 80, "gre": 48, "gretap": 62,
	"ip6gre": 48, "ip6gretap": 62, "ipip": 20, "sit": 20, "ip6tnl": 40,
}

// checkMTU: the interface MTU, and with a peer the path MTU to it.
func checkMTU(h Host, in inputs) []Result {
	mtu, err := h.readInt("sys/class/net/" + h.Iface + "/mtu")
	if err != nil {
		return []Result{na("mtu", fmt.Sprintf("%s: cannot read the MTU: %v", h.Iface, err))}
	}
	r := Result{Check: "mtu", Verdict: OK, Evidence: fmt.Sprintf("%s MTU %d", h.Iface, mtu)}
	switch {
	case mtu < 1500 && h.Iface != "lo":
		r = lowMTU(h, r, mtu)
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

// lowMTU judges an interface below 1500. An overlay's MTU leaves room
// for its headers on the link beneath it: it is raised only as far as
// that lower device's MTU allows, and only when the lower device is
// known. Any other interface is not told a size: a network may need
// less than 1500 (PPPoE's 1492, some clouds' 1460), and raising it past
// what a hop carries makes a black hole; no probe from this interface
// can send more than its own MTU to find out.
func lowMTU(h Host, r Result, mtu int64) Result {
	d, err := linkset.Store{Root: h.Root}.Device(h.Iface)
	over, tunnel := tunnelHeaders[d.Kind]
	switch {
	case err == nil && tunnel && d.Lower != "":
		lower, err := h.readInt("sys/class/net/" + d.Lower + "/mtu")
		if err != nil {
			r.Why = fmt.Sprintf("a %s device: its MTU leaves room for its headers on %s, whose MTU cannot be read", d.Kind, d.Lower)
			return r
		}
		fits := lower - int64(over)
		r.Evidence += fmt.Sprintf(" (a %s device on %s, MTU %d)", d.Kind, d.Lower, lower)
		if mtu >= fits {
			r.Why = fmt.Sprintf("a %s device: its headers (up to %d bytes) ride inside %s's MTU, so %d fits; to carry more, raise %s's MTU first, if every hop beneath carries it", d.Kind, over, d.Lower, mtu, d.Lower)
			return r
		}
		r.Verdict = Warn
		r.Why = fmt.Sprintf("%s's MTU %d carries %d bytes of %s packets with their headers (up to %d bytes): each packet could carry %d more bytes of payload", d.Lower, lower, fits, d.Kind, over, fits-mtu)
		r.Fix = fmt.Sprintf("ip link set dev %s mtu %d", h.Iface, fits)
	case err == nil && tunnel:
		r.Why = fmt.Sprintf("a %s device: its MTU leaves room for its headers (up to %d bytes) on the path beneath it; raise it only as far as that path carries (tcptune doctor --peer ENDPOINT probes the path to the tunnel's endpoint)", d.Kind, over)
	default:
		r.Verdict = Warn
		r.Why = "an MTU below 1500 costs throughput per packet; some networks need it (PPPoE's 1492, some clouds' 1460), so raise it only to what every hop carries, as the network's operator or provider documents it"
	}
	return r
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
