package client

import (
	"net"
	"testing"
	"time"
)

func TestParseKeepAlive(t *testing.T) {
	for in, want := range map[string]net.KeepAliveConfig{
		"":       {Enable: true, Idle: -1, Interval: -1, Count: -1},
		"10":     {Enable: true, Idle: 10 * time.Second, Interval: -1, Count: -1},
		"10/5/3": {Enable: true, Idle: 10 * time.Second, Interval: 5 * time.Second, Count: 3},
		"/5":     {Enable: true, Idle: -1, Interval: 5 * time.Second, Count: -1},
		"//7":    {Enable: true, Idle: -1, Interval: -1, Count: 7},
		"30//":   {Enable: true, Idle: 30 * time.Second, Interval: -1, Count: -1},
	} {
		got, err := ParseKeepAlive(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"x", "0", "1/2/3/4", "-5", "1/1/300", "99999"} {
		if _, err := ParseKeepAlive(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
