// Package affinity pins this process to CPUs (iperf3's -A), to make
// loopback runs on few cores repeatable.
package affinity

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads iperf3's "-A n[,m]": the local CPU and optionally the
// server's. A missing part is -1.
func Parse(s string) (local, remote int, err error) {
	local, remote = -1, -1
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return -1, -1, fmt.Errorf("%q: want n or n,m", s)
	}
	for i, p := range parts {
		if p == "" {
			continue
		}
		v, e := strconv.Atoi(p)
		if e != nil || v < 0 || v > 1024 {
			return -1, -1, fmt.Errorf("%q: CPU numbers are 0..1024", s)
		}
		if i == 0 {
			local = v
		} else {
			remote = v
		}
	}
	return local, remote, nil
}
