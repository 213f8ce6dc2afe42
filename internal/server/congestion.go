package server

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/tcptune/tcptune/internal/sysctl"
)

// congestionAllowed checks a client's congestion control against
// net.ipv4.tcp_allowed_congestion_control before it reaches
// TCP_CONGESTION: a root server asked for an algorithm that is not
// loaded would load its kernel module. Elsewhere than Linux the socket
// option itself decides.
func congestionAllowed(fs sysctl.FS, name string) error {
	if runtime.GOOS != "linux" {
		return nil
	}
	allowed, err := fs.Get("net.ipv4.tcp_allowed_congestion_control")
	if err != nil {
		return fmt.Errorf("congestion control %q refused: the allowed list is unreadable: %v", name, err)
	}
	if !slices.Contains(strings.Fields(allowed), name) {
		return fmt.Errorf("congestion control %q refused: not in net.ipv4.tcp_allowed_congestion_control (%s)", name, allowed)
	}
	return nil
}
