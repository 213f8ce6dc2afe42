package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/wire"

	"github.com/tcptune/tcptune/internal/testutil"
)

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startServer(t *testing.T, o Options) (*Server, string, *logBuf) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuf{}
	o.Port = ln.Addr().(*net.TCPAddr).Port
	o.Log = slog.New(slog.NewTextHandler(logs, nil))
	if o.Interval == 0 {
		o.Interval = time.Second
	}
	s := New(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return s, ln.Addr().String(), logs
}

// healthy runs a real one-second test through the client package.
func healthy(t *testing.T, addr string) {
	t.Helper()
	h, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	o := client.Options{Host: h, Port: port, Params: wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, PacingTimer: 1000}}
	res, err := client.Run(context.Background(), o, report.NewPrinter(io.Discard, report.Text))
	if err != nil {
		t.Fatalf("a normal test failed after the abuse: %v", err)
	}
	if res.Received() <= 0 {
		t.Fatal("no data")
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return c
}

// control opens a control connection and reads PARAM_EXCHANGE.
func control(t *testing.T, addr string) (net.Conn, [wire.CookieSize]byte) {
	t.Helper()
	c := dial(t, addr)
	ck := wire.NewCookie()
	c.Write(ck[:])
	if st, err := wire.ReadState(c); err != nil || st != wire.ParamExchange {
		t.Fatalf("want PARAM_EXCHANGE, got %v %v", st, err)
	}
	return c, ck
}

// expectError reads SERVER_ERROR with the given i_errno, or a close.
func expectError(t *testing.T, c net.Conn, code int) {
	t.Helper()
	st, err := wire.ReadState(c)
	if err != nil {
		if code != 0 {
			t.Fatalf("want SERVER_ERROR %d, connection ended: %v", code, err)
		}
		return
	}
	if st != wire.ServerError {
		t.Fatalf("want SERVER_ERROR, got %v", st)
	}
	e, err := wire.ReadErrorPayload(c)
	if err != nil || (code != 0 && e.Code != code) {
		t.Fatalf("want i_errno %d, got %v %v", code, e, err)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection not closed after the error")
	}
}

func TestGarbageCookie(t *testing.T) {
	_, addr, logs := startServer(t, Options{})
	c := dial(t, addr)
	c.Write([]byte("GET / HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n"))
	b, _ := io.ReadAll(c)
	if !bytes.Equal(b, []byte{0xff}) {
		t.Fatalf("want ACCESS_DENIED then close, got %x", b)
	}
	healthy(t, addr)
	if !bytes.Contains([]byte(logs.String()), []byte("garbage")) {
		t.Errorf("no log line: %s", logs)
	}
}

func TestBadParameterMessages(t *testing.T) {
	_, addr, _ := startServer(t, Options{})
	frame := func(body string) []byte {
		b := make([]byte, 4+len(body))
		binary.BigEndian.PutUint32(b, uint32(len(body)))
		copy(b[4:], body)
		return b
	}
	big := `{"tcp":true,"time":1,"parallel":1,"title":"` + string(bytes.Repeat([]byte("x"), 9000)) + `"}`
	for name, tc := range map[string]struct {
		msg  []byte
		code int
	}{
		"length 0":        {[]byte{0, 0, 0, 0}, wire.IERecvParams},
		"length 4GiB":     {[]byte{0xff, 0xff, 0xff, 0xff}, wire.IERecvParams},
		"over 8KiB":       {frame(big), wire.IERecvParams},
		"not JSON":        {frame("hello world"), wire.IERecvParams},
		"wrong types":     {frame(`{"tcp":true,"time":"ten","parallel":"one"}`), wire.IERecvParams},
		"parallel 100000": {frame(`{"tcp":true,"time":1,"parallel":100000}`), wire.IENumStreams},
		"array":           {frame(`[1,2,3]`), wire.IERecvParams},
		"huge numbers":    {frame(`{"tcp":true,"time":1e300,"parallel":1}`), wire.IEDuration},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := control(t, addr)
			c.Write(tc.msg)
			expectError(t, c, tc.code)
		})
	}
	healthy(t, addr)
}

