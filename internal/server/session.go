package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/procnet"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/result"
	"github.com/tcptune/tcptune/internal/sockopt"
	"github.com/tcptune/tcptune/internal/version"
	"github.com/tcptune/tcptune/internal/view"
	"github.com/tcptune/tcptune/internal/wire"
)

// session is one test on the server.
type session struct {
	srv    *Server
	ctrl   net.Conn
	cookie [wire.CookieSize]byte
	serial int
	params *wire.Params
	// streams receives data connections while the test awaits them
	// (accepting); offerStream runs on the accept loop's goroutines, so
	// both are guarded by mu.
	mu        sync.Mutex
	streams   chan accepted
	accepting bool
	pr        *report.Printer
	text      report.ClippedText // the text report, for --get-server-output
	test      *engine.Test
	udpIDs    []string
	udpUsed   bool
	recorded  bool // OnTestEnd has the test
	// who is the client a per-client limit counts; admitted: the test
	// holds a test slot (its parameters and login arrived), else a set-up
	// place (Server.admit).
	who      string
	admitted bool
	memory   int64 // the buffer memory admit reserved for it
}

func newSession(s *Server, c net.Conn, cookie [wire.CookieSize]byte, serial int) *session {
	return &session{srv: s, ctrl: c, cookie: cookie, serial: serial}
}

// What a server keeps of one test's report is bounded, whatever the
// test's length: its text for --get-server-output (bytes), and the
// intervals of its -J document, fewer the more streams each has.
const maxServerText = 128 << 10

func maxKeptIntervals(streams int) int { return max(64, 8192/(streams+3)) }

// accepted is a data connection with its place in the accept order.
type accepted struct {
	c   net.Conn
	seq uint64
}

// offerStream hands a data connection to the test if it awaits streams.
func (t *session) offerStream(c accepted) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.accepting {
		return false
	}
	select {
	case t.streams <- c:
		return true
	default:
		return false
	}
}

func (t *session) logf(format string, args ...any) {
	t.srv.o.Log.Warn(fmt.Sprintf(format, args...), "test", t.serial, "peer", t.ctrl.RemoteAddr().String())
}

// authorized checks the client's token when the server requires one,
// and refuses the test with iperf3's error 142 if it fails. The log says
// why, but not the user a failed token names: people type passwords
// into user-name fields.
func (t *session) authorized(token string) bool {
	v := t.srv.o.Auth
	if v == nil {
		return true
	}
	var from netip.Addr
	if ap, err := netip.ParseAddrPort(t.ctrl.RemoteAddr().String()); err == nil {
		from = ap.Addr()
	}
	user, err := v.Check(from, token)
	if err != nil {
		// Refused with iperf3's error 142 every time; logged at most once
		// per failedLoginEvery, with a count of those left out, so that
		// anyone who can connect cannot flood the log.
		if quiet, ok := t.srv.failedLogins.allow(time.Now()); ok {
			t.logf("%v: %v (%d more failed logins since the last line)", wire.Errorf(wire.IEAuthTest), err, quiet)
		}
		t.ctrl.SetWriteDeadline(time.Now().Add(5 * time.Second))
		wire.WriteServerError(t.ctrl, wire.IEAuthTest, 0)
		return false
	}
	t.srv.o.Log.Info("authentication succeeded", "user", user, "test", t.serial, "peer", t.ctrl.RemoteAddr().String())
	return true
}

// fail sends SERVER_ERROR with the i_errno of err and logs.
func (t *session) fail(err error) {
	var we *wire.Error
	code := wire.IERecvParams
	if errors.As(err, &we) {
		code = we.Code
	}
	t.logf("%v", err)
	t.ctrl.SetWriteDeadline(time.Now().Add(5 * time.Second))
	wire.WriteServerError(t.ctrl, code, 0)
}

