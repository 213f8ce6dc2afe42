package engine

import (
	"encoding/binary"
	"math"
	"time"
)

// UDP datagram header (iperf3): sec, usec of the sender's monotonic
// clock, then a 32-bit or (negotiated) 64-bit sequence number from 1.
const (
	udpHeader32 = 12
	udpHeader64 = 16
)

// UDP handshake magic (iperf3 §7.3).
var (
	UDPConnectMsg   = []byte{0x39, 0x38, 0x37, 0x36}
	UDPConnectReply = []byte{0x36, 0x37, 0x38, 0x39}
	udpLegacyReply  = []byte{0xb1, 0x68, 0xde, 0x3a}
)

// IsUDPReply accepts the current and legacy replies in both byte orders.
func IsUDPReply(b []byte) bool {
	if len(b) != 4 {
		return false
	}
	for _, m := range [][]byte{UDPConnectReply, udpLegacyReply} {
		if string(b) == string(m) || string(b) == string([]byte{m[3], m[2], m[1], m[0]}) {
			return true
		}
	}
	return false
}

// IsUDPConnect accepts the hello in both byte orders.
func IsUDPConnect(b []byte) bool {
	return len(b) == 4 && (string(b) == string(UDPConnectMsg) || string(b) == string([]byte{0x36, 0x37, 0x38, 0x39}))
}

// udpRecv is a UDP receiver's accounting (iperf3 §7.3 "Receiver
// accounting"): loss from sequence gaps, out-of-order, RFC 3550 jitter.
type udpRecv struct {
	maxSeq      int64
	lost        int64
	ooo         int64
	received    int64
	jitter      float64 // seconds
	prevTransit float64
	havePrev    bool
}

func (u *udpRecv) add(seq int64, sent, arrival float64) {
	u.received++
	switch {
	case seq > u.maxSeq+1:
		u.lost += seq - u.maxSeq - 1
		u.maxSeq = seq
	case seq == u.maxSeq+1:
		u.maxSeq = seq
	default:
		u.ooo++
		if u.lost > 0 {
			u.lost--
		}
	}
	transit := arrival - sent
	if u.havePrev {
		d := math.Abs(transit - u.prevTransit)
		u.jitter += (d - u.jitter) / 16
	}
	u.prevTransit, u.havePrev = transit, true
}

// UDPStats is a snapshot of a UDP receiver's counters.
type UDPStats struct {
	Packets  int64 // highest sequence number seen (datagrams expected)
	Lost     int64
	OOO      int64
	JitterMS float64
}

func (s *Stream) udpStats() UDPStats {
	if s.Sender {
		return UDPStats{Packets: s.packets.Load()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return UDPStats{Packets: s.udp.maxSeq, Lost: s.udp.lost, OOO: s.udp.ooo, JitterMS: s.udp.jitter * 1000}
}

// Feed accounts one received datagram (server-side shared socket).
func (s *Stream) Feed(b []byte, epoch time.Time, udp64 bool) {
	s.feed(b, time.Since(epoch).Seconds(), udp64)
}

func (s *Stream) feed(b []byte, arrival float64, udp64 bool) {
	if s.stopped.Load() {
		return
	}
	hdr := udpHeader32
	if udp64 {
		hdr = udpHeader64
	}
	if len(b) < hdr {
		return
	}
	sec := binary.BigEndian.Uint32(b[0:4])
	usec := binary.BigEndian.Uint32(b[4:8])
	var seq int64
	if udp64 {
		seq = int64(binary.BigEndian.Uint64(b[8:16]) & math.MaxInt64)
	} else {
		seq = int64(binary.BigEndian.Uint32(b[8:12]))
	}
	s.bytes.Add(int64(len(b)))
	s.mu.Lock()
	s.udp.add(seq, float64(sec)+float64(usec)/1e6, arrival)
	s.mu.Unlock()
}

func (s *Stream) recvUDP(cfg runConfig) {
	buf := make([]byte, 65536)
	for {
		n, err := s.conn.Read(buf)
		if n > 0 && !cfg.stop.Load() {
			s.feed(buf[:n], time.Since(cfg.epoch).Seconds(), cfg.udp64)
			cfg.counter.add(int64(n), 1)
		}
		if err != nil {
			if cfg.stop.Load() {
				return
			}
			// ICMP port-unreachable surfaces as ECONNREFUSED on a
			// connected UDP socket; keep listening until stopped.
			if isRefused(err) {
				time.Sleep(time.Millisecond)
				continue
			}
			s.setErr(err)
			return
		}
	}
}

func (s *Stream) sendUDP(cfg runConfig) {
	buf := randomBlock(cfg.blockLen)
	hdr := udpHeader32
	if cfg.udp64 {
		hdr = udpHeader64
	}
	if len(buf) < hdr {
		buf = append(buf, make([]byte, hdr-len(buf))...)
	}
	write := s.udpOut
	if write == nil {
		write = s.conn.Write
	}
	p := pacer{rate: cfg.rate, start: time.Now()}
	var seq int64
	for !cfg.stop.Load() {
		p.wait(s.bytes.Load(), func() bool { return cfg.stop.Load() || s.stopped.Load() })
		seq++
		now := time.Since(cfg.epoch)
		binary.BigEndian.PutUint32(buf[0:4], uint32(now/time.Second))
		binary.BigEndian.PutUint32(buf[4:8], uint32((now%time.Second)/time.Microsecond))
		if cfg.udp64 {
			binary.BigEndian.PutUint64(buf[8:16], uint64(seq))
		} else {
			binary.BigEndian.PutUint32(buf[8:12], uint32(seq))
		}
		n, err := write(buf)
		if err != nil {
			if cfg.stop.Load() {
				return
			}
			if isRefused(err) || isNoBufs(err) {
				// iperf3 tolerates these on UDP: the datagram is lost.
				s.packets.Add(1)
				time.Sleep(100 * time.Microsecond)
				continue
			}
			s.setErr(err)
			return
		}
		s.bytes.Add(int64(n))
		s.packets.Add(1)
		s.blocks.Add(1)
		cfg.counter.add(int64(n), 1)
	}
}
