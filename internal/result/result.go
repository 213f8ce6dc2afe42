// Package result holds one test's typed results: what it was (Meta, its
// connections) and what it measured, both ends combined (Summary). The
// client and the server build them; report renders them as iperf3 does.
package result

import (
	"net"
	"strconv"
	"time"

	"github.com/tcptune/tcptune/internal/cpuusage"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/wire"
)

// Conn is one data connection as listed in start.connected.
type Conn struct {
	ID         int
	Socket     int
	LocalHost  string
	LocalPort  int
	RemoteHost string
	RemotePort int
}

// Meta is what a report says about a test besides its figures.
type Meta struct {
	Server       bool // the local side is the server
	Host         string
	Port         int
	Cookie       string
	Params       wire.Params
	BlockLen     int
	MSS          int // control connection MSS (tcp_mss_default), or -M
	SndBufActual int
	RcvBufActual int
	Connected    []Conn
	Started      time.Time
	Version      string
	SystemInfo   string
	Unit         byte // -f
	CongestionCC string
	Interval     time.Duration // reporting interval (test_start.interval, 3.17+)
}

// Side is one end's view of a stream or sum (iperf3's "sender" and
// "receiver" blocks).
type Side struct {
	Start, End, Seconds float64
	Bytes               int64
	BitsPerSecond       float64
	HasRetransmits      bool
	Retransmits         int64
	Reorder             int64 // 3.20+; 0 when the peer did not say
	MaxCwnd, MaxSndWnd  uint64
	MaxRTT, MinRTT      uint32
	MeanRTT             uint32
	LocalSent           bool // iperf3's "sender" key: the local side sent these streams
	JitterMS            float64
	Lost, Packets, OOO  int64
	jitterSum           float64
	jitterN             int
}

// StreamSummary pairs the sending and receiving view of one stream.
type StreamSummary struct {
	ID, Socket int
	Reverse    bool
	UDP        bool
	LocalSent  bool
	Sender     Side
	Receiver   Side
}

// Summary is a test's end result, both ends combined.
type Summary struct {
	UDP        bool
	Bidir      bool
	Streams    []StreamSummary
	Sent, Recv Side // forward streams (or all)
	SentRev    Side // --bidir: the reverse streams
	RecvRev    Side
	CPU        cpuusage.Util
	RemoteCPU  cpuusage.Util
	SenderCC   string
	RecvCC     string
}

func rate(bytes int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(bytes) * 8 / secs
}

// Summarize combines local totals with the peer's results.
func Summarize(m Meta, totals []engine.StreamTotal, peer *wire.Results, cpu cpuusage.Util) Summary {
	s := Summary{UDP: m.Params.UDP, Bidir: m.Params.Bidirectional, CPU: cpu}
	peerStreams := map[int]wire.StreamResult{}
	peerRetr := false
	if peer != nil {
		for _, ps := range peer.Streams {
			peerStreams[ps.ID] = ps
		}
		s.RemoteCPU = cpuusage.Util{Total: peer.CPUTotal, User: peer.CPUUser, System: peer.CPUSystem}
		peerRetr = peer.SenderHasRetransmits == 1
	}
	localCC := m.CongestionCC
	peerCC := ""
	if peer != nil {
		peerCC = peer.CongestionUsed
	}
	for _, t := range totals {
		ps, havePeer := peerStreams[t.ID]
		peerDur := t.Seconds
		if havePeer && ps.EndTime > ps.StartTime {
			peerDur = ps.EndTime - ps.StartTime
		}
		ss := StreamSummary{ID: t.ID, Socket: t.Socket, Reverse: t.Reverse, UDP: t.UDP, LocalSent: t.Sender}
		local := Side{Start: 0, End: t.Seconds, Seconds: t.Seconds, Bytes: t.Bytes, BitsPerSecond: rate(t.Bytes, t.Seconds), LocalSent: t.Sender}
		remote := Side{Start: 0, End: peerDur, Seconds: t.Seconds, LocalSent: t.Sender}
		if havePeer {
			remote.Bytes = ps.Bytes
			remote.BitsPerSecond = rate(ps.Bytes, peerDur)
		}
		if t.Sender {
			local.HasRetransmits = t.HasTCPInfo
			local.Retransmits = t.Retransmits
			local.Reorder = t.Reorder
			local.MaxCwnd, local.MaxSndWnd = t.MaxCwnd, t.MaxSndWnd
			local.MaxRTT, local.MinRTT, local.MeanRTT = t.MaxRTT, t.MinRTT, t.MeanRTT
			local.Packets = t.Packets
			if t.UDP && havePeer {
				remote.JitterMS = ps.Jitter * 1000
				remote.Lost = ps.Errors
				remote.Packets = ps.Packets
			}
			ss.Sender, ss.Receiver = local, remote
			if s.SenderCC == "" {
				s.SenderCC, s.RecvCC = localCC, peerCC
			}
		} else {
			remote.HasRetransmits = peerRetr && ps.Retransmits >= 0
			remote.Retransmits = ps.Retransmits
			remote.End, remote.Seconds = peerDur, t.Seconds
			if t.UDP {
				remote.Packets = ps.Packets
				local.JitterMS, local.Lost, local.Packets, local.OOO = t.JitterMS, t.Lost, t.Packets, t.OOO
			}
			ss.Sender, ss.Receiver = remote, local
			if s.RecvCC == "" && s.SenderCC == "" {
				s.SenderCC, s.RecvCC = peerCC, localCC
			}
		}
		s.Streams = append(s.Streams, ss)
		sent, recv := &s.Sent, &s.Recv
		if t.Reverse {
			sent, recv = &s.SentRev, &s.RecvRev
		}
		addSide(sent, ss.Sender)
		addSide(recv, ss.Receiver)
	}
	for _, sd := range []*Side{&s.Sent, &s.Recv, &s.SentRev, &s.RecvRev} {
		sd.BitsPerSecond = rate(sd.Bytes, sd.End)
	}
	return s
}

func addSide(sum *Side, x Side) {
	sum.Bytes += x.Bytes
	sum.End = max(sum.End, x.End)
	sum.Seconds = max(sum.Seconds, x.Seconds)
	sum.LocalSent = x.LocalSent
	if x.HasRetransmits {
		sum.HasRetransmits = true
		sum.Retransmits += x.Retransmits
	}
	sum.Packets += x.Packets
	sum.Lost += x.Lost
	sum.OOO += x.OOO
	sum.jitterSum += x.JitterMS // iperf3 reports the mean over streams
	sum.jitterN++
	sum.JitterMS = sum.jitterSum / float64(sum.jitterN)
}

// SplitAddr is an address's host and port as iperf3 reports them (the
// whole text and port 0 if it has no port; "" and 0 for nil).
func SplitAddr(a net.Addr) (string, int) {
	if a == nil {
		return "", 0
	}
	h, p, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String(), 0
	}
	n, _ := strconv.Atoi(p)
	return h, n
}

// ConnOf describes one connected stream.
func ConnOf(id, socket int, local, remote net.Addr) Conn {
	lh, lp := SplitAddr(local)
	rh, rp := SplitAddr(remote)
	return Conn{ID: id, Socket: socket, LocalHost: lh, LocalPort: lp, RemoteHost: rh, RemotePort: rp}
}
