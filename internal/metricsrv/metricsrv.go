package watch

import (
	"fmt"
	"net"
	"strconv"
)

// MetricsAddr is where --prometheus listens: the address as given when
// it names a host, else loopback. The endpoint lists every watched
// socket's address pair, so it is not published to the network unless
// asked for (":9465" and "9465" mean 127.0.0.1:9465; "0.0.0.0:9465" or
// "[::]:9465" publish it).
func MetricsAddr(addr string) (string, error) {
	if _, err := strconv.Atoi(addr); err == nil {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("accepts [HOST]:PORT or PORT (got %q)", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return "", fmt.Errorf("accepts a port 0..65535 (got %q)", port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
