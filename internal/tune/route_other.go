//go:build !linux

package tune

import (
	"fmt"
	"runtime"
)

func routeLink(string) (string, int, error) {
	return "", 0, fmt.Errorf("the route's interface: not supported on %s", runtime.GOOS)
}
