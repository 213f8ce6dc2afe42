package client

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// ParseKeepAlive reads iperf3's --cntl-ka value, "IDLE/INTERVAL/COUNT"
// (seconds, seconds, probes), where each part may be empty or missing
// and then keeps the system's setting. "" enables keepalive with the
// system's settings.
func ParseKeepAlive(s string) (net.KeepAliveConfig, error) {
	ka := net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1}
	if s == "" {
		return ka, nil
	}
	parts := strings.Split(s, "/")
	if len(parts) > 3 {
		return ka, fmt.Errorf("accepts IDLE/INTERVAL/COUNT (seconds/seconds/probes), each optional")
	}
	for i, p := range parts {
		if p == "" {
			continue
		}
		v, err := strconv.Atoi(p)
		if err != nil || v < 1 || v > 86400 {
			return ka, fmt.Errorf("accepts IDLE/INTERVAL/COUNT with values 1..86400, each optional")
		}
		switch i {
		case 0:
			ka.Idle = time.Duration(v) * time.Second
		case 1:
			ka.Interval = time.Duration(v) * time.Second
		case 2:
			if v > 255 {
				return ka, fmt.Errorf("COUNT accepts 1..255 probes (got %d)", v)
			}
			ka.Count = v
		}
	}
	// As iperf3: given all three, a probe round must end before the next
	// idle period would begin.
	if ka.Idle > 0 && ka.Interval > 0 && ka.Count > 0 && ka.Idle <= ka.Interval*time.Duration(ka.Count) {
		return ka, fmt.Errorf("IDLE (%d s) must be longer than INTERVAL × COUNT (%d s), as iperf3 asks", int(ka.Idle.Seconds()), int(ka.Interval.Seconds())*ka.Count)
	}
	return ka, nil
}
