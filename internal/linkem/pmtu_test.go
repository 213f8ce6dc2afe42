package linkem

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
)

var router = netip.MustParseAddr("10.201.1.254")

func TestPathSendsFragNeededForADFSuperPacket(t *testing.T) {
	pkt := superPacket(6, 8948, 77777, 0x10) // jumbo segments
	pkt[VnetHdrLen+6] = 0x40                 // DF, as Linux TCP sets it
	var st PathStats
	fits, out, reply := Path{MTU: 1500, Router: router}.Admit(pkt, &st)
	if fits || len(out) != 0 || reply == nil || st != (PathStats{TooBig: 1, ICMPSent: 1}) {
		t.Fatalf("out %d, reply %v, stats %+v: want the packet dropped and one reply", len(out), reply != nil, st)
	}
	if h := parseVnet(reply); h.flags != 0 || h.gsoType != GSONone {
		t.Fatalf("reply's vnet header %+v: want nothing to offload", h)
	}
	ip := reply[VnetHdrLen:]
	if fold(sum(ip[:20], 0)) != 0xffff || ip[9] != 1 || int(binary.BigEndian.Uint16(ip[2:])) != len(ip) {
		t.Fatalf("reply's IP header is wrong: % x", ip[:20])
	}
	if !bytes.Equal(ip[12:16], []byte{10, 201, 1, 254}) || !bytes.Equal(ip[16:20], []byte{10, 201, 1, 1}) {
		t.Fatalf("reply from %v to %v: want from the router to the sender", ip[12:16], ip[16:20])
	}
	icmp := ip[20:]
	if icmp[0] != 3 || icmp[1] != 4 || binary.BigEndian.Uint16(icmp[6:]) != 1500 || fold(sum(icmp, 0)) != 0xffff {
		t.Fatalf("ICMP type %d code %d MTU %d checksum ok %v: want 3/4, 1500, valid", icmp[0], icmp[1], binary.BigEndian.Uint16(icmp[6:]), fold(sum(icmp, 0)) == 0xffff)
	}
	// The quote: the original header and 8 bytes (ports and sequence).
	if q := icmp[8:]; len(q) != 28 || !bytes.Equal(q, pkt[VnetHdrLen:VnetHdrLen+28]) || binary.BigEndian.Uint32(q[24:]) != 77777 {
		t.Fatalf("quoted %d bytes, want the original IP header and 8 bytes with sequence 77777", len(q))
	}
	// A black hole drops it without a word.
	st = PathStats{}
	if fits, out, reply := (Path{MTU: 1500, Blackhole: true, Router: router}).Admit(pkt, &st); fits || len(out) != 0 || reply != nil || st.TooBig != 1 || st.ICMPSent != 0 {
		t.Fatalf("black hole: out %d, reply %v, %+v", len(out), reply != nil, st)
	}
}

func TestPathPassesWhatFits(t *testing.T) {
	var st PathStats
	pkt := superPacket(20, 1448, 1, 0x10) // 1448 + 52 = 1500 a segment
	pkt[VnetHdrLen+6] = 0x40
	for _, p := range []Path{{MTU: 1500, Router: router}, {}} {
		if fits, out, reply := p.Admit(pkt, &st); !fits || out != nil || reply != nil {
			t.Fatalf("%+v: a packet that fits was changed", p)
		}
	}
	if fits, out, _ := (Path{MTU: 1499, Router: router}).Admit(pkt, &st); fits || len(out) != 0 {
		t.Fatalf("one byte over the MTU passed")
	}
}

// A datagram without DF is fragmented, its checksum completed first
// (the kernel leaves a partial one to the NIC).
func TestPathFragmentsWithoutDF(t *testing.T) {
	const n = 4000
	b := make([]byte, VnetHdrLen+20+8+n)
	vnetHdr{flags: flagNeedsCsum, csumStart: 20, csumOffset: 6}.put(b)
	ip := b[VnetHdrLen:]
	ip[0], ip[8], ip[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(ip[2:], uint16(len(ip)))
	binary.BigEndian.PutUint16(ip[4:], 42)
	copy(ip[12:], []byte{10, 201, 1, 1, 10, 201, 1, 2})
	binary.BigEndian.PutUint16(ip[10:], ^fold(sum(ip[:20], 0)))
	udp := ip[20:]
	binary.BigEndian.PutUint16(udp[4:], uint16(8+n))
	for i := range n {
		udp[8+i] = byte(i * 13)
	}
	binary.BigEndian.PutUint16(udp[6:], fold(sum(ip[12:20], 0)+17+uint32(8+n))) // the pseudo-header sum
	var st PathStats
	fits, out, reply := Path{MTU: 1500, Router: router}.Admit(b, &st)
	if fits || reply != nil || len(out) != 3 || st.Fragments != 1 || st.TooBig != 0 {
		t.Fatalf("%d fragments, reply %v, %+v: want 3 fragments and no reply", len(out), reply != nil, st)
	}
	var whole []byte
	for i, f := range out {
		fip := f[VnetHdrLen:]
		fl := binary.BigEndian.Uint16(fip[6:])
		if len(fip) > 1500 || fold(sum(fip[:20], 0)) != 0xffff || binary.BigEndian.Uint16(fip[4:]) != 42 ||
			int(fl&0x1fff)*8 != len(whole) || (fl&0x2000 != 0) != (i < len(out)-1) {
			t.Fatalf("fragment %d: %d bytes, flags %#x, offset %d (want %d)", i, len(fip), fl, int(fl&0x1fff)*8, len(whole))
		}
		whole = append(whole, fip[20:]...)
	}
	if len(whole) != 8+n || fold(sum(whole, sum(ip[12:20], 0)+17+uint32(8+n))) != 0xffff {
		t.Fatalf("reassembled %d bytes; UDP checksum valid: %v", len(whole), fold(sum(whole, sum(ip[12:20], 0)+17+uint32(8+n))) == 0xffff)
	}
}