func (t *session) run(ctx context.Context) {
	defer t.ctrl.Close()
	defer func() {
		if t.udpUsed {
			t.srv.udp.drop(t.udpIDs)
		}
	}()
	if tc, ok := t.ctrl.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	// Short deadlines for the set-up: a client that sends a cookie and
	// then nothing holds a test slot for seconds, not minutes.
	t.ctrl.SetDeadline(time.Now().Add(t.srv.o.SetupTimeout))
	if err := wire.WriteState(t.ctrl, wire.ParamExchange); err != nil {
		t.logf("control connection: %v", err)
		return
	}
	body, err := wire.ReadJSON(t.ctrl, wire.MaxParamsJSON)
	if err != nil {
		t.fail(fmt.Errorf("%w: %v", wire.Errorf(wire.IERecvParams), err))
		return
	}
	p, err := wire.ParseParams(body)
	if err != nil {
		t.fail(err)
		return
	}
	if !t.authorized(p.Authtoken) {
		return
	}
	tooBig, err := t.srv.admit(t, testMemory(*p, t.srv.o.sysctl().Int("net.core.wmem_max", 0)))
	if tooBig {
		// Never fits: the client is told which of its options it is.
		t.srv.o.Log.Warn("refusing test: "+err.Error(), "peer", t.ctrl.RemoteAddr().String())
		code := wire.IENumStreams
		if p.Window > 0 {
			code = wire.IEBufSize
		}
		t.fail(fmt.Errorf("%w: %v", wire.Errorf(code), err))
		return
	}
	if err != nil {
		t.srv.o.Log.Warn("refusing test: "+err.Error(), "peer", t.ctrl.RemoteAddr().String())
		t.ctrl.SetWriteDeadline(time.Now().Add(5 * time.Second))
		wire.WriteState(t.ctrl, wire.AccessDenied)
		return
	}
	if max := t.srv.o.MaxDuration; max > 0 && p.Time+p.Omit > max {
		t.fail(wire.Errorf(wire.IEMaxDuration))
		return
	}
	n := p.Parallel
	if p.Bidirectional {
		n *= 2
	}
	if t.srv.o.RateLimit.asks(p.Bandwidth, n) {
		t.logf("refusing test: -b %d bit/s × %d streams is above the server's limit of %.0f bit/s", p.Bandwidth, n, t.srv.o.RateLimit.Bits)
		t.fail(wire.Errorf(wire.IETotalRate))
		return
	}
	if p.Congestion != "" {
		if err := congestionAllowed(t.srv.o.sysctl(), p.Congestion); err != nil {
			t.fail(fmt.Errorf("%w: %v", wire.Errorf(wire.IESetCongestion), err))
			return
		}
	}
	t.params = p
	if p.ServerAffinity >= 0 {
		// Pinning would move the whole server, and every other test with
		// it: the request is refused with a warning, and the test runs.
		t.logf("ignoring the client's server CPU affinity (%d): it would pin every test this server runs", p.ServerAffinity)
	}
	t.text.Max = maxServerText
	if t.srv.o.Mode == report.Text {
		// Text is printed live, and kept for --get-server-output.
		var w io.Writer = t.srv.lockedOut()
		if p.GetServerOutput {
			w = io.MultiWriter(w, &t.text)
		}
		t.pr = report.NewPrinter(w, report.Text)
	} else {
		t.pr = report.NewPrinter(&t.text, report.JSON)
	}
	t.pr.Textf("Accepted connection from %s", hostPortText(t.ctrl.RemoteAddr()))
	streams, err := t.acceptStreams(ctx)
	if err != nil {
		t.fail(err)
		for _, s := range streams {
			s.Close()
		}
		return
	}
	t.ctrl.SetDeadline(time.Time{})
	t.serve(ctx, streams)
}

func hostPortText(a net.Addr) string {
	h, p := result.SplitAddr(a)
	return fmt.Sprintf("%s, port %d", h, p)
}

// expected is how many data streams the test opens.
func (t *session) expected() int {
	if t.params.Bidirectional {
		return 2 * t.params.Parallel
	}
	return t.params.Parallel
}

// role of the i-th accepted stream: the first N the server receives on,
// the next N (--bidir) it sends on; with -R it sends on all.
func (t *session) role(i int) (sender, reverse bool) {
	n := t.params.Parallel
	switch {
	case t.params.Bidirectional:
		return i >= n, i >= n
	case t.params.Reverse:
		return true, false
	}
	return false, false
}

func streamID(i int) int {
	if i == 0 {
		return 1
	}
	return i + 2
}

