package report

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/result"
)

// ConnectedLine is iperf3's "[  5] local A port P connected to B port Q".
func ConnectedLine(c result.Conn) string {
	return fmt.Sprintf("[%3d] local %s port %d connected to %s port %d", c.ID, c.LocalHost, c.LocalPort, c.RemoteHost, c.RemotePort)
}
