package report

import (
	"fmt"
	"net"
	"strconv"
)

// SplitAddr is an address's host and port as iperf3 reports them (the
// whole text and port 0 if it has no port; "" and 0 for nil).
func SplitAddr(a net.Addr) (string, int) {
	if a == nil {
		return "", 0
	}
	h, p, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String(), 0
	}
	n, _ := strconv.Atoi(p)
	return h, n
}

// ConnOf describes one connected stream.
func ConnOf(id, socket int, local, remote net.Addr) Conn {
	lh, lp := SplitAddr(local)
	rh, rp := SplitAddr(remote)
	return Conn{ID: id, Socket: socket, LocalHost: lh, LocalPort: lp, RemoteHost: rh, RemotePort: rp}
}

// ConnectedLine is iperf3's "[  5] local A port P connected to B port Q".
func ConnectedLine(c Conn) string {
	return fmt.Sprintf("[%3d] local %s port %d connected to %s port %d", c.ID, c.LocalHost, c.LocalPort, c.RemoteHost, c.RemotePort)
}
