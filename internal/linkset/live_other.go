//go:build !linux

package linkset

import (
	"fmt"
	"runtime"
)

func getLive(string, string) (int, error) {
	return 0, fmt.Errorf("link settings: not supported on %s", runtime.GOOS)
}

func setLive(string, string, int) error {
	return fmt.Errorf("link settings: not supported on %s", runtime.GOOS)
}

func deviceLive(string) (liveDevice, error) {
	return liveDevice{}, fmt.Errorf("link settings: not supported on %s", runtime.GOOS)
}
