// Package sockopt sets and reads the socket options a throughput test
// depends on (buffer sizes, MSS, congestion control, TOS, pacing) and
// reads TCP_INFO. Everything works on a syscall.RawConn so that options
// can be applied in a Dialer or ListenConfig Control hook, before
// connect() or listen(), where they fix the window scale.
//
// Linux has the full set; other systems support what they portably can
// and return ErrUnsupported for the rest.
package sockopt

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"syscall"
)

// ErrUnsupported is returned for options this OS lacks.
var ErrUnsupported = fmt.Errorf("not supported on %s", runtime.GOOS)

// Options are applied to a socket before connect or listen.
type Options struct {
	Window     int    // SO_SNDBUF and SO_RCVBUF, bytes; 0 = leave autotuning on
	MSS        int    // TCP_MAXSEG; 0 = default
	Congestion string // TCP_CONGESTION; "" = default
	TOS        int    // IP_TOS / IPV6_TCLASS; 0 = default
	FQRate     int64  // SO_MAX_PACING_RATE in bit/s; 0 = none
	DontFrag   bool
	// UserTimeout is TCP_USER_TIMEOUT in ms (--snd-timeout); 0 = none.
	UserTimeout int
}

// Apply sets o on the socket behind rc. Errors name the option.
func (o Options) Apply(rc syscall.RawConn, ipv6 bool) error {
	var errs []error
	if o.Window > 0 {
		if err := SetBuffers(rc, o.Window); err != nil {
			errs = append(errs, fmt.Errorf("SO_SNDBUF/SO_RCVBUF %d: %w", o.Window, err))
		}
	}
	if o.MSS > 0 {
		if err := SetMSS(rc, o.MSS); err != nil {
			errs = append(errs, fmt.Errorf("TCP_MAXSEG %d: %w", o.MSS, err))
		}
	}
	if o.Congestion != "" {
		if err := SetCongestion(rc, o.Congestion); err != nil {
			errs = append(errs, fmt.Errorf("TCP_CONGESTION %q: %w", o.Congestion, err))
		}
	}
	if o.TOS > 0 {
		if err := SetTOS(rc, o.TOS, ipv6); err != nil {
			errs = append(errs, fmt.Errorf("TOS %d: %w", o.TOS, err))
		}
	}
	if o.FQRate > 0 {
		if err := SetPacingRate(rc, o.FQRate/8); err != nil {
			errs = append(errs, fmt.Errorf("SO_MAX_PACING_RATE: %w", err))
		}
	}
	if o.DontFrag {
		if err := SetDontFragment(rc, ipv6); err != nil {
			errs = append(errs, fmt.Errorf("don't-fragment: %w", err))
		}
	}
	if o.UserTimeout > 0 {
		if err := SetUserTimeout(rc, o.UserTimeout); err != nil {
			errs = append(errs, fmt.Errorf("TCP_USER_TIMEOUT %d ms: %w", o.UserTimeout, err))
		}
	}
	return errors.Join(errs...)
}

// TCPInfoOf reads TCP_INFO of a connection (ErrUnsupported where the
// system has none, or c is not a socket).
func TCPInfoOf(c net.Conn) (*TCPInfo, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, ErrUnsupported
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return ReadTCPInfo(rc)
}

// control runs f on the descriptor and joins both errors.
// IsIPv6 reports whether a "host:port" address is an IPv6 one (not an
// IPv4 or IPv4-mapped one), for Options.Apply's ipv6.
func IsIPv6(address string) bool {
	h, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.To4() == nil
}

func control(rc syscall.RawConn, f func(fd uintptr) error) error {
	var inner error
	if err := rc.Control(func(fd uintptr) { inner = f(fd) }); err != nil {
		return err
	}
	return inner
}

