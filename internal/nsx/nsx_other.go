//go:build !linux

package nsx

import (
	"fmt"
	"runtime"
)

// Do runs f; a namespace name is not supported outside Linux.
func Do(name string, f func() error) error {
	if name != "" {
		return fmt.Errorf("network namespaces (--netns) are not supported on %s", runtime.GOOS)
	}
	return f()
}
