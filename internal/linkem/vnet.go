// Package linkem is the link model of tcptune's lab: per direction a
// random per-segment loss, a drop-tail byte queue, a serialiser at the
// link rate and a fixed propagation delay, computed on a virtual clock
// (shared/reference/link-emulation.md §4). It works on TUN packets with a
// virtio_net_hdr, charging a TSO super-packet per segment and splitting it
// when only some of its segments are dropped. It is pure logic: no
// devices, no timers.
package linkem

import "encoding/binary"

// virtio_net_hdr (include/uapi/linux/virtio_net.h), native byte order
// (little-endian on the machines tcptune targets).
const (
	VnetHdrLen = 10

	flagNeedsCsum = 1

	GSONone  = 0
	GSOTCPv4 = 1
	GSOUDP   = 3
	GSOTCPv6 = 4
	GSOUDPL4 = 5
	gsoECN   = 0x80
)

type vnetHdr struct {
	flags      uint8
	gsoType    uint8
	hdrLen     uint16
	gsoSize    uint16
	csumStart  uint16
	csumOffset uint16
}

func parseVnet(b []byte) vnetHdr {
	return vnetHdr{
		flags: b[0], gsoType: b[1],
		hdrLen:     binary.LittleEndian.Uint16(b[2:]),
		gsoSize:    binary.LittleEndian.Uint16(b[4:]),
		csumStart:  binary.LittleEndian.Uint16(b[6:]),
		csumOffset: binary.LittleEndian.Uint16(b[8:]),
	}
}

func (h vnetHdr) put(b []byte) {
	b[0], b[1] = h.flags, h.gsoType
	binary.LittleEndian.PutUint16(b[2:], h.hdrLen)
	binary.LittleEndian.PutUint16(b[4:], h.gsoSize)
	binary.LittleEndian.PutUint16(b[6:], h.csumStart)
	binary.LittleEndian.PutUint16(b[8:], h.csumOffset)
}

// shape describes a packet for the model: how many segments it stands
// for and the wire size of each.
type shape struct {
	hdr      int // IP + transport header bytes repeated per segment
	payload  int // transport payload bytes (all segments)
	gsoSize  int
	segments int
	tcp4     bool // an IPv4 TCP super-packet we know how to split
}

// parse inspects a vnet header + IP packet. Anything it does not
// understand counts as one segment of its own length.
func parse(pkt []byte) shape {
	one := shape{hdr: 0, payload: len(pkt) - VnetHdrLen, segments: 1}
	if len(pkt) < VnetHdrLen+20 {
		if one.payload < 0 {
			one.payload = 0
		}
		return one
	}
	h := parseVnet(pkt)
	ip := pkt[VnetHdrLen:]
	gso := h.gsoType &^ gsoECN
	if gso == GSONone || h.gsoSize == 0 {
		return one
	}
	l4 := int(h.csumStart)
	if l4 <= 0 || l4 >= len(ip) {
		l4 = ipHeaderLen(ip)
		if l4 <= 0 {
			return one
		}
	}
	var hdr int
	switch gso {
	case GSOTCPv4, GSOTCPv6:
		if l4+20 > len(ip) {
			return one
		}
		hdr = l4 + int(ip[l4+12]>>4)*4
	case GSOUDPL4, GSOUDP:
		hdr = l4 + 8
	default:
		return one
	}
	if hdr > len(ip) {
		return one
	}
	payload := len(ip) - hdr
	g := int(h.gsoSize)
	segs := (payload + g - 1) / g
	if segs < 1 {
		segs = 1
	}
	return shape{hdr: hdr, payload: payload, gsoSize: g, segments: segs, tcp4: gso == GSOTCPv4 && ip[0]>>4 == 4}
}

func ipHeaderLen(ip []byte) int {
	switch ip[0] >> 4 {
	case 4:
		return int(ip[0]&0x0f) * 4
	case 6:
		return 40
	}
	return -1
}

// segWire is the wire size of segment j.
func (s shape) segWire(j int) int {
	if s.segments == 1 {
		return s.hdr + s.payload
	}
	p := s.gsoSize
	if j == s.segments-1 {
		p = s.payload - s.gsoSize*(s.segments-1)
	}
	return s.hdr + p
}
