// Package server is tcptune's iperf3-compatible server. Unlike iperf3 it
// runs several tests at once (up to MaxTests), telling their data
// connections apart by cookie; past that it refuses like a busy iperf3.
// Every read has a deadline and every queue a bound, so garbage, slow
// or vanished peers cost a log line, not the server.
package server

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tcptune/tcptune/internal/auth"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/sockopt"
	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/wire"
)

// Options configure a server.
type Options struct {
	Bind     string // -B
	Port     int    // -p
	OneOff   bool   // -1
	MaxTests int    // --max-tests
	// MaxRawStreams bounds the streams that hold an OS thread each,
	// across all tests (0 = engine.DefaultMaxRaw); the rest use the
	// netpoller. See engine.Procs.
	MaxRawStreams int
	MaxDuration   int // --server-max-duration, seconds (0 = none): refused longer, ended at it
	// MaxTestMemory and MaxMemory bound the buffer memory one test and
	// all running tests may make the server hold (see testMemory); 0:
	// half of tcp_mem's pressure threshold, and the threshold.
	MaxTestMemory, MaxMemory int64
	// MaxPerClient is --max-tests-per-client: tests one address may
	// hold at once (0 = 2).
	MaxPerClient int
	// HandshakeTimeout is how long a new connection has to send its
	// cookie (0 = 10 s).
	HandshakeTimeout time.Duration
	Mode             report.Mode
	Interval         time.Duration
	RcvTimeout       time.Duration
	RateLimit        RateLimit // --server-bitrate-limit, per test (0 = none)
	Out              io.Writer // reports
	Log              *slog.Logger
	// Ready, if set, receives the listening address once the server listens.
	Ready chan<- net.Addr
	// SetupTimeout bounds a test's set-up: its parameters are due this
	// long after its cookie, and its data streams this long plus 250 ms
	// a stream after them (0 = 5 s).
	SetupTimeout time.Duration
	// Sysctl is where the allowed congestion controls are read; the zero
	// value is the live /proc/sys.
	Sysctl sysctl.FS
	// CongestionFromStart (--cc-from-start) sets a test's -C on the
	// listening socket while its data connections are accepted, so that
	// they run it from their first packet, as on a host whose default it
	// is; otherwise it is set on each connection once accepted, as
	// iperf3's server does, and a connection begun under a pacing default
	// (BBR) keeps pacing. Tests take turns at accepting their streams.
	CongestionFromStart bool
	// Auth, if set, requires every test to carry a token it accepts
	// (iperf3's --rsa-private-key-path and --authorized-users-path).
	Auth *auth.Verifier
	// OnTestEnd, if set, receives each test that exchanged its results
	// (serve --prometheus). It runs on the test's goroutine.
	OnTestEnd func(TestRecord)
	// ticks, if set, clocks every test's intervals (tests simulate long
	// tests with it).
	ticks <-chan time.Time
}

func (o Options) sysctl() sysctl.FS {
	if o.Sysctl.Root == "" {
		return sysctl.Host()
	}
	return o.Sysctl
}

// Limits on unauthenticated work.
const (
	maxPending       = 256                    // connections that have not yet sent a cookie
	handshakeTimeout = 10 * time.Second       // to send the cookie
	setupTimeout     = 5 * time.Second        // from the cookie to the parameters
	perStreamSetup   = 250 * time.Millisecond // and then for each data stream, plus 2 RTTs
	maxStreamSetup   = 90 * time.Second       // the most any test's streams may take
	resultsTimeout   = 30 * time.Second
)

// Server serves tests until its context ends.
type Server struct {
	o       Options
	pending *list.List // connections that have not sent a cookie yet
	evicted int

	mu        sync.Mutex
	tests     map[string]*session // by cookie
	active    int
	perClient map[string]int // running tests by client (address, or IPv6 /64)
	setups    int            // control connections past the cookie, before their parameters
	setupPer  map[string]int // the same by client
	serial    int
	// memory is what the running tests' estimates hold of memBudget;
	// testBudget bounds one test.
	memory, memBudget, testBudget int64
	udp                           *udpMux
	procs                         *engine.Procs // the one GOMAXPROCS and thread budget of every test
	// failedLogins rate-limits the log lines of refused logins.
	failedLogins limiter
	outMu        sync.Mutex
	stopServe    context.CancelFunc
	// ln is the listener (set by Serve); lnMu is held by the test whose
	// data connections it is accepting with CongestionFromStart.
	ln   syscall.RawConn
	lnMu sync.Mutex
}