// udpDrops reads the host's UDP socket-buffer drops for a UDP test in
// which this server receives, so that its loss can be told apart from
// the path's.
func (t *session) udpDrops(p *wire.Params) func() (int64, error) {
	if !p.UDP || (p.Reverse && !p.Bidirectional) {
		return nil
	}
	return procnet.FS{Root: "/"}.RcvbufErrors
}

// streamSetup is how long a test's n streams may take to arrive: the
// set-up timeout, then per stream 250 ms and two round trips of the
// control connection (its tcpi_rtt: a client connects them one after
// another, each a connect and a cookie, or a UDP hello and its reply),
// within maxStreamSetup. A 16-stream test over a 600 ms satellite path
// needs about 20 s; a silent holder is still ended.
func streamSetup(base time.Duration, n int, rtt time.Duration) time.Duration {
	return min(base+time.Duration(n)*(perStreamSetup+2*rtt), maxStreamSetup)
}

// ctrlRTT is the control connection's smoothed RTT (0 when unknown).
func (t *session) ctrlRTT() time.Duration {
	ti, err := sockopt.TCPInfoOf(t.ctrl)
	if err != nil {
		return 0
	}
	return time.Duration(ti.RTT) * time.Microsecond
}

// watchCtrl watches the control connection while the streams are set
// up, when a client sends nothing on it: gone closes when it ends or
// the client sends a state (CLIENT_TERMINATE), so that an abandoned test
// frees its slot at once, as iperf3's select loop does. stop ends the
// watch and says why it closed (nil when it was only stopped); it is
// idempotent.
func (t *session) watchCtrl() (gone <-chan struct{}, stop func() error) {
	ch := make(chan struct{})
	var b [1]byte
	var n int
	var err error
	go func() {
		n, err = t.ctrl.Read(b[:])
		close(ch)
	}()
	var once sync.Once
	var why error
	return ch, func() error {
		once.Do(func() {
			t.ctrl.SetReadDeadline(time.Unix(1, 0))
			<-ch
			t.ctrl.SetReadDeadline(time.Time{})
			switch {
			case n == 1 && wire.State(int8(b[0])) == wire.ClientTerminate:
				why = wire.Errorf(wire.IEClientTerm)
			case n == 1:
				why = fmt.Errorf("%w: state %d while the streams were set up", wire.Errorf(wire.IEMessage), int8(b[0]))
			case errors.Is(err, os.ErrDeadlineExceeded):
			default:
				why = wire.Errorf(wire.IECtrlClose)
			}
		})
		return why
	}
}

