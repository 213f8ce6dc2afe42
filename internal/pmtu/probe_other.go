//go:build !linux

package pmtu

import (
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"time"
)

// Echo is the Linux prober; elsewhere it is not supported.
type Echo struct{}

// OpenEcho says that probing is not supported on this OS.
func OpenEcho(netip.Addr) (*Echo, error) {
	return nil, fmt.Errorf("path MTU probe: not supported on %s", runtime.GOOS)
}

func (*Echo) Close() error { return nil }

func (*Echo) Probe(context.Context, int, time.Duration) (Outcome, int, error) {
	return Lost, 0, fmt.Errorf("path MTU probe: not supported on %s", runtime.GOOS)
}
