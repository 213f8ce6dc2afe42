package server

import (
	"io"
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
	w, err := m.expect(net.IPv4(127, 0, 0, 1), 1, nil)
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

// Two UDP tests from one address set up their streams one after the
// other: a hello names no test, so the second waits until the first has
// all of its streams, and each takes only its own.
func TestUDPTestsFromOneAddressTakeTurns(t *testing.T) {
	m := &udpMux{log: slog.New(slog.NewTextHandler(&logBuf{}, nil)), bind: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}
	ip := net.IPv4(127, 0, 0, 1)
	w1, err := m.expect(ip, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.drop(nil)
	got2 := make(chan *udpWaiter, 1)
	go func() {
		w2, err := m.expect(ip, 1, nil)
		if err != nil {
			t.Error(err)
		}
		got2 <- w2
	}()
	select {
	case <-got2:
		t.Fatal("the second test registered while the first awaited its hello")
	case <-time.After(100 * time.Millisecond):
	}
	hello := func() *net.UDPConn {
		c, err := net.DialUDP("udp", nil, m.pc.LocalAddr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.Write(engine.UDPConnectMsg)
		return c
	}
	c1 := hello()
	if a := <-w1.addrs; a.String() != c1.LocalAddr().String() {
		t.Fatalf("first test got %s", a)
	}
	var w2 *udpWaiter
	select {
	case w2 = <-got2:
	case <-time.After(5 * time.Second):
		t.Fatal("the second test never got its turn")
	}
	defer m.drop(nil)
	c2 := hello()
	if a := <-w2.addrs; a.String() != c2.LocalAddr().String() {
		t.Fatalf("second test got %s", a)
	}
	// The busy wait gives up when the test's own deadline passes.
	w3, err := m.expect(ip, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.drop(nil)
	_ = w3
	done := make(chan struct{})
	close(done)
	if _, err := m.expect(ip, 1, done); err == nil {
		t.Error("a test whose deadline passed still registered")
	}
}

// A hello the UDP side counted for a test that ended before taking it
// leaves no route behind.
func TestUDPHelloOfAnEndedTest(t *testing.T) {
	m := &udpMux{log: slog.New(slog.NewTextHandler(io.Discard, nil)), bind: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}
	w, err := m.expect(net.IPv4(127, 0, 0, 1), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.drop(nil)
	m.hello(m.pc, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40001})
	m.hello(m.pc, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40002})
	<-w.addrs // the test took one, then ended
	m.cancel(w)
	m.mu.Lock()
	n := len(m.streams)
	m.mu.Unlock()
	if n != 1 { // the one taken is the test's to drop
		t.Errorf("%d routes left, want 1", n)
	}
}