func (t *session) acceptStreams(ctx context.Context) (streams []*engine.Stream, err error) {
	n := t.expected()
	deadline := time.NewTimer(streamSetup(t.srv.o.SetupTimeout, n, t.ctrlRTT()))
	defer deadline.Stop()
	gone, stopWatch := t.watchCtrl()
	defer func() {
		if why := stopWatch(); why != nil && err == nil {
			err = why
		}
	}()
	// ended is the reason to give up when the watch fires: nil when it
	// only met the set-up deadline, which deadline reports.
	ended := func() error {
		gone = nil
		return stopWatch()
	}
	if t.params.UDP {
		turn, stop := context.WithTimeout(ctx, streamSetup(t.srv.o.SetupTimeout, n, t.ctrlRTT()))
		defer stop()
		w, err := t.srv.udp.expect(ctrlIP(t.ctrl), n, turn.Done())
		if err != nil {
			return nil, fmt.Errorf("%w: %v", wire.Errorf(wire.IEStreamAccept), err)
		}
		t.udpUsed = true
		defer t.srv.udp.cancel(w)
		if err := wire.WriteState(t.ctrl, wire.CreateStreams); err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			select {
			case addr := <-w.addrs:
				sender, reverse := t.role(i)
				s := t.srv.udp.stream(streamID(i), addr, sender)
				s.Reverse = reverse
				streams = append(streams, s)
				t.udpIDs = append(t.udpIDs, addr.String())
			case <-deadline.C:
				return streams, fmt.Errorf("%w: only %d of %d UDP streams arrived", wire.Errorf(wire.IEStreamAccept), i, n)
			case <-gone:
				if err := ended(); err != nil {
					return streams, err
				}
				i--
			case <-ctx.Done():
				return streams, wire.Errorf(wire.IEServerTerm)
			}
		}
		return streams, nil
	}
	streamCh := make(chan accepted, n)
	t.mu.Lock()
	t.streams, t.accepting = streamCh, true
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.accepting = false
		t.mu.Unlock()
		// A connection offered after the last one was taken (a client
		// opening one too many, or after the deadline) waits in the
		// buffer: close it now, not when the collector finds it.
		for {
			select {
			case a := <-streamCh:
				wire.WriteState(a.c, wire.AccessDenied)
				a.c.Close()
			default:
				return
			}
		}
	}()
	fromListener := false // the listener gives them -C from the start
	if t.srv.o.CongestionFromStart {
		restore, err := t.srv.listenWith(t.params.Congestion)
		if err != nil {
			t.logf("%v; setting it once they are accepted", err)
		}
		fromListener = err == nil
		defer restore()
	}
	if err := wire.WriteState(t.ctrl, wire.CreateStreams); err != nil {
		return nil, err
	}
	// Cookies are read concurrently, so connections can arrive here out
	// of order; roles follow the accept order, as in iperf3.
	var conns []accepted
	for len(conns) < n {
		select {
		case a := <-streamCh:
			conns = append(conns, a)
		case <-deadline.C:
			for _, a := range conns {
				a.c.Close()
			}
			return nil, fmt.Errorf("%w: only %d of %d streams arrived", wire.Errorf(wire.IEStreamAccept), len(conns), n)
		case <-gone:
			if err := ended(); err != nil {
				for _, a := range conns {
					a.c.Close()
				}
				return nil, err
			}
		case <-ctx.Done():
			for _, a := range conns {
				a.c.Close()
			}
			return nil, wire.Errorf(wire.IEServerTerm)
		}
	}
	sort.Slice(conns, func(i, j int) bool { return conns[i].seq < conns[j].seq })
	opts := sockopt.Options{Window: t.params.Window, Congestion: t.params.Congestion, TOS: t.params.TOS, FQRate: t.params.FQRate}
	if fromListener {
		opts.Congestion = ""
	}
	for i, a := range conns {
		c := a.c
		if tc, ok := c.(*net.TCPConn); ok {
			if rc, err := tc.SyscallConn(); err == nil {
				if err := opts.Apply(rc, sockopt.IsIPv6(c.LocalAddr().String())); err != nil {
					t.logf("%v", err)
				}
			}
		}
		c.SetDeadline(time.Time{})
		sender, reverse := t.role(i)
		s := engine.NewTCPStream(streamID(i), c, sender)
		s.Reverse = reverse
		streams = append(streams, s)
	}
	return streams, nil
}

func ctrlIP(c net.Conn) net.IP {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP
	}
	return nil
}

func (t *session) meta(streams []*engine.Stream) result.Meta {
	h, port := result.SplitAddr(t.ctrl.RemoteAddr())
	m := result.Meta{Interval: t.srv.o.Interval, Server: true, Host: h, Port: port, Cookie: wire.CookieString(t.cookie), Params: *t.params,
		BlockLen: t.params.BlockLen(1460), Started: time.Now(), Version: version.IperfString(), SystemInfo: version.SystemInfo()}
	if tc, ok := t.ctrl.(*net.TCPConn); ok {
		if rc, err := tc.SyscallConn(); err == nil {
			m.MSS, _ = sockopt.MSS(rc)
		}
	}
	for _, s := range streams {
		c := result.ConnOf(s.ID, s.Socket, s.Local, s.Remote)
		m.Connected = append(m.Connected, c)
	}
	if rc := streams[0].RawConn(); rc != nil {
		m.SndBufActual, m.RcvBufActual, _ = sockopt.Buffers(rc)
		if cc, err := sockopt.Congestion(rc); err == nil {
			m.CongestionCC = cc
		}
	}
	return m
}

