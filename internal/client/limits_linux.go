package client

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/units"
)

func autotuneLimits() string {
	w := sysctl.Host().Int("net.ipv4.tcp_wmem", 2)
	r := sysctl.Host().Int("net.ipv4.tcp_rmem", 2)
	if w < 0 || r < 0 {
		return "net.ipv4.tcp_wmem/tcp_rmem max"
	}
	return fmt.Sprintf("tcp_wmem max %s / tcp_rmem max %s", units.FormatIEC(float64(w)), units.FormatIEC(float64(r)))
}

func capReason() string {
	w := sysctl.Host().Int("net.core.wmem_max", 0)
	r := sysctl.Host().Int("net.core.rmem_max", 0)
	if w < 0 || r < 0 {
		return " at net.core.wmem_max/rmem_max"
	}
	return fmt.Sprintf(" at net.core.wmem_max=%d / net.core.rmem_max=%d (×2); raise them, or use autotuning (no -w)", w, r)
}
