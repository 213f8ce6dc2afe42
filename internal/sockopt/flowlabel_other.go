//go:build !linux

package sockopt

import (
	"net"
	"syscall"
)

// ConnectWithFlowLabel is Linux only (as iperf3's -L).
func ConnectWithFlowLabel(syscall.RawConn, *net.TCPAddr, string, int) error { return ErrUnsupported }
