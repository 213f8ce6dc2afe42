package server

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/engine"
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

// A hello repeated from a stream the server already holds (its reply was
// lost) is answered again; before, it was dropped and the client waited
// 30 s for "no UDP connect reply".
func TestRepeatedHelloIsAnswered(t *testing.T) {
	m := &udpMux{log: slog.New(slog.NewTextHandler(&logBuf{}, nil)), bind: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}
	w, err := m.expect(net.IPv4(127, 0, 0, 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.drop(nil)
	c, err := net.DialUDP("udp", nil, m.pc.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 16)
	for i := 0; i < 2; i++ {
		c.Write(engine.UDPConnectMsg)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := c.Read(buf)
		if err != nil || !engine.IsUDPReply(buf[:n]) {
			t.Fatalf("hello %d: %v %x", i+1, err, buf[:n])
		}
	}
	if got := <-w.addrs; got.String() != c.LocalAddr().String() {
		t.Errorf("stream from %s, want %s", got, c.LocalAddr())
	}
	select {
	case a := <-w.addrs:
		t.Errorf("the repeated hello became a second stream (%s)", a)
	default:
	}
}
