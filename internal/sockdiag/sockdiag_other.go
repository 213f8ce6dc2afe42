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
