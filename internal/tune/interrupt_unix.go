//go:build !windows

package tune

import (
	"os"
	"syscall"
)

// interrupt asks a child to stop (it then restores and reports).
func interrupt(p *os.Process) error { return p.Signal(syscall.SIGINT) }