// New returns a server with defaults filled in.
func New(o Options) *Server {
	if o.Port == 0 {
		o.Port = wire.DefaultPort
	}
	if o.MaxPerClient <= 0 {
		o.MaxPerClient = 2
	}
	if o.SetupTimeout <= 0 {
		o.SetupTimeout = setupTimeout
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = handshakeTimeout
	}
	if o.MaxTests <= 0 {
		o.MaxTests = 4
	}
	if o.RcvTimeout <= 0 {
		o.RcvTimeout = 120 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	s := &Server{o: o, pending: list.New(), tests: map[string]*session{}, perClient: map[string]int{}, setupPer: map[string]int{}}
	s.udp = &udpMux{log: o.Log}
	if o.MaxRawStreams <= 0 {
		o.MaxRawStreams = engine.DefaultMaxRaw
	}
	s.o = o
	s.procs = engine.NewProcsMax(o.MaxRawStreams)
	s.testBudget, s.memBudget = memoryBudgets(o, o.sysctl())
	return s
}

// failedLoginEvery is the most often a refused login is logged.
const failedLoginEvery = 10 * time.Second

// limiter lets one event through per failedLoginEvery and counts the
// others.
type limiter struct {
	mu    sync.Mutex
	last  time.Time
	quiet int
}

// allow reports whether the event at now may be logged, and how many
// were left out since the last one that was.
func (l *limiter) allow(now time.Time) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < failedLoginEvery {
		l.quiet++
		return 0, false
	}
	q := l.quiet
	l.last, l.quiet = now, 0
	return q, true
}

// ListenAndServe listens on the configured address and serves.
func (s *Server) ListenAndServe(ctx context.Context) error {
	addr := net.JoinHostPort(s.o.Bind, strconv.Itoa(s.o.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("unable to start listener on %s: %w", addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve accepts connections on ln until ctx ends (or, with OneOff,
// after one test).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer ln.Close()
	s.udp.bind = ln.Addr().(*net.TCPAddr)
	if tl, ok := ln.(*net.TCPListener); ok {
		if rc, err := tl.SyscallConn(); err == nil {
			s.mu.Lock()
			s.ln = rc
			s.mu.Unlock()
		}
	}
	if s.o.Ready != nil {
		s.o.Ready <- ln.Addr()
	}
	s.banner()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.stopServe = cancel
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	var seq uint64 // accept order: it decides data streams' roles
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			s.o.Log.Warn("accept failed", "err", err)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		el := s.admitPending(c)
		seq++
		wg.Add(1)
		go func(seq uint64) {
			defer wg.Done()
			s.handle(ctx, c, el, seq)
		}(seq)
	}
}

func (s *Server) banner() {
	if s.o.Mode != report.Text {
		return
	}
	s.print("-----------------------------------------------------------\nServer listening on %d (tcptune, up to %d tests at once)\n-----------------------------------------------------------", s.o.Port, s.o.MaxTests)
}

func (s *Server) print(format string, args ...any) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	fmt.Fprintf(s.o.Out, format+"\n", args...)
}

// admitPending records a connection that has not yet identified itself. When
// maxPending are already waiting, the oldest is closed: idle connections
// (slowloris) cannot lock out real clients.
func (s *Server) admitPending(c net.Conn) *list.Element {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending.Len() >= maxPending {
		old := s.pending.Front()
		oc := old.Value.(net.Conn)
		s.pending.Remove(old)
		old.Value = nil
		oc.Close()
		s.evicted++
		if s.evicted%100 == 1 {
			s.o.Log.Warn("closing the oldest connections that sent no cookie", "waiting", maxPending, "closed_so_far", s.evicted)
		}
	}
	return s.pending.PushBack(c)
}

// lockedOut serialises writes of concurrent tests to the output.
func (s *Server) lockedOut() io.Writer { return lockedWriter{s} }

type lockedWriter struct{ s *Server }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.s.outMu.Lock()
	defer w.s.outMu.Unlock()
	return w.s.o.Out.Write(b)
}

// handle reads a new connection's cookie and routes it: a data stream
// of a test that awaits streams, or the control connection of a new test.
func (s *Server) handle(ctx context.Context, c net.Conn, el *list.Element, seq uint64) {
	released := false
	release := func() {
		if !released {
			released = true
			s.mu.Lock()
			if el.Value != nil {
				s.pending.Remove(el)
				el.Value = nil
			}
			s.mu.Unlock()
		}
	}
	defer release()
	c.SetReadDeadline(time.Now().Add(s.o.HandshakeTimeout))
	var cookie [wire.CookieSize]byte
	if _, err := io.ReadFull(c, cookie[:]); err != nil {
		s.o.Log.Warn("closing connection: no cookie", "peer", c.RemoteAddr().String(), "err", err)
		c.Close()
		return
	}
	if !wire.ValidCookie(cookie) {
		s.o.Log.Warn("closing connection: garbage instead of a cookie", "peer", c.RemoteAddr().String(), "bytes", printable(cookie[:16]))
		wire.WriteState(c, wire.AccessDenied)
		c.Close()
		return
	}
	key := string(cookie[:])
	s.mu.Lock()
	if t, ok := s.tests[key]; ok {
		s.mu.Unlock()
		if !t.offerStream(accepted{c, seq}) {
			s.o.Log.Warn("closing connection: its test is not accepting streams", "peer", c.RemoteAddr().String(), "test", t.serial)
			wire.WriteState(c, wire.AccessDenied)
			c.Close()
		}
		return
	}
	// A new control connection takes a set-up place, bounded in all and
	// per client as sshd's MaxStartups bounds unauthenticated
	// connections; it takes a test slot only once its parameters (and
	// its login) arrive (admit), so connections that send a cookie and
	// nothing more hold no test slot.
	who := clientAddr(c)
	if s.setups >= maxSetups(s.o) {
		s.mu.Unlock()
		s.o.Log.Warn("refusing test: too many tests setting up", "peer", c.RemoteAddr().String(), "setting_up", s.setups)
		wire.WriteState(c, wire.AccessDenied)
		c.Close()
		return
	}
	if s.setupPer[who] >= setupsPerClient {
		s.mu.Unlock()
		s.o.Log.Warn("refusing test: this client has its share of tests setting up", "peer", c.RemoteAddr().String(), "setting_up", s.setupPer[who])
		wire.WriteState(c, wire.AccessDenied)
		c.Close()
		return
	}
	s.setups++
	s.setupPer[who]++
	s.serial++
	t := newSession(s, c, cookie, s.serial)
	t.who = who
	s.tests[key] = t
	s.mu.Unlock()
	release() // a set-up place now bounds it
	t.run(ctx)
	s.mu.Lock()
	delete(s.tests, key)
	if t.admitted {
		s.active--
		s.memory -= t.memory
		if s.perClient[who]--; s.perClient[who] <= 0 {
			delete(s.perClient, who)
		}
	} else {
		s.endSetup(who)
	}
	s.mu.Unlock()
	if s.o.OneOff {
		s.mu.Lock()
		s.stopServe()
		s.mu.Unlock()
	}
}

// maxSetups bounds the control connections between cookie and
// parameters: four times the test slots, at least 32; setupsPerClient
// is each client's share (an address, or an IPv6 /64). Each has the
// set-up deadline (5 s) to send its parameters.
func maxSetups(o Options) int { return max(32, 4*o.MaxTests) }

const setupsPerClient = 4

// endSetup gives back a set-up place (s.mu held).
func (s *Server) endSetup(who string) {
	s.setups--
	if s.setupPer[who]--; s.setupPer[who] <= 0 {
		delete(s.setupPer, who)
	}
}

// admit moves a test from set-up to a test slot once its parameters
// (and login) arrived, with mem bytes of the memory budget; it says why
// not when the slots or the budget are full, and whether the test alone
// is over its budget (tooBig: it would never fit).
func (s *Server) admit(t *session, mem int64) (tooBig bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.active >= s.o.MaxTests:
		return false, fmt.Errorf("busy: %d tests running (--max-tests %d)", s.active, s.o.MaxTests)
	case s.perClient[t.who] >= s.o.MaxPerClient:
		return false, fmt.Errorf("this client holds its share: %d tests running (--max-tests-per-client %d)", s.perClient[t.who], s.o.MaxPerClient)
	}
	if tooBig, err := s.reserveMemory(mem); err != nil {
		return tooBig, err
	}
	t.memory = mem
	s.endSetup(t.who)
	s.active++
	s.perClient[t.who]++
	t.admitted = true
	return false, nil
}

