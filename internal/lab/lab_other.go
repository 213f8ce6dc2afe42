//go:build !linux

package lab

import (
	"context"
	"fmt"
	"runtime"
)

var errUnsupported = fmt.Errorf("tcptune lab is not supported on %s: it needs Linux network namespaces and TUN devices", runtime.GOOS)

// Up is Linux-only.
func Up(c Config) (*State, error) { return nil, errUnsupported }

// Down is Linux-only.
func Down(name string) error { return errUnsupported }

// DownAll is Linux-only.
func DownAll(orphaned bool) ([]string, error) { return nil, errUnsupported }

// List is Linux-only.
func List() ([]Link, error) { return nil, errUnsupported }

// Exec is Linux-only.
func Exec(name, side string, argv []string) error { return errUnsupported }

// RunRelay is Linux-only.
func RunRelay(ctx context.Context, name string) error { return errUnsupported }

// Run is Linux-only.
func Run(ctx context.Context, c Config, argv []string, o RunOptions) (int, error) {
	return 1, errUnsupported
}