// serve runs the data phase and the end of the test.
func (t *session) serve(ctx context.Context, streams []*engine.Stream) {
	p := t.params
	m := t.meta(streams)
	sends := false
	for _, s := range streams {
		sends = sends || s.Sender
	}
	t.pr.MaxIntervals = maxKeptIntervals(len(streams))
	t.pr.Start(m, sends, sockopt.HasTCPInfo && !p.UDP)
	t.test = engine.NewTest(engine.Config{
		BlockLen: m.BlockLen, Rate: float64(p.Bandwidth), ZeroCopy: p.ZeroCopy, SkipRxCopy: p.SkipRxCopy, NoDelay: p.NoDelay, UDP64: p.UDPCounters64,
		Interval: t.srv.o.Interval, Omit: time.Duration(p.Omit) * time.Second, OnInterval: t.pr.Interval,
		Ticks: t.srv.o.ticks, Procs: t.srv.procs,
		RcvbufErrors: t.udpDrops(p),
	}, streams)
	defer func() {
		t.test.Stop()
		t.test.CloseStreams()
		t.emit()
		if f := t.srv.o.OnTestEnd; f != nil && !t.recorded {
			f(TestRecord{UDP: p.UDP})
		}
	}()
	if p.UDP {
		t.srv.udp.register(streams, t.test, p.UDPCounters64)
	}
	if err := wire.WriteState(t.ctrl, wire.TestStart); err != nil {
		t.logf("control connection: %v", err)
		return
	}
	// The streams run before the client hears TEST_RUNNING: its first
	// bytes find a reader waiting.
	t.test.Start()
	if err := wire.WriteState(t.ctrl, wire.TestRunning); err != nil {
		t.logf("control connection: %v", err)
		return
	}
	if !t.waitEnd(ctx) {
		return
	}
	t.test.Stop()
	t.test.CloseStreams()
	t.exchange(m)
}

// waitEnd waits for TEST_END while enforcing the watchdogs. It reports
// whether the test ended normally.
func (t *session) waitEnd(ctx context.Context) bool {
	p := t.params
	states := make(chan wire.State, 1)
	errc := make(chan error, 1)
	read := make(chan struct{}) // closed once the client's next message or hang-up is read
	go func() {
		defer close(read)
		st, err := wire.ReadState(t.ctrl)
		if err != nil {
			errc <- err
			return
		}
		states <- st
	}()
	var watchdog, capped <-chan time.Time
	if p.Time > 0 {
		w := time.NewTimer(time.Duration(p.Time+p.Omit+40) * time.Second)
		defer w.Stop()
		watchdog = w.C
	}
	if max := t.srv.o.MaxDuration; max > 0 && p.Time == 0 {
		// -n and -k tests have no time of their own: the cap ends them
		// (a trickle of a byte every few seconds holds no slot forever).
		c := time.NewTimer(time.Duration(max) * time.Second)
		defer c.Stop()
		capped = c.C
	}
	tick := time.NewTicker(min(time.Second, t.srv.o.RcvTimeout/4))
	defer tick.Stop()
	lastBytes, lastProgress := int64(-1), time.Now()
	rate := rateWindow{l: t.srv.o.RateLimit}
	for {
		select {
		case st := <-states:
			switch st {
			case wire.TestEnd:
				return true
			case wire.ClientTerminate:
				t.logf("the client has terminated")
			default:
				t.logf("unexpected control message %v during the test", st)
				t.failLater(wire.Errorf(wire.IEMessage), nil) // the reader has ended
			}
			return false
		case err := <-errc:
			t.logf("control socket closed unexpectedly: %v", err)
			return false
		case <-capped:
			t.logf("test ended at the server's maximum duration (%d s)", t.srv.o.MaxDuration)
			t.failLater(wire.Errorf(wire.IEMaxDuration), read)
			return false
		case <-watchdog:
			t.logf("test duration watchdog fired: no TEST_END after %d s", p.Time+p.Omit+40)
			t.failLater(wire.Errorf(wire.IEServerTestExpire), read)
			return false
		case <-ctx.Done():
			t.ctrl.SetWriteDeadline(time.Now().Add(time.Second))
			wire.WriteState(t.ctrl, wire.ServerTerminate)
			return false
		case now := <-tick.C:
			b := t.test.TotalBytes()
			if rate.over(now, b) {
				t.logf("the test's streams averaged above the server's limit of %.0f bit/s over %v", rate.l.Bits, rate.l.Every)
				t.failLater(wire.Errorf(wire.IETotalRate), read)
				return false
			}
			if b != lastBytes {
				lastBytes, lastProgress = b, now
			} else if now.Sub(lastProgress) > t.srv.o.RcvTimeout {
				t.logf("no data moved for %v", t.srv.o.RcvTimeout)
				t.failLater(wire.Errorf(wire.IENoMsg), read)
				return false
			}
		}
	}
}

