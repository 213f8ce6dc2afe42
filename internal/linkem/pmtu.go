package linkem

import (
	"encoding/binary"
	"net/netip"
)

// Path is the part of a link that a router's MTU makes: the largest IP
// packet it carries (MTU; 0 = whatever the devices send), and what
// happens to a larger one. An IPv4 packet with DF set (every TCP
// segment of a Linux host) is dropped with an ICMP "fragmentation
// needed" carrying MTU, sent back from Router as a router on the path
// does (RFC 792, RFC 1191); with Blackhole it is dropped silently, as a
// misconfigured switch or a firewall that eats ICMP does (RFC 2923). A
// larger packet without DF is fragmented. A super-packet is judged by
// the segments it stands for. Only IPv4 (the lab's) is handled; other
// packets pass.
type Path struct {
	MTU       int
	Blackhole bool
	Router    netip.Addr
}

// PathStats counts what the path's MTU did in one direction.
type PathStats struct {
	TooBig    uint64 `json:"too_big"`    // packets dropped for the MTU
	ICMPSent  uint64 `json:"icmp_sent"`  // fragmentation-needed replies
	Fragments uint64 `json:"fragmented"` // packets fragmented
}

// Admit applies the path's MTU to one packet (vnet header + IP): fits
// when it goes on as it is; otherwise its fragments to send on instead
// (none when it is dropped), and a reply to write back toward the
// sender (nil if none).
func (p Path) Admit(pkt []byte, st *PathStats) (fits bool, frags [][]byte, reply []byte) {
	if p.MTU == 0 || len(pkt) < VnetHdrLen+20 || len(pkt)-VnetHdrLen <= p.MTU {
		return true, nil, nil // (a packet within the MTU has segments within it)
	}
	ip := pkt[VnetHdrLen:]
	ihl := int(ip[0]&0x0f) * 4
	if ip[0]>>4 != 4 || ihl < 20 || ihl > len(ip) {
		return true, nil, nil
	}
	s := parse(pkt)
	wire := len(ip)
	if s.segments > 1 || s.gsoSize > 0 {
		wire = s.hdr + s.gsoSize
	}
	if wire <= p.MTU {
		return true, nil, nil
	}
	const df = 0x40
	if ip[6]&df == 0 && s.gsoSize == 0 {
		frags := fragment(pkt, p.MTU)
		if frags != nil {
			st.Fragments++
			return false, frags, nil
		}
	}
	st.TooBig++
	if p.Blackhole || !p.Router.Is4() {
		return false, nil, nil
	}
	st.ICMPSent++
	return false, nil, fragNeeded(ip, ihl, p.MTU, p.Router)
}

// fragNeeded builds the ICMP destination unreachable, fragmentation
// needed (type 3 code 4) reply to the IPv4 packet ip, from router, with
// the next-hop MTU: the original header and the first 8 bytes of its
// payload (the transport ports and, for TCP, the sequence number that
// the receiving stack checks). The vnet header says nothing to offload.
func fragNeeded(ip []byte, ihl, mtu int, router netip.Addr) []byte {
	quote := min(len(ip), ihl+8)
	const hdr, icmpHdr = 20, 8
	b := make([]byte, VnetHdrLen+hdr+icmpHdr+quote)
	r := b[VnetHdrLen:]
	r[0], r[1] = 0x45, 0xc0 // internetwork control, as routers send
	binary.BigEndian.PutUint16(r[2:], uint16(len(r)))
	r[8], r[9] = 64, 1 // TTL, ICMP
	src := router.As4()
	copy(r[12:16], src[:])
	copy(r[16:20], ip[12:16]) // back to the sender
	binary.BigEndian.PutUint16(r[10:], ^fold(sum(r[:hdr], 0)))
	m := r[hdr:]
	m[0], m[1] = 3, 4
	binary.BigEndian.PutUint16(m[6:], uint16(mtu))
	copy(m[icmpHdr:], ip[:quote])
	binary.BigEndian.PutUint16(m[2:], ^fold(sum(m, 0)))
	return b
}

// fragment splits a non-GSO IPv4 packet into fragments of at most mtu
// bytes (RFC 791): each a copy of the header (options included, for
// simplicity) with its offset, MF and checksum; nil if the header leaves
// no room.
func fragment(pkt []byte, mtu int) [][]byte {
	ip := pkt[VnetHdrLen:]
	ihl := int(ip[0]&0x0f) * 4
	total := min(int(binary.BigEndian.Uint16(ip[2:])), len(ip))
	room := (mtu - ihl) &^ 7
	if room < 8 || total <= ihl {
		return nil
	}
	if h := parseVnet(pkt); h.flags&flagNeedsCsum != 0 {
		// Complete the transport checksum as a NIC would: its field
		// holds the pseudo-header sum, the rest is summed here.
		at := int(h.csumStart) + int(h.csumOffset)
		if int(h.csumStart) >= total || at+2 > total {
			return nil
		}
		c := ^fold(sum(ip[h.csumStart:total], 0))
		if c == 0 && ip[9] == 17 {
			c = 0xffff // UDP sends a zero checksum as all ones
		}
		binary.BigEndian.PutUint16(ip[at:], c)
	}
	const mf = 0x2000
	flags := binary.BigEndian.Uint16(ip[6:])
	base := flags & 0x1fff
	var out [][]byte
	for off := ihl; off < total; off += room {
		end := min(off+room, total)
		f := make([]byte, VnetHdrLen+ihl+end-off)
		// A zero vnet header: the fragment is complete, checksummed as
		// the original was (a partial checksum cannot be split).
		fip := f[VnetHdrLen:]
		copy(fip, ip[:ihl])
		copy(fip[ihl:], ip[off:end])
		binary.BigEndian.PutUint16(fip[2:], uint16(len(fip)))
		fl := flags&^0x1fff | (base + uint16((off-ihl)/8))
		if end < total {
			fl |= mf
		}
		binary.BigEndian.PutUint16(fip[6:], fl)
		fip[10], fip[11] = 0, 0
		binary.BigEndian.PutUint16(fip[10:], ^fold(sum(fip[:ihl], 0)))
		out = append(out, f)
	}
	return out
}
