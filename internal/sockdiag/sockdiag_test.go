package sockdiag

import (
	"runtime"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// A loopback connection whose receiver does not read shows up with its
// Recv-Q, skmem and TCP_INFO, as ss would show it.
func TestDumpLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("sock_diag is Linux's")
	}
	c, srv := testutil.TCPPair(t)
	if _, err := c.Write(make([]byte, 100000)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	socks, err := Dump("")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range socks {
		if s.Local.String() != srv.LocalAddr().String() || s.Remote.String() != c.LocalAddr().String() {
			continue
		}
		found = true
		if s.State != "ESTAB" || s.RecvQ != 100000 || s.Info == nil || s.Mem == nil || s.Mem.RmemAlloc == 0 || s.Mem.Rcvbuf == 0 || s.Mem.Sndbuf == 0 {
			t.Errorf("receiver: %+v mem %+v", s, s.Mem)
		}
		if s.Info != nil && (s.Info.RTT == 0 || s.Info.SndMSS == 0) {
			t.Errorf("tcp_info: %+v", s.Info)
		}
	}
	if !found {
		t.Errorf("the receiving socket %s is not among %d sockets", srv.LocalAddr(), len(socks))
	}
}
