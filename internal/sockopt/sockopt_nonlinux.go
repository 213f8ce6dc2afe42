//go:build !linux

package sockopt

import "syscall"

// SetCongestion is Linux-only in tcptune.
func SetCongestion(rc syscall.RawConn, name string) error { return ErrUnsupported }

// Congestion is Linux-only in tcptune.
func Congestion(rc syscall.RawConn) (string, error) { return "", ErrUnsupported }

// SetPacingRate is Linux-only (SO_MAX_PACING_RATE).
func SetPacingRate(rc syscall.RawConn, bytesPerSec int64) error { return ErrUnsupported }

// SetDontFragment is implemented on Linux only.
func SetDontFragment(rc syscall.RawConn, ipv6 bool) error { return ErrUnsupported }

// ReadTCPInfo is Linux-only in tcptune: other systems' tcp_info differs.
func ReadTCPInfo(rc syscall.RawConn) (*TCPInfo, error) { return nil, ErrUnsupported }

// HasTCPInfo reports whether ReadTCPInfo works on this OS.
const HasTCPInfo = false

// SetDevice is Linux's SO_BINDTODEVICE.
func SetDevice(rc syscall.RawConn, dev string) error { return ErrUnsupported }

// SetUserTimeout is Linux's TCP_USER_TIMEOUT.
func SetUserTimeout(rc syscall.RawConn, ms int) error { return ErrUnsupported }
