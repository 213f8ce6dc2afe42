//go:build !linux

package drops

import (
	"fmt"
	"net"
	"runtime"
)

// Snapshot is Linux's only: elsewhere the counters are not read.
func Snapshot(root string, peer net.IP) (Counters, error) {
	return Counters{}, fmt.Errorf("drop counters: not supported on %s", runtime.GOOS)
}
