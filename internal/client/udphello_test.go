package client

import (
	"net"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/engine"

	"github.com/tcptune/tcptune/internal/testutil"
)

// On a lossy path the hello is sent again until a reply comes: here the
// server ignores the first two.
func TestUDPHelloResent(t *testing.T) {
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	go func() {
		buf := make([]byte, 16)
		for i := 0; ; i++ {
			n, addr, err := srv.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if i >= 2 && engine.IsUDPConnect(buf[:n]) {
				srv.WriteToUDP(engine.UDPConnectReply, addr)
			}
		}
	}()
	c, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctrl, _ := testutil.TCPPair(t)
	start := time.Now()
	if err := udpHandshake(c, ctrl, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// A stock iperf3 answers only the first hello; when that reply is lost,
// the state it sends next on the control connection shows the hello
// arrived.
func TestUDPHelloControlConnectionShowsArrival(t *testing.T) {
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctrl, peer := testutil.TCPPair(t)
	go func() {
		buf := make([]byte, 16)
		if _, _, err := srv.ReadFromUDP(buf); err == nil {
			peer.Write([]byte{1}) // TEST_START; the reply "was lost"
		}
	}()
	c, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := udpHandshake(c, ctrl, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	// The state byte is still there for the control loop.
	ctrl.SetReadDeadline(time.Now().Add(time.Second))
	b := make([]byte, 1)
	if n, err := ctrl.Read(b); n != 1 || b[0] != 1 {
		t.Fatalf("control byte consumed: %v %v", n, err)
	}
}
