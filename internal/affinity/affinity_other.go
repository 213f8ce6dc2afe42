//go:build !linux

package affinity

import (
	"fmt"
	"runtime"
)

// Pin is not supported on this OS.
func Pin(cpu int) error { return fmt.Errorf("CPU affinity (-A) not supported on %s", runtime.GOOS) }