// failLater tells the client the test failed. While the control
// connection is still read (heard closes when it is), the streams are
// left open, unread and unsent, until the client's next message or
// hang-up, or 2 s: a sender's next write then meets a full window
// rather than a reset, and the client reports the server's error.
func (t *session) failLater(err *wire.Error, heard <-chan struct{}) {
	t.ctrl.SetWriteDeadline(time.Now().Add(5 * time.Second))
	wire.WriteServerError(t.ctrl, err.Code, 0)
	if heard == nil || t.test == nil {
		return
	}
	t.test.Stop()
	linger := time.NewTimer(2 * time.Second)
	defer linger.Stop()
	select {
	case <-heard:
	case <-linger.C:
	}
}

// exchange sends EXCHANGE_RESULTS, swaps results, and finishes.
func (t *session) exchange(m result.Meta) {
	t.ctrl.SetDeadline(time.Now().Add(resultsTimeout))
	if err := wire.WriteState(t.ctrl, wire.ExchangeResults); err != nil {
		t.logf("control connection: %v", err)
		return
	}
	body, err := wire.ReadJSON(t.ctrl, wire.MaxResultsJSON)
	if err != nil {
		t.logf("%v: %v", wire.Errorf(wire.IERecvResults), err)
		return
	}
	peer, err := wire.ParseResults(body)
	if err != nil {
		t.logf("%v: %v", wire.Errorf(wire.IERecvResults), err)
		return
	}
	totals := t.test.Totals()
	cpu := t.test.CPU()
	sum := result.Summarize(m, totals, peer, cpu)
	rec := t.record(m, totals, peer, cpu.Total, peer.CPUTotal)
	if f := t.srv.o.OnTestEnd; f != nil {
		t.recorded = true
		defer f(rec)
	}
	ext := wire.Ext{Version: version.Version, Cores: runtime.NumCPU(), SndBuf: m.SndBufActual, RcvBuf: m.RcvBufActual, Streams: view.ExtStreams(totals),
		Received: view.Received(totals), IntervalsLeftOut: t.pr.IntervalsLeftOut()}
	if n := t.test.RcvbufErrors(); n >= 0 {
		ext.RcvbufErrors = &n
	}
	if n := ext.IntervalsLeftOut; n > 0 {
		t.logf("the report keeps the first and last %d intervals; %d between them were left out", t.pr.MaxIntervals/2, n)
	}
	t.pr.End(sum, documentExt{Ext: ext, Limits: rec.verdicts()})
	for _, v := range rec.verdicts() {
		t.pr.Textf("%s", v.Line())
	}
	res := view.Results(totals, cpu, m.CongestionCC)
	if raw, err := json.Marshal(ext); err == nil {
		res.Tcptune = raw
	}
	if t.params.GetServerOutput {
		if t.srv.o.Mode == report.Text {
			res.ServerOutputText = t.text.String()
		} else if raw, err := json.Marshal(t.pr.Document()); err == nil {
			res.ServerOutputJSON = raw
		}
	}
	if err := wire.WriteJSON(t.ctrl, res); err != nil {
		t.logf("sending results: %v", err)
		return
	}
	if err := wire.WriteState(t.ctrl, wire.DisplayResults); err != nil {
		t.logf("control connection: %v", err)
		return
	}
	// IPERF_DONE then EOF (3.21+ half-closes first), or EOF alone.
	t.ctrl.SetReadDeadline(time.Now().Add(10 * time.Second))
	var one [1]byte
	if n, _ := t.ctrl.Read(one[:]); n == 1 && wire.State(int8(one[0])) != wire.IperfDone {
		t.logf("unexpected control message %d after DISPLAY_RESULTS", int8(one[0]))
	}
}

// emit prints the test's JSON document (text was printed live).
func (t *session) emit() {
	o := t.srv.o
	t.srv.outMu.Lock()
	defer t.srv.outMu.Unlock()
	if o.Mode != report.Text && t.pr != nil {
		o.Out.Write(report.Indent(t.pr.Document()))
	}
}
