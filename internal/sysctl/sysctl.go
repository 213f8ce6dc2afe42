// Package sysctl reads (and, for apply, writes) Linux sysctls through
// /proc/sys under an injectable root, so fixture trees can stand in for
// a live system. Keys use sysctl's dotted syntax; a "/" inside a
// component (a VLAN interface such as eth0/100) stands for a literal dot.
package sysctl

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FS reads sysctls below Root (normally "/").
type FS struct {
	Root string
}

// Host is the live system's /proc/sys.
func Host() FS { return FS{Root: "/"} }

// Path maps a dotted key to its file: net.ipv4.tcp_rmem becomes
// ROOT/proc/sys/net/ipv4/tcp_rmem; net.ipv4.conf.eth0/100.rp_filter
// becomes .../conf/eth0.100/rp_filter. A key whose components, after
// that translation, are "." or ".." (net.//.tmp) or that would leave
// /proc/sys is refused. A key written as a path (net/ipv4/tcp_rmem) is
// read as sysctl(8) reads it (Canonical).
func (f FS) Path(key string) (string, error) {
	bad := fmt.Errorf("invalid sysctl key %q", key)
	key = Canonical(key)
	if key == "" || strings.Contains(key, "..") || strings.ContainsAny(key, " \t\n\x00\\") {
		return "", bad
	}
	parts := strings.Split(key, ".")
	for i, p := range parts {
		p = strings.ReplaceAll(p, "/", ".")
		if p == "" || strings.HasPrefix(p, ".") || strings.Contains(p, "..") {
			return "", bad
		}
		parts[i] = p
	}
	base := filepath.Join(f.Root, "proc", "sys")
	path := filepath.Join(append([]string{base}, parts...)...)
	if rel, err := filepath.Rel(base, path); err != nil || rel == "." || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return "", bad
	}
	return path, nil
}

// Get returns the value with whitespace (tabs in vectors) folded to
// single spaces.
func (f FS) Get(key string) (string, error) {
	p, err := f.Path(key)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("sysctl %s: %w", key, err)
	}
	return strings.Join(strings.Fields(string(b)), " "), nil
}

// Ints returns a numeric (possibly vector) value.
func (f FS) Ints(key string) ([]int64, error) {
	s, err := f.Get(key)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, w := range strings.Fields(s) {
		v, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("sysctl %s: %q is not a number", key, w)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sysctl %s: empty", key)
	}
	return out, nil
}

// Int returns element i of a numeric value, or -1 if unreadable.
func (f FS) Int(key string, i int) int64 {
	v, err := f.Ints(key)
	if err != nil || i >= len(v) {
		return -1
	}
	return v[i]
}

// Set writes a value (vectors space-separated).
func (f FS) Set(key, value string) error {
	p, err := f.Path(key)
	if err != nil {
		return err
	}
	fh, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return fmt.Errorf("sysctl %s: %w", key, err)
	}
	if _, err := fh.WriteString(value + "\n"); err != nil {
		fh.Close()
		return fmt.Errorf("sysctl %s = %q: %w", key, value, err)
	}
	return fh.Close()
}