func TestWrongDataCookie(t *testing.T) {
	_, addr, _ := startServer(t, Options{MaxPerClient: 4})
	c, _ := control(t, addr)
	wire.WriteJSON(c, wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, ClientVersion: "3.12"})
	if st, _ := wire.ReadState(c); st != wire.CreateStreams {
		t.Fatalf("want CREATE_STREAMS, got %v", st)
	}
	d := dial(t, addr)
	other := wire.NewCookie()
	d.Write(other[:])
	// A cookie no test awaits starts a new control connection instead;
	// it is asked for parameters, and the first test is not disturbed.
	if st, err := wire.ReadState(d); err != nil || st != wire.ParamExchange {
		t.Fatalf("unknown cookie: got %v %v", st, err)
	}
	d.Close()
	c.Close()
	healthy(t, addr)
}

func TestVanishingClient(t *testing.T) {
	s, addr, _ := startServer(t, Options{})
	for _, reverse := range []bool{false, true} {
		c, ck := control(t, addr)
		wire.WriteJSON(c, wire.Params{Time: 30, Parallel: 2, Reverse: reverse, ServerAffinity: -1, ClientVersion: "3.12"})
		if st, _ := wire.ReadState(c); st != wire.CreateStreams {
			t.Fatal("no CREATE_STREAMS")
		}
		var data []net.Conn
		for i := 0; i < 2; i++ {
			d := dial(t, addr)
			d.Write(ck[:])
			data = append(data, d)
		}
		if st, _ := wire.ReadState(c); st != wire.TestStart {
			t.Fatalf("want TEST_START, got %v", st)
		}
		wire.ReadState(c)
		if !reverse {
			data[0].Write(make([]byte, 1<<20))
		}
		time.Sleep(300 * time.Millisecond)
		// Vanish: close everything without TEST_END.
		for _, d := range data {
			d.(*net.TCPConn).SetLinger(0)
			d.Close()
		}
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
		deadline := time.Now().Add(10 * time.Second)
		for s.Active() > 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if n := s.Active(); n != 0 {
			t.Fatalf("reverse=%v: %d tests still active after the client vanished", reverse, n)
		}
	}
	healthy(t, addr)
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	testutil.Need(t, err == nil, "no /proc/self/fd")
	return len(ents)
}

// TestSlowloris: 500 connections send part of a cookie and then nothing.
// The cap (256 waiting) closes the oldest: with a handshake deadline far
// beyond the wait, nothing else can close them; real tests run
// meanwhile; the heap stays bounded; and afterwards the server holds no
// goroutine or descriptor for them. No bound is put on how soon: a
// loaded machine accepts late, and only the cause (the cap) is the
// server's. The handshake deadline, the other way idle connections end,
// is TestHandshakeDeadline's.
func TestSlowloris(t *testing.T) {
	const deadline = time.Minute // beyond every wait below: only the cap closes a connection here
	_, addr, _ := startServer(t, Options{HandshakeTimeout: deadline})
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var conns []net.Conn
	for i := 0; i < 500; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		c.Write([]byte("abc")) // part of a cookie, then nothing
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	// The cap: the oldest 244 are closed, the newest 256 wait.
	closed := 0
	wait := time.Now().Add(20 * time.Second)
	for _, c := range conns[:244] {
		c.SetReadDeadline(wait)
		// Closed by the server: a FIN, or a reset where it closed with
		// the cookie's bytes unread in its buffer.
		if _, err := c.Read(make([]byte, 1)); err == io.EOF || errors.Is(err, syscall.ECONNRESET) {
			closed++
		}
	}
	if closed < 240 {
		t.Errorf("the cap closed %d of the 244 oldest connections", closed)
	}
	last := conns[len(conns)-1]
	last.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := last.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the newest connection, which the cap leaves alone, ended: %v", err)
	}
	// The server still serves real tests meanwhile.
	healthy(t, addr)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grow := int64(after.HeapInuse) - int64(before.HeapInuse); grow > 64<<20 {
		t.Fatalf("heap grew by %d MB with 500 idle connections", grow>>20)
	}
	// Nothing left behind once the clients are gone too.
	for _, c := range conns {
		c.Close()
	}
	var g, f int
	for i := 0; i < 50; i++ {
		g, f = runtime.NumGoroutine(), openFDs(t)
		if g <= goroutines+5 && f <= fds+5 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if g > goroutines+5 || f > fds+5 {
		t.Errorf("goroutines %d → %d, descriptors %d → %d after the connections ended", goroutines, g, fds, f)
	}
}

