//go:build !linux

package sockdiag

import (
	"fmt"
	"runtime"
)

// Dump needs Linux's sock_diag.
func Dump(netns string) ([]Socket, error) {
	return nil, fmt.Errorf("socket listing: not supported on %s (needs Linux sock_diag)", runtime.GOOS)
}

// Listener receives destroyed sockets; Linux only.
type Listener struct{}

// Listen needs Linux's sock_diag.
func Listen(netns string, rcvbuf int) (*Listener, error) {
	return nil, fmt.Errorf("flow events: not supported on %s (needs Linux sock_diag)", runtime.GOOS)
}

// Next is never reached.
func (l *Listener) Next() ([]Socket, error) { return nil, nil }

// Overruns is always 0.
func (l *Listener) Overruns() uint64 { return 0 }

// Close does nothing.
func (l *Listener) Close() error { return nil }
