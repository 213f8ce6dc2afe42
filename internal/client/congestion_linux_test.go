package client

import (
	"net"
	"testing"

	"github.com/tcptune/tcptune/internal/sockopt"
	"github.com/tcptune/tcptune/internal/wire"
)

// Where -C is set decides the flow: a connection begun under a control
// that paces (BBR) keeps TCP's internal pacing when another takes over,
// one that starts with cubic never paces. As iperf3 does, the data
// sockets get -C once connected; with CongestionFromStart (tune's
// trials, --cc-from-start) before connect, in the dialer's options.
func TestCongestionSetWhereIperf3SetsIt(t *testing.T) {
	for _, fromStart := range []bool{false, true} {
		s := &session{o: Options{CongestionFromStart: fromStart}, params: wire.Params{Congestion: "reno"}, pr: Discard{}}
		if got, want := s.sockOptions().Congestion, map[bool]string{false: "", true: "reno"}[fromStart]; got != want {
			t.Errorf("from start %v: the dialer's options set -C %q, want %q", fromStart, got, want)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		before := congestionOf(t, c)
		s.setCongestion(c)
		after := congestionOf(t, c)
		c.Close()
		ln.Close()
		if fromStart && after != before {
			t.Errorf("from start: set again once connected (%s → %s)", before, after)
		}
		if !fromStart && after != "reno" {
			t.Errorf("once connected: the control is %s, want -C's reno", after)
		}
	}
}

func congestionOf(t *testing.T, c net.Conn) string {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	cc, err := sockopt.Congestion(rc)
	if err != nil {
		t.Fatal(err)
	}
	return cc
}
