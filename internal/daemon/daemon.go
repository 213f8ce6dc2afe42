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

// WithPIDFile runs run with this process's PID in path while it runs
// (see WritePIDFile; "" = none).
func WithPIDFile(path string, run func() error) error {
	if path == "" {
		return run()
	}
	remove, err := WritePIDFile(path)
	if err != nil {
		return err
	}
	defer remove()
	return run()
}

// childEnv marks the process Start runs: it is the daemon already,
// whatever spelling of -D the command line it inherits holds (--daem, as
// getopt_long allows, or --daemon=true), so it never starts another.
const childEnv = "TCPTUNE_DAEMON_CHILD"

// IsChild reports whether Start ran this process.
func IsChild() bool { return os.Getenv(childEnv) == "1" }

// OpenLog opens path for appending, as iperf3's --logfile does.
func OpenLog(path string) (io.WriteCloser, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--logfile: %w", err)
	}
	return f, nil
}