// clientAddr is what a per-client limit counts: the remote IPv4
// address, or the /64 of an IPv6 one (one host's, usually: counting
// exact IPv6 addresses would let a host pass the limit by the thousand).
func clientAddr(c net.Conn) string {
	a, ok := c.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return c.RemoteAddr().String()
	}
	if ip4 := a.IP.To4(); ip4 != nil {
		return ip4.String()
	}
	return a.IP.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

func printable(b []byte) string {
	return string(bytes.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '.'
		}
		return r
	}, b))
}

// Active is the number of tests running now.
func (s *Server) Active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// listenWith sets cc on the listener for the data connections of one
// test (CongestionFromStart), which take turns; restore puts back the
// listener's own and lets the next test in.
func (s *Server) listenWith(cc string) (restore func(), err error) {
	s.mu.Lock()
	ln := s.ln
	s.mu.Unlock()
	if ln == nil {
		if cc != "" {
			return func() {}, errors.New("TCP_CONGESTION on the listener: not a TCP listener")
		}
		return func() {}, nil
	}
	s.lnMu.Lock()
	if cc == "" { // a test without -C: its connections get the default
		return s.lnMu.Unlock, nil
	}
	old, err := sockopt.Congestion(ln)
	if err == nil {
		err = sockopt.SetCongestion(ln, cc)
	}
	if err != nil {
		s.lnMu.Unlock()
		return func() {}, fmt.Errorf("TCP_CONGESTION %q on the listener: %w", cc, err)
	}
	return func() {
		sockopt.SetCongestion(ln, old)
		s.lnMu.Unlock()
	}, nil
}