// An idle connection that sends part of a cookie is closed at the
// handshake deadline: not before it (the server's timer starts at its
// accept, after the dial began), and not minutes after.
func TestHandshakeDeadline(t *testing.T) {
	const deadline = 2 * time.Second
	_, addr, _ := startServer(t, Options{HandshakeTimeout: deadline})
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("abc"))
	c.SetReadDeadline(time.Now().Add(deadline + 30*time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("idle connection not closed by the server: %v", err)
	}
	if took := time.Since(start); took < deadline {
		t.Errorf("the idle connection was closed after %v (deadline %v)", took, deadline)
	}
}

func TestMaxDuration(t *testing.T) {
	_, addr, _ := startServer(t, Options{MaxDuration: 5})
	c, _ := control(t, addr)
	wire.WriteJSON(c, wire.Params{Time: 10, Parallel: 1, ServerAffinity: -1})
	expectError(t, c, wire.IEMaxDuration)
}

// A test takes its slot when its parameters arrive, not at its cookie:
// a full server says ACCESS_DENIED after the parameters (iperf3
// clients take it in any state: "the server is busy"), and connections
// that only sent a cookie hold no slot.
//
// A test abandoned while its streams are set up frees its slot when its
// control connection closes, not at the set-up timeout (a minute here,
// beyond the client's --busy-wait).
func TestBusyRefusal(t *testing.T) {
	_, addr, _ := startServer(t, Options{MaxTests: 1, SetupTimeout: time.Minute})
	params := func(c net.Conn) byte {
		body, _ := wire.Params{Time: 10, Parallel: 1, ServerAffinity: -1}.Encode()
		wire.WriteRaw(c, body)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		st, err := wire.ReadState(c)
		if err != nil {
			t.Fatalf("state after the parameters: %v", err)
		}
		return byte(st)
	}
	for i := 0; i < 2; i++ {
		control(t, addr) // a cookie and nothing more: no slot held
	}
	c, _ := control(t, addr)
	if st := params(c); st != byte(wire.CreateStreams) {
		t.Fatalf("the first test: state %d, want CREATE_STREAMS", st)
	}
	d, _ := control(t, addr)
	if st := params(d); st != 0xff {
		t.Fatalf("want ACCESS_DENIED after the parameters, got %d", st)
	}
	h, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	_, err := client.Run(context.Background(), client.Options{Host: h, Port: port, Params: wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1}}, report.NewPrinter(io.Discard, report.Text))
	if err != client.ErrBusy {
		t.Fatalf("client: want ErrBusy, got %v", err)
	}
	// With --busy-wait the client tries again until the slot is free
	// (the first test ends when its control connection closes).
	var out bytes.Buffer
	done := make(chan error, 1)
	o := client.Options{Host: h, Port: port, Params: wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1}, BusyWait: 30 * time.Second}
	go func() {
		_, err := client.Run(context.Background(), o, report.NewPrinter(&out, report.Text))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("--busy-wait: the client ended while the server was busy: %v\n%s", err, out.String())
	case <-time.After(time.Second):
	}
	c.Close()
	if err := <-done; err != nil || !strings.Contains(out.String(), "the server is busy running a test: trying again") {
		t.Fatalf("--busy-wait: %v\n%s", err, out.String())
	}
}