// TCPInfo is the subset of Linux's struct tcp_info that tcptune uses.
// Times are microseconds, sizes bytes, counters cumulative.
type TCPInfo struct {
	State        uint8  `json:"state"`
	SndMSS       uint32 `json:"snd_mss"`
	RcvMSS       uint32 `json:"rcv_mss"`
	PMTU         uint32 `json:"pmtu"`
	RTT          uint32 `json:"rtt"`
	RTTVar       uint32 `json:"rttvar"`
	MinRTT       uint32 `json:"min_rtt"`
	SndCwnd      uint32 `json:"snd_cwnd"` // segments
	SndSsthresh  uint32 `json:"snd_ssthresh"`
	TotalRetrans uint32 `json:"total_retrans"`
	SndWnd       uint32 `json:"snd_wnd"` // peer's advertised window
	RcvWnd       uint32 `json:"rcv_wnd"` // our advertised window
	RcvSpace     uint32 `json:"rcv_space"`
	RcvRTT       uint32 `json:"rcv_rtt"` // the receiver's RTT estimate, µs (tcpi_rcv_rtt)
	NotsentBytes uint32 `json:"notsent_bytes"`
	ReordSeen    uint32 `json:"reord_seen"`
	// DsackDups counts the retransmits the receiver reported as
	// duplicates (DSACK): the original had arrived, reordered or late.
	DsackDups     uint32 `json:"dsack_dups"`
	BusyTime      uint64 `json:"busy_time"`
	RwndLimited   uint64 `json:"rwnd_limited"`
	SndbufLimited uint64 `json:"sndbuf_limited"`
	DeliveryRate  uint64 `json:"delivery_rate"` // bytes/s
	BytesSent     uint64 `json:"bytes_sent"`
	BytesRetrans  uint64 `json:"bytes_retrans"`
	BytesAcked    uint64 `json:"bytes_acked"`
	BytesReceived uint64 `json:"bytes_received"`
	Unacked       uint32 `json:"unacked"`   // segments in flight
	Delivered     uint32 `json:"delivered"` // segments delivered, SACKed ones included (4.18+)
	DataSegsOut   uint32 `json:"data_segs_out"`
}

// CwndBytes is the congestion window in bytes.
func (t *TCPInfo) CwndBytes() uint64 { return uint64(t.SndCwnd) * uint64(t.SndMSS) }

// InflightBytes is what the sender has in flight: unacknowledged
// segments × MSS, measured, not inferred from rate × RTT.
func (t *TCPInfo) InflightBytes() uint64 { return uint64(t.Unacked) * uint64(t.SndMSS) }

// DeliveredSince is the payload the sender got to the receiver since
// base: tcpi_delivered (segments, SACKed ones when they are SACKed, so
// it does not jump when a hole is filled) × the average payload of a
// data segment (tcpi_bytes_sent ÷ tcpi_data_segs_out; not the MSS:
// an application that writes in pieces, or a small
// tcp_notsent_lowat, sends segments shorter than the MSS, and counting
// them as full ones overstates the rate). On kernels without
// tcpi_delivered it falls back to tcpi_bytes_acked.
func (t *TCPInfo) DeliveredSince(base *TCPInfo) int64 {
	if base == nil {
		base = &TCPInfo{}
	}
	if t.Delivered == 0 && base.Delivered == 0 {
		return int64(t.BytesAcked - base.BytesAcked)
	}
	seg := float64(t.SndMSS)
	if t.DataSegsOut > 0 && t.BytesSent > 0 {
		seg = min(seg, float64(t.BytesSent)/float64(t.DataSegsOut))
	}
	return int64(float64(t.Delivered-base.Delivered) * seg)
}

// ReceivedSince is the payload a receiver took in order since base
// (tcpi_bytes_received): it jumps when a retransmission fills a hole.
// (tcpi_data_segs_in cannot say what arrived instead: it counts a
// coalesced GRO packet as one segment, 40 KB each on the lab's links.)
func (t *TCPInfo) ReceivedSince(base *TCPInfo) int64 {
	if base == nil {
		base = &TCPInfo{}
	}
	return int64(t.BytesReceived - base.BytesReceived)
}
