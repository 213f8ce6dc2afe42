package sockopt

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SetCongestion selects the congestion-control algorithm per socket.
func SetCongestion(rc syscall.RawConn, name string) error {
	return control(rc, func(fd uintptr) error {
		return unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, name)
	})
}

// Congestion reads the algorithm in use.
func Congestion(rc syscall.RawConn) (string, error) {
	var s string
	err := control(rc, func(fd uintptr) error {
		var e error
		s, e = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		return e
	})
	return s, err
}

// SetPacingRate sets SO_MAX_PACING_RATE in bytes per second.
func SetPacingRate(rc syscall.RawConn, bytesPerSec int64) error {
	return control(rc, func(fd uintptr) error {
		return unix.SetsockoptUint64(int(fd), unix.SOL_SOCKET, unix.SO_MAX_PACING_RATE, uint64(bytesPerSec))
	})
}

// SetDontFragment sets the DF bit (path-MTU discovery "do").
func SetDontFragment(rc syscall.RawConn, ipv6 bool) error {
	return control(rc, func(fd uintptr) error {
		if ipv6 {
			return unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, unix.IPV6_PMTUDISC_DO)
		}
		return unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO)
	})
}

// ReadTCPInfo reads TCP_INFO. Fields the running kernel lacks read as 0.
func ReadTCPInfo(rc syscall.RawConn) (*TCPInfo, error) {
	var out *TCPInfo
	err := control(rc, func(fd uintptr) error {
		ti, e := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if e != nil {
			return e
		}
		out = FromKernel(ti)
		return nil
	})
	return out, err
}

// FromKernel converts the kernel's struct tcp_info (from getsockopt or
// sock_diag's INET_DIAG_INFO).
func FromKernel(ti *unix.TCPInfo) *TCPInfo {
	return &TCPInfo{
		State: ti.State, SndMSS: ti.Snd_mss, RcvMSS: ti.Rcv_mss, PMTU: ti.Pmtu,
		RTT: ti.Rtt, RTTVar: ti.Rttvar, MinRTT: ti.Min_rtt, SndCwnd: ti.Snd_cwnd,
		SndSsthresh: ti.Snd_ssthresh, TotalRetrans: ti.Total_retrans,
		SndWnd: ti.Snd_wnd, RcvWnd: ti.Rcv_wnd, RcvSpace: ti.Rcv_space, RcvRTT: ti.Rcv_rtt,
		NotsentBytes: ti.Notsent_bytes, ReordSeen: ti.Reord_seen, DsackDups: ti.Dsack_dups,
		BusyTime: ti.Busy_time, RwndLimited: ti.Rwnd_limited, SndbufLimited: ti.Sndbuf_limited,
		DeliveryRate: ti.Delivery_rate, BytesSent: ti.Bytes_sent, BytesRetrans: ti.Bytes_retrans,
		BytesAcked: ti.Bytes_acked, BytesReceived: ti.Bytes_received,
		Unacked: ti.Unacked, Delivered: ti.Delivered, DataSegsOut: ti.Data_segs_out,
	}
}

// HasTCPInfo reports whether ReadTCPInfo works on this OS.
const HasTCPInfo = true

// SetDevice binds the socket to a network interface (SO_BINDTODEVICE,
// iperf3's --bind-dev).
func SetDevice(rc syscall.RawConn, dev string) error {
	return control(rc, func(fd uintptr) error {
		return unix.SetsockoptString(int(fd), unix.SOL_SOCKET, unix.SO_BINDTODEVICE, dev)
	})
}

// SetUserTimeout sets TCP_USER_TIMEOUT in milliseconds: how long sent
// data may stay unacknowledged before the connection is dropped
// (iperf3's --snd-timeout).
func SetUserTimeout(rc syscall.RawConn, ms int) error {
	return control(rc, func(fd uintptr) error {
		return unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, ms)
	})
}
