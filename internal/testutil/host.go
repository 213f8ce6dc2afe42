package testutil

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// HostKeys are the host's (root namespace's) settings that no test may
// change: every buffer, memory, queueing and TCP-option knob tcptune
// touches.
var HostKeys = []string{
	"net/ipv4/tcp_rmem", "net/ipv4/tcp_wmem", "net/core/rmem_max", "net/core/wmem_max",
	"net/core/rmem_default", "net/core/wmem_default", "net/ipv4/tcp_mem",
	"net/ipv4/tcp_congestion_control", "net/core/default_qdisc", "net/core/netdev_max_backlog",
	"net/ipv4/tcp_moderate_rcvbuf", "net/ipv4/tcp_mtu_probing", "net/ipv4/tcp_sack",
	"net/ipv4/tcp_timestamps", "net/ipv4/tcp_notsent_lowat", "net/ipv4/tcp_slow_start_after_idle",
	"net/ipv4/tcp_no_metrics_save",
}

func hostSnapshot() map[string]string {
	m := map[string]string{}
	for _, k := range HostKeys {
		if b, err := os.ReadFile("/proc/sys/" + k); err == nil {
			m[k] = strings.TrimSpace(string(b))
		}
	}
	return m
}

// MainHostUnchanged runs the package's tests and fails the run if any of
// the host's settings changed meanwhile. Use it as TestMain's body.
func MainHostUnchanged(m *testing.M) {
	before := hostSnapshot()
	code := m.Run()
	after := hostSnapshot()
	for k, v := range before {
		if after[k] != v {
			fmt.Fprintf(os.Stderr, "FAIL: host sysctl %s changed during the suite: %q -> %q\n", k, v, after[k])
			code = 1
		}
	}
	os.Exit(code)
}
