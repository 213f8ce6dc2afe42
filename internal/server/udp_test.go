package server

import (
	"log/slog"
	"net"
	"strings"
	"testing"
)

// A flood of UDP hellos from a host no test awaits writes one log line,
// not one per datagram.
func TestStrayUDPLogIsRateLimited(t *testing.T) {
	logs := &logBuf{}
	m := &udpMux{log: slog.New(slog.NewTextHandler(logs, nil)), streams: map[string]*udpRoute{}}
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	for i := 0; i < 10000; i++ {
		m.hello(pc, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 9), Port: 1000 + i%50000})
	}
	if n := strings.Count(logs.String(), "no test awaits"); n != 1 {
		t.Fatalf("%d log lines for 10000 stray datagrams", n)
	}
	if m.strayQuiet != 9999 {
		t.Fatalf("counted %d left out, want 9999", m.strayQuiet)
	}
}
