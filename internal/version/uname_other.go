//go:build !linux

package version

func uname() string { return "" }
