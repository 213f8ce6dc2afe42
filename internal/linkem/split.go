package linkem

import "encoding/binary"

// split builds a packet holding segments [first, last] of an IPv4 TCP
// super-packet: IP total length, ID and header checksum, TCP sequence
// number, flags (CWR on the first piece only, FIN/PSH on the last only)
// and the partial checksum (the folded, non-inverted pseudo-header sum
// over the new TCP length) are fixed; a one-segment piece is no longer
// GSO.
func split(pkt []byte, s shape, first, last int) []byte {
	ip := pkt[VnetHdrLen:]
	h := parseVnet(pkt)
	start := first * s.gsoSize
	end := min((last+1)*s.gsoSize, s.payload)
	out := make([]byte, VnetHdrLen+s.hdr+end-start)
	copy(out[VnetHdrLen:], ip[:s.hdr])
	copy(out[VnetHdrLen+s.hdr:], ip[s.hdr+start:s.hdr+end])
	nip := out[VnetHdrLen:]
	ihl := int(nip[0]&0x0f) * 4
	binary.BigEndian.PutUint16(nip[2:], uint16(len(nip)))
	binary.BigEndian.PutUint16(nip[4:], binary.BigEndian.Uint16(ip[4:])+uint16(first))
	nip[10], nip[11] = 0, 0
	binary.BigEndian.PutUint16(nip[10:], ^fold(sum(nip[:ihl], 0)))
	tcp := nip[ihl:]
	binary.BigEndian.PutUint32(tcp[4:], binary.BigEndian.Uint32(ip[ihl+4:])+uint32(start))
	const fin, psh, cwr = 0x01, 0x08, 0x80
	if first > 0 {
		tcp[13] &^= cwr
	}
	if last < s.segments-1 {
		tcp[13] &^= fin | psh
	}
	tcpLen := len(nip) - ihl
	var ps uint32
	ps = sum(nip[12:20], ps) // source and destination
	ps += 6 + uint32(tcpLen)
	if h.flags&flagNeedsCsum != 0 {
		binary.BigEndian.PutUint16(tcp[16:], fold(ps))
	}
	if last == first {
		h.gsoType, h.gsoSize = GSONone, 0
	}
	h.hdrLen = uint16(s.hdr)
	h.put(out)
	return out
}

// sum adds 16-bit big-endian words (ones' complement, unfolded).
func sum(b []byte, acc uint32) uint32 {
	for i := 0; i+1 < len(b); i += 2 {
		acc += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		acc += uint32(b[len(b)-1]) << 8
	}
	return acc
}

func fold(acc uint32) uint16 {
	for acc > 0xffff {
		acc = acc>>16 + acc&0xffff
	}
	return uint16(acc)
}
