// Package metricsrv serves Prometheus metrics for watch --prometheus and
// serve --prometheus: on loopback unless a host is given, with HTTP
// timeouts, from a registry of its own.
package metricsrv

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Serve serves the collectors on /metrics at addr (see Addr) until stop
// is called, and returns the address it listens on.
func Serve(addr string, cs ...prometheus.Collector) (net.Addr, func(), error) {
	a, err := Addr(addr)
	if err != nil {
		return nil, nil, err
	}
	reg := prometheus.NewRegistry()
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, nil, err
		}
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	go srv.Serve(ln)
	return ln.Addr(), func() { srv.Close() }, nil
}

// Addr is where --prometheus listens: the address as given when it
// names a host, else loopback. watch's endpoint lists every watched
// socket's address pair and serve's its clients' verdicts, so neither is
// published to the network unless asked for (":9465" and "9465" mean
// 127.0.0.1:9465; "0.0.0.0:9465" or "[::]:9465" publish it).
func Addr(addr string) (string, error) {
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
