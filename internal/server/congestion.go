package server

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/tcptune/tcptune/internal/sysctl"
)

// congestionAllowed checks a client's congestion control before it
// reaches TCP_CONGESTION: for a root server the kernel would load the
// module of any algorithm named (request_module). Only algorithms
// already registered are accepted: those in
// net.ipv4.tcp_allowed_congestion_control (what any socket may use) or
// net.ipv4.tcp_available_congestion_control (loaded, which a privileged
// socket may use without loading anything). Elsewhere than Linux the
// socket option itself decides.
func congestionAllowed(fs sysctl.FS, name string) error {
	if runtime.GOOS != "linux" {
		return nil
	}
	var known []string
	for _, key := range []string{"net.ipv4.tcp_allowed_congestion_control", "net.ipv4.tcp_available_congestion_control"} {
		if v, err := fs.Get(key); err == nil {
			known = append(known, strings.Fields(v)...)
		}
	}
	if len(known) == 0 {
		return fmt.Errorf("congestion control %q refused: the kernel's lists of congestion controls are unreadable", name)
	}
	if !slices.Contains(known, name) {
		return fmt.Errorf("congestion control %q refused: not loaded (net.ipv4.tcp_available_congestion_control: %s); the server does not load modules for clients", name, strings.Join(known, " "))
	}
	return nil
}
