//go:build !unix

package daemon

import (
	"fmt"
	"runtime"
)

// Start is not supported here: run the server as a service instead.
func Start(string) (int, error) {
	return 0, fmt.Errorf("-D/--daemon: not supported on %s (run the server as a service)", runtime.GOOS)
}

func alive(int) bool { return false }
