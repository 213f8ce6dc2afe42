//go:build !linux

package tune

import (
	"context"
	"fmt"
	"runtime"

	"github.com/tcptune/tcptune/internal/lab"
)

// NewLabEnv: the lab needs Linux namespaces and TUN devices.
func NewLabEnv(ctx context.Context, c lab.Config, self string) (*Setup, func(), error) {
	return nil, nil, fmt.Errorf("tune --lab: not supported on %s (the lab needs Linux network namespaces); use tune --peer", runtime.GOOS)
}
