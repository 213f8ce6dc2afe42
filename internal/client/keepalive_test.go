package client

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestParseKeepAlive(t *testing.T) {
	for in, want := range map[string]net.KeepAliveConfig{
		"":       {Enable: true, Idle: -1, Interval: -1, Count: -1},
		"10":     {Enable: true, Idle: 10 * time.Second, Interval: -1, Count: -1},
		"20/5/3": {Enable: true, Idle: 20 * time.Second, Interval: 5 * time.Second, Count: 3},
		"/5":     {Enable: true, Idle: -1, Interval: 5 * time.Second, Count: -1},
		"//7":    {Enable: true, Idle: -1, Interval: -1, Count: 7},
		"30//":   {Enable: true, Idle: 30 * time.Second, Interval: -1, Count: -1},
		"7/2/3":  {Enable: true, Idle: 7 * time.Second, Interval: 2 * time.Second, Count: 3},
	} {
		got, err := ParseKeepAlive(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"x", "0", "1/2/3/4", "-5", "1/1/300", "99999", "6/2/3", "1/1/1"} {
		if _, err := ParseKeepAlive(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// One unit per value, the one -w is given in; UDP's buffers are not
// autotuned and the line says so.
func TestBufferLine(t *testing.T) {
	if got := bufferLine(65536, 131072, 131072, false); !strings.Contains(got, "requested 64 KiB (-w), granted send 128 KiB, receive 128 KiB") {
		t.Errorf("%q", got)
	}
	if got := bufferLine(0, 212992, 212992, true); strings.Contains(got, "tcp_") || !strings.Contains(got, "not autotuned (UDP") {
		t.Errorf("UDP: %q", got)
	}
}
