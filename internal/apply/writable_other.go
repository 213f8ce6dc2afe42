//go:build !linux

package apply

// writable: apply is Linux-only; nothing is writable elsewhere.
func writable(path string) bool { return false }
