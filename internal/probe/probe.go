// Package probe measures round-trip time without ICMP: a TCP connect
// takes one round trip whether the port answers with SYN-ACK or with
// RST, so it works against any host, through the lab, and without ping.
package probe

import (
	"context"
	"errors"
	"net"
	"strconv"
	"syscall"
	"time"

	"github.com/tcptune/tcptune/internal/sockopt"
)

// ConnectRTT makes count TCP connects to host:port, interval apart, and
// returns the time each took. A refused connection (RST) is a valid
// sample; timeouts and other errors are not.
func ConnectRTT(ctx context.Context, host string, port, count int, interval, timeout time.Duration) ([]time.Duration, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	var out []time.Duration
	var lastErr error
	for i := 0; i < count; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return out, ctx.Err()
			case <-time.After(interval):
			}
		}
		d := net.Dialer{Timeout: timeout}
		start := time.Now()
		c, err := d.DialContext(ctx, "tcp", addr)
		rtt := time.Since(start)
		switch {
		case err == nil:
			// The kernel timed the handshake (TCP_INFO): that excludes
			// this process's own wake-up from the sample.
			if k := kernelRTT(c); k > 0 {
				rtt = k
			}
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
			out = append(out, rtt)
		case errors.Is(err, syscall.ECONNREFUSED):
			out = append(out, rtt)
		default:
			lastErr = err
		}
	}
	if len(out) == 0 && lastErr != nil {
		return nil, lastErr
	}
	return out, nil
}

func kernelRTT(c net.Conn) time.Duration {
	ti, err := sockopt.TCPInfoOf(c)
	if err != nil || ti.RTT == 0 {
		return 0
	}
	return time.Duration(ti.RTT) * time.Microsecond
}
