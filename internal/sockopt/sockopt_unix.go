//go:build unix

package sockopt

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SetBuffers sets SO_SNDBUF and SO_RCVBUF to n bytes.
func SetBuffers(rc syscall.RawConn, n int) error {
	return control(rc, func(fd uintptr) error {
		if err := unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF, n); err != nil {
			return err
		}
		return unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, n)
	})
}

// Buffers reads back SO_SNDBUF and SO_RCVBUF (Linux reports double the
// request, see kernel-knobs.md §1.1).
func Buffers(rc syscall.RawConn) (snd, rcv int, err error) {
	err = control(rc, func(fd uintptr) error {
		var e error
		if snd, e = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF); e != nil {
			return e
		}
		rcv, e = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF)
		return e
	})
	return
}

// SetMSS sets TCP_MAXSEG.
func SetMSS(rc syscall.RawConn, mss int) error {
	return control(rc, func(fd uintptr) error {
		return unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_MAXSEG, mss)
	})
}

// MSS reads TCP_MAXSEG (the current send MSS on a connected socket).
func MSS(rc syscall.RawConn) (int, error) {
	var v int
	err := control(rc, func(fd uintptr) error {
		var e error
		v, e = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_MAXSEG)
		return e
	})
	return v, err
}

// SetTOS sets the IPv4 TOS byte or the IPv6 traffic class.
func SetTOS(rc syscall.RawConn, tos int, ipv6 bool) error {
	return control(rc, func(fd uintptr) error {
		if ipv6 {
			return unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_TCLASS, tos)
		}
		return unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TOS, tos)
	})
}
