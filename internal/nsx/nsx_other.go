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

// Identity is "" outside Linux: there are no network namespaces.
func Identity(name string) (string, error) {
	if name != "" {
		return "", fmt.Errorf("network namespaces (--netns) are not supported on %s", runtime.GOOS)
	}
	return "", nil
}

// Init is "" outside Linux.
func Init() string { return "" }

// NameOf is "" outside Linux.
func NameOf(string) string { return "" }
