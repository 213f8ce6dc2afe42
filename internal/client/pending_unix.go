//go:build !windows

package client

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// pending reports whether the control connection has a byte waiting,
// without taking it (MSG_PEEK).
func pending(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, _ = unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		return true
	})
	return n > 0
}