// TestConcurrentSessions runs tests with several streams at once through
// the real client; under -race (make test) it checks that the accept
// loop's hand-over of data connections is synchronised with the sessions.
func TestConcurrentSessions(t *testing.T) {
	_, addr, logs := startServer(t, Options{MaxTests: 4, MaxPerClient: 4})
	h, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(reverse bool) {
			defer wg.Done()
			o := client.Options{Host: h, Port: port, Params: wire.Params{Time: 1, Parallel: 4, Reverse: reverse, ServerAffinity: -1, PacingTimer: 1000}}
			res, err := client.Run(context.Background(), o, report.NewPrinter(io.Discard, report.Text))
			if err == nil && res.Received() <= 0 {
				err = io.ErrUnexpectedEOF
			}
			errs <- err
		}(i == 1)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent test: %v\n%s", err, logs.String())
		}
	}
}

// TestEarlyAndLateDataConnections sends data connections with a test's
// cookie before the server asks for streams and after it has them. The
// accept loop hands them over or turns them away (ACCESS_DENIED) on its
// own goroutines while the session starts and stops accepting: under
// -race (make test) that hand-over must be synchronised.
//
// Each test ends when its control connection closes; the next may start
// before the server has finished tearing the last one down (under load,
// with the packages' tests side by side), so slots are not what this
// test is about: there are enough for every round.
func TestEarlyAndLateDataConnections(t *testing.T) {
	_, addr, _ := startServer(t, Options{MaxTests: 8, MaxPerClient: 8})
	for i := 0; i < 5; i++ {
		c, ck := control(t, addr)
		early := dial(t, addr)
		wire.WriteJSON(c, wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, ClientVersion: "3.22"})
		early.Write(ck[:]) // races the session's switch to accepting
		if st, _ := wire.ReadState(c); st != wire.CreateStreams {
			t.Fatalf("want CREATE_STREAMS, got %v", st)
		}
		early.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		st, err := wire.ReadState(early)
		switch {
		case err == nil && st == wire.AccessDenied: // came too early: open the stream now
			dial(t, addr).Write(ck[:])
		case err == nil:
			t.Fatalf("early data connection: got %v", st)
		} // else it was taken as the stream
		for _, want := range []wire.State{wire.TestStart, wire.TestRunning} {
			if st, err := wire.ReadState(c); err != nil || st != want {
				t.Fatalf("want %v, got %v %v", want, st, err)
			}
		}
		late := dial(t, addr)
		late.Write(ck[:])
		if st, err := wire.ReadState(late); err != nil || st != wire.AccessDenied {
			t.Fatalf("late data connection: got %v %v, want ACCESS_DENIED", st, err)
		}
		c.Close()
	}
	healthy(t, addr)
}

// A -n test has no time of its own: a trickle must not hold a slot past
// the server's maximum duration, which ends it with iperf3's error 37.
func TestMaxDurationEndsByteTests(t *testing.T) {
	_, addr, logs := startServer(t, Options{MaxDuration: 2})
	h, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	o := client.Options{Host: h, Port: port, Params: wire.Params{Num: 1 << 40, Parallel: 1, Bandwidth: 80000, ServerAffinity: -1, PacingTimer: 1000}}
	start := time.Now()
	_, err := client.Run(context.Background(), o, report.NewPrinter(io.Discard, report.Text))
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("a 1 TiB trickle at 80 kbit/s: err %v after %v\n%s", err, time.Since(start), logs.String())
	}
	if !strings.Contains(logs.String(), "maximum duration") {
		t.Errorf("not ended at the maximum duration: %v\n%s", err, logs.String())
	}
}

// The streams' set-up deadline follows the path: 16 streams over a
// 600 ms satellite path get about 24 s, 32 over 300 ms about 32 s, a
// LAN stays near the set-up timeout, and nothing passes the cap.
func TestStreamSetupFollowsTheRTT(t *testing.T) {
	base := 5 * time.Second
	for _, c := range []struct {
		n      int
		rtt    time.Duration
		lo, hi time.Duration
	}{
		{1, 0, 5 * time.Second, 6 * time.Second},
		{16, 600 * time.Millisecond, 20 * time.Second, 30 * time.Second},
		{32, 300 * time.Millisecond, 25 * time.Second, 40 * time.Second},
		{128, 2 * time.Second, maxStreamSetup, maxStreamSetup},
	} {
		if d := streamSetup(base, c.n, c.rtt); d < c.lo || d > c.hi {
			t.Errorf("%d streams at %v: %v, want %v..%v", c.n, c.rtt, d, c.lo, c.hi)
		}
	}
}

