//go:build linux

package engine

import (
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
	"golang.org/x/sys/unix"
)

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// The Linux streams leave the netpoller; Stop must still wake a receiver
// that waits for data that never comes and a sender whose peer reads
// nothing, at once and within the sleep bound respectively.
func TestRawStopWakesBlockedStreams(t *testing.T) {
	before := openFDs(t)
	cc, sc := testutil.TCPPair(t)
	rx := NewTCPStream(1, sc, false)
	tx := NewTCPStream(1, cc, true)
	recv := NewTest(Config{BlockLen: 64 << 10}, []*Stream{rx})
	recv.Start()
	if rx.raw == nil || rx.Conn() != nil {
		t.Fatal("TCP streams on Linux should own their sockets outside net.Conn once started")
	}
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	recv.Stop()
	if d := time.Since(t0); d > 50*time.Millisecond {
		t.Errorf("Stop of an idle receiver took %v: the shutdown did not wake recvfrom", d)
	}
	// Nobody reads now: the sender fills both buffers and sleeps in sendto.
	send := NewTest(Config{BlockLen: 64 << 10}, []*Stream{tx})
	send.Start()
	time.Sleep(300 * time.Millisecond)
	t0 = time.Now()
	send.Stop()
	if d := time.Since(t0); d > sleepBound+200*time.Millisecond {
		t.Errorf("Stop of a blocked sender took %v (bound %v)", d, sleepBound)
	}
	if tx.Bytes() == 0 || tx.Err() != nil {
		t.Errorf("sender moved %d bytes, err %v", tx.Bytes(), tx.Err())
	}
	if ti := tx.TCPInfo(); ti == nil {
		t.Error("TCP_INFO unreadable on a detached socket")
	}
	send.CloseStreams()
	recv.CloseStreams()
	if ti := tx.TCPInfo(); ti != nil {
		t.Error("TCP_INFO readable after Close")
	}
	if after := openFDs(t); after > before {
		t.Errorf("%d descriptors open after Close, %d before", after, before)
	}
}

// -Z sends with sendfile from a memory file, and nothing touches a disk
// (a server under -Z -R used to write a temporary file per stream);
// --skip-rx-copy counts without copying. Both must count every byte the
// other side saw.
func TestRawZeroCopyAndSkipRxCopy(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cc, sc := testutil.TCPPair(t)
	tx := NewTCPStream(1, cc, true)
	rx := NewTCPStream(1, sc, false)
	limit := NewLimit(64<<20, 0, 128<<10)
	// Paced at 1 Gbit/s, so that the sender is still at work when looked at.
	send := NewTest(Config{BlockLen: 128 << 10, ZeroCopy: true, Limit: limit, Rate: 1e9}, []*Stream{tx})
	recv := NewTest(Config{BlockLen: 128 << 10, SkipRxCopy: true}, []*Stream{rx})
	recv.Start()
	send.Start()
	time.Sleep(50 * time.Millisecond)
	if src := zeroCopySources(t); len(src) != 1 || src[0] != "/memfd:tcptune-zc (deleted)" {
		t.Errorf("-Z sends from %q, want one memfd", src)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("-Z wrote %d files under TMPDIR", len(ents))
	}
	select {
	case <-limit.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("64 MiB not sent in 20 s")
	}
	send.Stop()
	send.CloseStreams() // FIN: the receiver reads to the end
	deadline := time.Now().Add(5 * time.Second)
	for rx.Bytes() < tx.Bytes() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	recv.Stop()
	recv.CloseStreams()
	if tx.Bytes() < 64<<20 || rx.Bytes() != tx.Bytes() {
		t.Fatalf("sent %d, received %d", tx.Bytes(), rx.Bytes())
	}
	if tx.Err() != nil || rx.Err() != nil {
		t.Fatalf("errors: %v, %v", tx.Err(), rx.Err())
	}
}

// zeroCopySources lists what this process's descriptors name that could
// be the source of a -Z sender: memory files and regular files.
func zeroCopySources(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil || !strings.HasPrefix(l, "/") || strings.HasPrefix(l, "/dev/") || strings.HasPrefix(l, "/proc/") {
			continue
		}
		if strings.Contains(l, "tcptune") {
			out = append(out, l)
		}
	}
	return out
}

// Nagle's algorithm is on unless the test asks for no delay (-N), as in
// iperf3, although Go turns it off on every connection it makes.
func TestNagleFollowsNoDelay(t *testing.T) {
	for _, noDelay := range []bool{false, true} {
		cc, sc := testutil.TCPPair(t)
		tx := NewTCPStream(1, cc, true)
		rx := NewTCPStream(1, sc, false)
		recv := NewTest(Config{BlockLen: 64 << 10}, []*Stream{rx})
		send := NewTest(Config{BlockLen: 64 << 10, NoDelay: noDelay, Rate: 1e8}, []*Stream{tx})
		recv.Start()
		send.Start()
		var got int
		var gerr error
		tx.RawConn().Control(func(fd uintptr) {
			got, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NODELAY)
		})
		send.Stop()
		recv.Stop()
		send.CloseStreams()
		recv.CloseStreams()
		if gerr != nil {
			t.Fatal(gerr)
		}
		if (got != 0) != noDelay {
			t.Errorf("NoDelay %v: TCP_NODELAY is %d on the sending socket", noDelay, got)
		}
	}
}

// A sender held by its send buffer keeps the buffer full: it tops the
// buffer up as the receiver frees room, rather than sleeping until the
// kernel wakes it with a third of the buffer free. Here the receiver
// takes 160 KiB out of a 1 MiB send buffer every 10 ms, and looks at the
// send queue just before each read: a writer that tops up has refilled
// it by then (99.6–100% of its largest here), one that waits for the
// wake has not, but for the reads after which the kernel woke it (91%).
func TestSenderKeepsItsBufferFull(t *testing.T) {
	cc, sc := testutil.TCPPair(t)
	setInt := func(c net.Conn, opt, v int) {
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		rc.Control(func(fd uintptr) { err = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, opt, v) })
		if err != nil {
			t.Fatal(err)
		}
	}
	setInt(cc, unix.SO_SNDBUF, 512<<10) // the kernel doubles it
	setInt(sc, unix.SO_RCVBUF, 32<<10)
	tx := NewTCPStream(1, cc, true)
	send := NewTest(Config{BlockLen: 128 << 10}, []*Stream{tx})
	send.Start()
	defer send.CloseStreams()
	defer send.Stop()
	queued := func() int { // bytes in the send queue, sent or not
		n := -1
		tx.RawConn().Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) })
		return n
	}
	buf := make([]byte, 160<<10)
	var seen []int
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for range 200 {
		<-tick.C
		seen = append(seen, queued())
		sc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(sc, buf); err != nil {
			t.Fatal(err)
		}
	}
	seen = seen[20:] // the buffer fills first
	sum, top := 0, 0
	for _, q := range seen {
		sum += q
		top = max(top, q)
	}
	if top <= 0 {
		t.Fatalf("send queue never seen (max %d)", top)
	}
	fill := float64(sum) / float64(len(seen)) / float64(top)
	t.Logf("send queue before a read: mean %.3f of its largest (%d bytes)", fill, top)
	if fill < 0.95 {
		t.Errorf("the send buffer was %.0f%% full on average before a read: the writer does not top it up", 100*fill)
	}
}
