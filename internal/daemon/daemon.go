// Package daemon holds the process chores of iperf3's server flags:
// -D (run in the background), -I (a PID file) and --logfile (output to a
// file). The server itself knows nothing of them.
package daemon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WritePIDFile writes this process's PID to path atomically (a
// temporary file in the same directory, then rename) and returns a
// function that removes it. It refuses to replace the PID file of a
// process that is still running.
func WritePIDFile(path string) (remove func(), err error) {
	if b, err := os.ReadFile(path); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid != os.Getpid() && alive(pid) {
			return nil, fmt.Errorf("PID file %s names running process %d", path, pid)
		}
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".pid-*")
	if err != nil {
		return nil, fmt.Errorf("PID file: %w", err)
	}
	_, werr := fmt.Fprintf(f, "%d\n", os.Getpid())
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("PID file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("PID file: %w", err)
	}
	return func() { os.Remove(path) }, nil
}

// OpenLog opens path for appending, as iperf3's --logfile does.
func OpenLog(path string) (io.WriteCloser, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--logfile: %w", err)
	}
	return f, nil
}

// WithoutFlag returns args with every use of a boolean flag removed: its
// long form, its short form alone or inside a group of short flags.
func WithoutFlag(args []string, long string, short byte) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		switch {
		case a == "--"+long || a == "-"+string(short):
			continue
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.ContainsAny(a, "="):
			// a group such as -sD1: drop the letter (only letters of
			// boolean flags can share a group before a value letter)
			if i := strings.IndexByte(a[1:], short); i >= 0 && groupOfBools(a[1:i+1]) {
				a = a[:i+1] + a[i+2:]
				if a == "-" {
					continue
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// groupOfBools reports whether the letters before the flag in a short
// group are iperf3's boolean server letters (so the flag is not inside
// a value, as in -Bsomething).
func groupOfBools(prefix string) bool {
	for _, c := range prefix {
		if !strings.ContainsRune("sD1JVdR4", c) {
			return false
		}
	}
	return true
}