// Refused logins are logged at most once per 10 s, with a count.
func TestFailedLoginLogIsRateLimited(t *testing.T) {
	var l limiter
	t0 := time.Unix(1000, 0)
	if q, ok := l.allow(t0); !ok || q != 0 {
		t.Fatal("the first must be logged")
	}
	for i := 1; i <= 500; i++ {
		if _, ok := l.allow(t0.Add(time.Duration(i) * time.Millisecond)); ok {
			t.Fatalf("attempt %d logged within the window", i)
		}
	}
	if q, ok := l.allow(t0.Add(failedLoginEvery)); !ok || q != 500 {
		t.Fatalf("after the window: logged %v, %d left out", ok, q)
	}
}

// A data connection offered after the test has all its streams (here a
// second one for -P 1, sent at once) is refused and closed, not left
// waiting in the hand-over buffer until garbage collection.
func TestExtraDataConnectionIsClosed(t *testing.T) {
	_, addr, _ := startServer(t, Options{MaxTests: 64, MaxPerClient: 64})
	for i := 0; i < 30; i++ {
		c, ck := control(t, addr)
		wire.WriteJSON(c, wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, ClientVersion: "3.22"})
		if st, _ := wire.ReadState(c); st != wire.CreateStreams {
			t.Fatalf("want CREATE_STREAMS, got %v", st)
		}
		a, b := dial(t, addr), dial(t, addr)
		a.Write(ck[:])
		b.Write(ck[:])
		// One is the stream; the other must hear ACCESS_DENIED or EOF at
		// once (the stream hears nothing until the test runs).
		refused := make(chan bool, 2)
		for _, d := range []net.Conn{a, b} {
			go func(d net.Conn) {
				d.SetReadDeadline(time.Now().Add(time.Second))
				st, err := wire.ReadState(d)
				refused <- (err == nil && st == wire.AccessDenied) || errors.Is(err, io.EOF)
			}(d)
		}
		if r := <-refused; !r && !<-refused {
			t.Fatalf("round %d: the extra data connection was neither refused nor closed", i)
		}
		c.Close()
		a.Close()
		b.Close()
	}
}

// Per-client limits count an IPv6 /64 as one client.
func TestClientAddrGroupsIPv6By64(t *testing.T) {
	conn := func(ip string) net.Conn {
		return fakeAddrConn{&net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}}
	}
	a, b := clientAddr(conn("2001:db8:1:2::1")), clientAddr(conn("2001:db8:1:2:ffff::9"))
	if a != b || a != "2001:db8:1:2::/64" {
		t.Errorf("%q %q", a, b)
	}
	if c := clientAddr(conn("2001:db8:1:3::1")); c == a {
		t.Error("another /64 counted as the same client")
	}
	if v4 := clientAddr(conn("10.0.0.7")); v4 != "10.0.0.7" {
		t.Errorf("IPv4: %q", v4)
	}
}

type fakeAddrConn struct{ addr net.Addr }

func (c fakeAddrConn) RemoteAddr() net.Addr           { return c.addr }
func (fakeAddrConn) Read([]byte) (int, error)         { return 0, io.EOF }
func (fakeAddrConn) Write(b []byte) (int, error)      { return len(b), nil }
func (fakeAddrConn) Close() error                     { return nil }
func (fakeAddrConn) LocalAddr() net.Addr              { return nil }
func (fakeAddrConn) SetDeadline(time.Time) error      { return nil }
func (fakeAddrConn) SetReadDeadline(time.Time) error  { return nil }
func (fakeAddrConn) SetWriteDeadline(time.Time) error { return nil }
