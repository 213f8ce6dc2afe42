// Package client runs a throughput test against an iperf3 or tcptune
// server: it speaks iperf3's control protocol, opens the data streams,
// ends the test, exchanges results, and attributes the limit.
package client

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tcptune/tcptune/internal/auth"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/procnet"
	"github.com/tcptune/tcptune/internal/result"
	"github.com/tcptune/tcptune/internal/sockopt"
	"github.com/tcptune/tcptune/internal/version"
	"github.com/tcptune/tcptune/internal/view"
	"github.com/tcptune/tcptune/internal/wire"
)

// Options are a client's settings (iperf3's client flags).
type Options struct {
	Host           string
	Port           int
	Params         wire.Params
	Interval       time.Duration
	Family         string // "", "4" or "6"
	Bind           string // -B local address
	CPort          int    // --cport: first local data port
	ConnectTimeout time.Duration
	Unit           byte
	// Omit and Time, when set, are the omitted start and the measured
	// period to the nanosecond (tune's fractional trials); the server
	// is sent whole seconds that cover them (omit rounded up).
	Omit, Time time.Duration
	// PathRate (bit/s of goodput) and IdleRTT, when known, let the
	// attribution tell a full path from a buffer limit; PathMSS is the
	// MSS PathRate is counted at (0: the streams' own).
	PathRate float64
	PathMSS  int
	IdleRTT  time.Duration
	// KeepAlive, when set, turns on TCP keepalive on the control
	// connection (--cntl-ka).
	KeepAlive *net.KeepAliveConfig
	// Auth, when set, signs the test in to a server that requires it
	// (--username, --rsa-public-key-path).
	Auth *auth.Credentials
	// Device binds every socket to a network interface (--bind-dev,
	// Linux); SndTimeout is the data sockets' TCP_USER_TIMEOUT in ms
	// (--snd-timeout, Linux).
	Device     string
	SndTimeout int
	// BusyWait is how long to keep trying a server that is busy running
	// another test (--busy-wait): again after 0.25 s, doubling to 4 s.
	// Zero fails at once, as iperf3 does.
	BusyWait time.Duration
	// RcvTimeout ends a test this side receives in (-R, --bidir) with
	// iperf3's error when nothing arrives for that long (--rcv-timeout;
	// 0 = 120 s, as iperf3).
	RcvTimeout time.Duration
	// CongestionFromStart sets -C before connect, so that each data
	// connection runs it from its first packet, as on a host whose
	// default it is (--cc-from-start; tune's trials). Otherwise it is
	// set once the connection is up, as iperf3 does (see sockOptions).
	CongestionFromStart bool
}

// Outcome is what a finished test produced.
type Outcome struct {
	Summary result.Summary
	// Views are the test's directions, each judged by its own figures
	// (package view); Limits are their verdicts.
	Views    []view.Direction
	Limits   []Verdict
	Meta     result.Meta
	Duration time.Duration // the measured period, after the omitted start
	// Ext is the "tcptune" object of the -J document; Totals and
	// Intervals are this side's streams as the engine counted them.
	Ext       *Extension
	Totals    []engine.StreamTotal
	Intervals []engine.Interval
	// From and To bound the measured period (wall clock).
	From, To time.Time
	// ControlMinRTT is the control connection's tcpi_min_rtt at the
	// end (its handshake and messages: an RTT with no data queued);
	// 0 where TCP_INFO is out of reach.
	ControlMinRTT time.Duration
}

// MinRTT is the smallest RTT any of the test's connections saw: the
// control connection's, and each of this side's streams' (whose
// minimum is taken before their data fills a queue). 0 when none is
// known.
func (o *Outcome) MinRTT() time.Duration {
	m := o.ControlMinRTT
	for _, st := range o.Totals {
		if d := time.Duration(st.MinRTT) * time.Microsecond; st.HasTCPInfo && d > 0 && (m == 0 || d < m) {
			m = d
		}
	}
	return m
}

// Received is the goodput: what the receivers counted, over all streams.
func (o *Outcome) Received() float64 {
	return o.Summary.Recv.BitsPerSecond + o.Summary.RecvRev.BitsPerSecond
}

// ErrBusy is returned when the server refuses the test.
var ErrBusy = errors.New("the server is busy running a test. try again later")

// The waits between tries of a busy server (Options.BusyWait).
const busyFirst, busyMax = 250 * time.Millisecond, 4 * time.Second

func (o *Options) network(proto string) string {
	return proto + o.Family
}

func (o *Options) ctrlTimeout() time.Duration {
	if o.ConnectTimeout > 0 {
		return o.ConnectTimeout
	}
	return 30 * time.Second
}

// Run performs one test, telling obs of it as it runs (nil: Discard),
// and returns what it measured. A busy server is tried again for up to
// o.BusyWait.
func Run(ctx context.Context, o Options, obs Observer) (*Outcome, error) {
	pr := obs
	if pr == nil {
		pr = Discard{}
	}
	out, err := run(ctx, o, pr)
	end := time.Now().Add(o.BusyWait)
	for wait := busyFirst; errors.Is(err, ErrBusy) && !time.Now().Add(wait).After(end); wait = min(2*wait, busyMax) {
		pr.Textf("the server is busy running a test: trying again in %.2g s", wait.Seconds())
		select {
		case <-ctx.Done():
			err = fmt.Errorf("interrupted: %w", context.Cause(ctx))
		case <-time.After(wait):
			out, err = run(ctx, o, pr)
		}
	}
	if err != nil {
		pr.Error(err)
	}
	return out, err
}

type session struct {
	o      Options
	pr     Observer
	ctrl   net.Conn
	cookie [wire.CookieSize]byte
	params wire.Params
	meta   result.Meta
	test   *engine.Test
	limit  *engine.Limit
	// running is test for the goroutine that watches ctx, which may run
	// while loop creates the test.
	running atomic.Pointer[engine.Test]
}

func run(ctx context.Context, o Options, pr Observer) (*Outcome, error) {
	addr := net.JoinHostPort(o.Host, strconv.Itoa(o.Port))
	d := net.Dialer{Timeout: o.ctrlTimeout()}
	if o.Bind != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(o.Bind)}
	}
	if o.Device != "" {
		d.Control = func(_, _ string, c syscall.RawConn) error { return bindDevice(c, o.Device) }
	}
	pr.Textf("Connecting to host %s, port %d", o.Host, o.Port)
	ctrl, err := d.DialContext(ctx, o.network("tcp"), addr)
	if err != nil {
		return nil, fmt.Errorf("unable to connect to server %s: %w", addr, UnwrapOp(err))
	}
	defer ctrl.Close()
	if tc, ok := ctrl.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
		if o.KeepAlive != nil {
			if err := tc.SetKeepAliveConfig(*o.KeepAlive); err != nil {
				return nil, fmt.Errorf("--cntl-ka: %w", err)
			}
		}
	}
	s := &session{o: o, pr: pr, ctrl: ctrl, cookie: wire.NewCookie(), params: o.Params}
	if o.Time > 0 {
		s.params.Omit = int(math.Ceil(o.Omit.Seconds()))
		s.params.Time = max(1, int(math.Ceil((o.Omit+o.Time).Seconds()))-s.params.Omit)
		s.params.Num, s.params.BlockCount = 0, 0
	}
	s.params.ClientVersion = wire.Version
	s.params.Tcptune = &wire.ParamsExt{Version: version.Version}
	if sc, ok := ctrl.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			if mss, err := sockopt.MSS(rc); err == nil {
				s.meta.MSS = mss
			}
		}
	}
	if s.params.UDP && s.params.Len == 0 {
		s.params.Len = s.meta.MSS
		if s.params.Len <= 0 {
			s.params.Len = 1460
		}
	}
	// Close the control connection if the caller gives up.
	stopWatch := context.AfterFunc(ctx, func() {
		if t := s.running.Load(); t != nil && !t.Stopped() {
			wire.WriteState(ctrl, wire.ClientTerminate)
		}
		ctrl.SetDeadline(time.Unix(1, 0))
	})
	defer stopWatch()
	if _, err := ctrl.Write(s.cookie[:]); err != nil {
		return nil, fmt.Errorf("control connection: %w", err)
	}
	out, err := s.loop(ctx)
	if out != nil {
		out.ControlMinRTT = controlMinRTT(ctrl)
	}
	if s.test != nil {
		s.test.Stop()
		s.test.CloseStreams()
	}
	if err != nil && ctx.Err() != nil {
		if s.test != nil && s.test.Started() {
			// As iperf3 3.19+: what was sent so far is reported (the
			// server's side unknown), and the run counts as ended.
			return s.partial(), interrupted(context.Cause(ctx))
		}
		return out, fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	return out, err
}

func controlMinRTT(c net.Conn) time.Duration {
	ti, err := sockopt.TCPInfoOf(c)
	if err != nil || ti.MinRTT == 0 || ti.MinRTT == ^uint32(0) {
		return 0
	}
	return time.Duration(ti.MinRTT) * time.Microsecond
}

// ErrInterrupted is returned, wrapped, when a signal ended a test that
// had started; the Outcome then holds this side's figures.
var ErrInterrupted = errors.New("interrupt - the client has terminated")

func interrupted(cause error) error {
	var sig interface{ Signal() os.Signal }
	if errors.As(cause, &sig) {
		return fmt.Errorf("%w by signal %v", ErrInterrupted, cause)
	}
	return fmt.Errorf("%w: %v", ErrInterrupted, cause)
}

// partial reports a test cut short: this side's totals, nothing from
// the server.
func (s *session) partial() *Outcome {
	t := s.test
	totals := t.Totals()
	sum := result.Summarize(s.meta, totals, nil, t.CPU())
	x := extension(s.meta, totals, nil, nil)
	s.pr.End(sum, x)
	from, to := t.Period()
	return &Outcome{Summary: sum, Meta: s.meta, Duration: t.Duration(), Ext: x, Totals: totals, Intervals: t.Intervals(), From: from, To: to}
}

func (s *session) readState(timeout time.Duration) (wire.State, error) {
	s.ctrl.SetReadDeadline(time.Now().Add(timeout))
	st, err := wire.ReadState(s.ctrl)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, wire.Errorf(wire.IECtrlClose)
		}
		return 0, fmt.Errorf("control connection: %w", UnwrapOp(err))
	}
	return st, nil
}

func (s *session) loop(ctx context.Context) (*Outcome, error) {
	timeout := s.o.ctrlTimeout()
	var outcome *Outcome
	paramsPending := false // parameters sent, the server's answer not yet read
	for {
		st, err := s.readState(timeout)
		if err != nil {
			return outcome, s.explainRefusal(err, paramsPending)
		}
		switch st {
		case wire.ParamExchange:
			paramsPending = true
			if s.o.Auth != nil {
				// The token carries the time: it is made as it is sent.
				if s.params.Authtoken, err = s.o.Auth.Token(time.Now()); err != nil {
					return nil, fmt.Errorf("authentication: %w", err)
				}
			}
			body, err := s.params.Encode()
			if err != nil {
				return nil, fmt.Errorf("parameters: %w", err)
			}
			if err := wire.WriteRaw(s.ctrl, body); err != nil {
				return nil, fmt.Errorf("sending parameters: %w", err)
			}
		case wire.CreateStreams:
			paramsPending = false
			if err := s.createStreams(ctx); err != nil {
				return nil, err
			}
		case wire.TestStart:
			// TEST_RUNNING follows at once.
		case wire.TestRunning:
			if s.test == nil {
				return nil, fmt.Errorf("server started the test before streams were created")
			}
			if err := s.runData(ctx); err != nil {
				return nil, err
			}
			timeout = 60 * time.Second
		case wire.ExchangeResults:
			o, err := s.exchangeResults()
			if err != nil {
				return nil, err
			}
			outcome = o
		case wire.DisplayResults:
			wire.WriteState(s.ctrl, wire.IperfDone)
			if tc, ok := s.ctrl.(*net.TCPConn); ok {
				tc.CloseWrite()
				s.ctrl.SetReadDeadline(time.Now().Add(2 * time.Second))
				io.Copy(io.Discard, io.LimitReader(s.ctrl, 1<<20))
			}
			if outcome == nil {
				return nil, fmt.Errorf("server displayed results before exchanging them")
			}
			return outcome, nil
		case wire.AccessDenied:
			return nil, ErrBusy
		case wire.ServerError:
			s.ctrl.SetReadDeadline(time.Now().Add(5 * time.Second))
			e, err := wire.ReadErrorPayload(s.ctrl)
			if err != nil {
				return nil, fmt.Errorf("server error (no details: %v)", err)
			}
			return nil, s.explainRefusal(fmt.Errorf("server error: %w", e), paramsPending)
		case wire.ServerTerminate:
			return nil, wire.Errorf(wire.IEServerTerm)
		default:
			return nil, fmt.Errorf("%w (%d)", wire.Errorf(wire.IEMessage), int8(st))
		}
	}
}

// explainRefusal adds what the evidence allows to an error that ended a
// test right after its parameters were sent: iperf3 servers since 3.19
// refuse a login by closing the connection, or with an unrelated error
// number, rather than with "test authorization failed".
func (s *session) explainRefusal(err error, paramsPending bool) error {
	var we *wire.Error
	if !paramsPending || (errors.As(err, &we) && we.Code == wire.IEAuthTest) {
		return err
	}
	if s.o.Auth != nil {
		return fmt.Errorf("%w (the server ended the test on reading the credentials: it may have refused them; iperf3 3.19+ servers do not say why)", err)
	}
	return fmt.Errorf("%w (the server ended the test on reading the parameters; a server that requires authentication does so: see --username)", err)
}

// bindDevice binds a socket to dev (--bind-dev): its failure ends the
// test, since traffic would leave by another interface.
func bindDevice(c syscall.RawConn, dev string) error {
	if err := sockopt.SetDevice(c, dev); err != nil {
		return fmt.Errorf("--bind-dev %s: %w", dev, err)
	}
	return nil
}

// sockOptions are the options for data sockets, set before connect.
// The congestion control is not among them: iperf3 sets it once the
// connection is up (setCongestion), and so does tcptune, since where
// it is set changes the flow. A connection made under a control that
// paces (BBR, the default of many hosts) keeps TCP's internal pacing
// when another control takes over; one that starts with cubic never
// paces (without fq).
func (s *session) sockOptions() sockopt.Options {
	o := sockopt.Options{Window: s.params.Window, MSS: s.params.MSS, TOS: s.params.TOS, FQRate: s.params.FQRate, DontFrag: s.params.DontFragment, UserTimeout: s.o.SndTimeout}
	if s.o.CongestionFromStart {
		o.Congestion = s.params.Congestion
	}
	return o
}

// setCongestion sets -C on a connected data socket, as iperf3 does
// (see sockOptions); a refusal is a warning, as for the other options.
func (s *session) setCongestion(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if s.params.Congestion == "" || s.o.CongestionFromStart || !ok {
		return
	}
	rc, err := tc.SyscallConn()
	if err == nil {
		err = sockopt.SetCongestion(rc, s.params.Congestion)
	}
	if err != nil {
		s.pr.Warnf("warning: TCP_CONGESTION %q: %v", s.params.Congestion, err)
	}
}

func (s *session) dataDialer(i int) *net.Dialer {
	d := &net.Dialer{Timeout: s.o.ctrlTimeout()}
	ipv6 := s.o.Family == "6"
	opts := s.sockOptions()
	var ip net.IP
	if s.o.Bind != "" {
		ip = net.ParseIP(s.o.Bind)
	}
	port := 0
	if s.o.CPort > 0 {
		port = s.o.CPort + i
	}
	var local *net.TCPAddr // bound by the flow label's connect (-L)
	if ip != nil || port > 0 {
		switch {
		case s.params.UDP:
			d.LocalAddr = &net.UDPAddr{IP: ip, Port: port}
		case s.params.FlowLabel > 0:
			local = &net.TCPAddr{IP: ip, Port: port}
		default:
			d.LocalAddr = &net.TCPAddr{IP: ip, Port: port}
		}
	}
	d.Control = func(network, address string, c syscall.RawConn) error {
		if s.o.Device != "" {
			if err := bindDevice(c, s.o.Device); err != nil {
				return err
			}
		}
		if err := opts.Apply(c, ipv6 || sockopt.IsIPv6(address)); err != nil {
			s.pr.Warnf("warning: %v", err)
		}
		if l := s.params.FlowLabel; l > 0 && !s.params.UDP {
			if err := sockopt.ConnectWithFlowLabel(c, local, address, l); err != nil {
				return fmt.Errorf("-L/--flowlabel: %w", err)
			}
		}
		return nil
	}
	return d
}

func (s *session) createStreams(ctx context.Context) error {
	n := s.params.Parallel
	total := n
	if s.params.Bidirectional {
		total = 2 * n
	}
	addr := net.JoinHostPort(s.o.Host, strconv.Itoa(s.o.Port))
	var streams []*engine.Stream
	for i := 0; i < total; i++ {
		id := 1
		if i > 0 {
			id = i + 2 // iperf3 numbers streams 1, 3, 4, 5, ...
		}
		reverse := s.params.Reverse || (s.params.Bidirectional && i >= n)
		sender := !reverse
		d := s.dataDialer(i)
		var st *engine.Stream
		if s.params.UDP {
			c, err := d.DialContext(ctx, s.o.network("udp"), addr)
			if err != nil {
				return fmt.Errorf("%w: %v", wire.Errorf(wire.IEStreamConnect), UnwrapOp(err))
			}
			if err := udpHandshake(c, s.ctrl, s.resendEvery()); err != nil {
				c.Close()
				return err
			}
			st = engine.NewUDPStream(id, c, sender)
		} else {
			c, err := d.DialContext(ctx, s.o.network("tcp"), addr)
			if err != nil {
				return fmt.Errorf("%w: %v", wire.Errorf(wire.IEStreamConnect), UnwrapOp(err))
			}
			s.setCongestion(c)
			if _, err := c.Write(s.cookie[:]); err != nil {
				c.Close()
				return fmt.Errorf("%w: %v", wire.Errorf(wire.IEStreamWrite), err)
			}
			st = engine.NewTCPStream(id, c, sender)
		}
		st.Reverse = s.params.Bidirectional && i >= n
		streams = append(streams, st)
	}
	blk := s.params.BlockLen(s.meta.MSS)
	s.limit = engine.NewLimit(s.params.Num, s.params.BlockCount, blk)
	cfg := engine.Config{
		BlockLen: blk, Rate: float64(s.params.Bandwidth), ZeroCopy: s.params.ZeroCopy, SkipRxCopy: s.params.SkipRxCopy, NoDelay: s.params.NoDelay,
		UDP64: s.params.UDPCounters64, Interval: s.o.Interval, Omit: s.omit(),
		Limit: s.limit, OnInterval: s.pr.Interval, KeepIntervals: true,
	}
	if s.params.UDP && (s.params.Reverse || s.params.Bidirectional) {
		cfg.RcvbufErrors = procnet.FS{Root: "/"}.RcvbufErrors
	}
	s.test = engine.NewTest(cfg, streams)
	s.running.Store(s.test)
	s.describe(streams, blk)
	return nil
}

// udpHandshake sends iperf3's UDP hello and waits for the reply,
// sending it again every interval (doubling, at most a second) for up to
// 30 s: on a lossy path the hello or the reply is lost. A tcptune server
// answers a repeated hello; a stock iperf3 does not, but when its reply
// was lost it has moved on, and the control connection says so (the
// next state is waiting there): that is taken as the reply. In -R an
// early data datagram also shows the hello arrived.
func udpHandshake(c, ctrl net.Conn, interval time.Duration) error {
	deadline := time.Now().Add(30 * time.Second)
	defer c.SetReadDeadline(time.Time{})
	buf := make([]byte, 65536)
	for {
		if _, err := c.Write(engine.UDPConnectMsg); err != nil {
			return fmt.Errorf("%w: %v", wire.Errorf(wire.IEStreamWrite), err)
		}
		next := time.Now().Add(interval)
		if next.After(deadline) {
			next = deadline
		}
		c.SetReadDeadline(next)
		n, err := c.Read(buf)
		switch {
		case err == nil && engine.IsUDPReply(buf[:n]):
			return nil
		case err == nil && n > 4:
			return nil // a data datagram (-R): the server has the stream
		case err == nil:
			continue // a stray datagram: ask again
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return fmt.Errorf("%w: no UDP connect reply: %v", wire.Errorf(wire.IEStreamRead), UnwrapOp(err))
		}
		if pending(ctrl) {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: no UDP connect reply within 30 s", wire.Errorf(wire.IEStreamRead))
		}
		interval = min(2*interval, time.Second)
	}
}

// resendEvery is how long to wait for a UDP connect reply before sending
// the hello again: about one and a half round trips of the control
// connection (tcpi_rtt), within 20 ms .. 1 s.
func (s *session) resendEvery() time.Duration {
	d := 250 * time.Millisecond
	if ti, err := sockopt.TCPInfoOf(s.ctrl); err == nil && ti.RTT > 0 {
		d = time.Duration(ti.RTT) * time.Microsecond * 3 / 2
	}
	return min(max(d, 20*time.Millisecond), time.Second)
}

func (s *session) describe(streams []*engine.Stream, blk int) {
	m := &s.meta
	m.Host, m.Port = s.o.Host, s.o.Port
	m.Cookie = wire.CookieString(s.cookie)
	m.Params = s.params
	m.BlockLen = blk
	m.Interval = s.o.Interval
	m.Started = time.Now()
	m.Version = version.IperfString()
	m.SystemInfo = version.SystemInfo()
	m.Unit = s.o.Unit
	sends := false
	for _, st := range streams {
		c := result.ConnOf(st.ID, st.Socket, st.Local, st.Remote)
		m.Connected = append(m.Connected, c)
		sends = sends || st.Sender
	}
	first := streams[0]
	rc := first.RawConn()
	if rc != nil {
		m.SndBufActual, m.RcvBufActual, _ = sockopt.Buffers(rc)
		if cc, err := sockopt.Congestion(rc); err == nil {
			m.CongestionCC = cc
		}
	}
	s.pr.Start(*m, sends, sockopt.HasTCPInfo && !s.params.UDP)
	if rc != nil {
		s.pr.Textf("%s", bufferLine(s.params.Window, m.SndBufActual, m.RcvBufActual, s.params.UDP))
		if ti := first.TCPInfo(); ti != nil {
			s.pr.Textf("MSS %d bytes, path MTU %d bytes", ti.SndMSS, ti.PMTU)
		}
	}
}

// omit and duration are the client's own omitted start and measured
// period: exact when given, else the parameters' whole seconds.
func (s *session) omit() time.Duration {
	if s.o.Time > 0 {
		return s.o.Omit
	}
	return time.Duration(s.params.Omit) * time.Second
}

func (s *session) duration() time.Duration {
	if s.o.Time > 0 {
		return s.o.Time
	}
	return time.Duration(s.params.Time) * time.Second
}

func (s *session) runData(ctx context.Context) error {
	s.test.Start()
	var timer <-chan time.Time
	if s.params.Time > 0 {
		t := time.NewTimer(s.omit() + s.duration())
		defer t.Stop()
		timer = t.C
	}
	// Watch the control connection for an early end (SERVER_TERMINATE,
	// an error, EOF) while data flows.
	early := make(chan error, 1)
	watch := make(chan struct{})
	go func() {
		defer close(watch)
		one := make([]byte, 1)
		s.ctrl.SetReadDeadline(time.Time{})
		n, err := s.ctrl.Read(one)
		switch {
		case n == 1 && wire.State(int8(one[0])) == wire.ExchangeResults:
			early <- nil
		case n == 1 && wire.State(int8(one[0])) == wire.ServerError:
			s.ctrl.SetReadDeadline(time.Now().Add(5 * time.Second))
			e, perr := wire.ReadErrorPayload(s.ctrl)
			if perr != nil {
				early <- fmt.Errorf("server error")
			} else {
				early <- fmt.Errorf("server error: %w", e)
			}
		case n == 1 && wire.State(int8(one[0])) == wire.ServerTerminate:
			early <- wire.Errorf(wire.IEServerTerm)
		case n == 1:
			early <- fmt.Errorf("%w (%d)", wire.Errorf(wire.IEMessage), int8(one[0]))
		case errors.Is(err, os.ErrDeadlineExceeded):
			early <- errStopWatch
		default:
			early <- wire.Errorf(wire.IECtrlClose)
		}
	}()
	// A test this side receives in ends when nothing arrives for
	// RcvTimeout (a -n or -k test has no timer to end it).
	var idle <-chan time.Time
	rcvTimeout := cmp.Or(s.o.RcvTimeout, 120*time.Second)
	if s.params.Reverse || s.params.Bidirectional {
		t := time.NewTicker(min(time.Second, rcvTimeout/4))
		defer t.Stop()
		idle = t.C
	}
	var ended error
	last, moved := int64(-1), time.Now()
wait:
	for {
		select {
		case <-timer:
		case <-s.limit.Done():
		case <-ctx.Done():
			ended = context.Cause(ctx)
		case err := <-early:
			if err == nil {
				err = fmt.Errorf("server asked for results before the test ended")
			}
			ended = err
		case now := <-idle:
			if b := s.test.ReceivedBytes(); b != last {
				last, moved = b, now
				continue
			}
			if now.Sub(moved) < rcvTimeout {
				continue
			}
			ended = fmt.Errorf("%w (--rcv-timeout %d ms)", wire.Errorf(wire.IENoMsg), rcvTimeout.Milliseconds())
		}
		break wait
	}
	s.test.Stop()
	if ended != nil {
		return ended
	}
	// Stop the watcher, then end the test.
	s.ctrl.SetReadDeadline(time.Unix(1, 0))
	<-watch
	if err := <-early; err != errStopWatch && err != nil {
		return err
	}
	if err := wire.WriteState(s.ctrl, wire.TestEnd); err != nil {
		return fmt.Errorf("control connection: %w", err)
	}
	return nil
}

var errStopWatch = errors.New("watch stopped")

func (s *session) exchangeResults() (*Outcome, error) {
	t := s.test
	totals := t.Totals()
	cpu := t.CPU()
	res := view.Results(totals, cpu, s.meta.CongestionCC)
	// The sender's view of our streams, for a tcptune server's verdicts
	// (iperf3 ignores the key).
	own := wire.Ext{Version: version.Version, Cores: runtime.NumCPU(), Streams: view.ExtStreams(totals), Received: view.Received(totals)}
	if n := t.RcvbufErrors(); n >= 0 {
		own.RcvbufErrors = &n
	}
	if raw, err := json.Marshal(own); err == nil {
		res.Tcptune = raw
	}
	s.ctrl.SetDeadline(time.Now().Add(30 * time.Second))
	if err := wire.WriteJSON(s.ctrl, res); err != nil {
		return nil, fmt.Errorf("sending results: %w", err)
	}
	body, err := wire.ReadJSON(s.ctrl, wire.MaxResultsJSON)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", wire.Errorf(wire.IERecvResults), err)
	}
	peer, err := wire.ParseResults(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", wire.Errorf(wire.IERecvResults), err)
	}
	known := map[int]bool{}
	for _, st := range totals {
		known[st.ID] = true
	}
	for _, ps := range peer.Streams {
		if !known[ps.ID] {
			return nil, wire.Errorf(wire.IEStreamID)
		}
	}
	sum := result.Summarize(s.meta, totals, peer, cpu)
	var ext *wire.Ext
	if len(peer.Tcptune) > 0 {
		var e wire.Ext
		if json.Unmarshal(peer.Tcptune, &e) == nil {
			ext = &e
		}
	}
	views := s.views(totals, sum, ext, peer.Streams)
	verdicts := verdicts(views)
	x := extension(s.meta, totals, ext, verdicts)
	s.pr.End(sum, x)
	if len(peer.ServerOutputJSON) > 0 || peer.ServerOutputText != "" {
		if s.params.GetServerOutput {
			s.pr.ServerOutput(peer.ServerOutputJSON, peer.ServerOutputText)
		}
	}
	for _, v := range verdicts {
		s.pr.Textf("%s", v.Line())
	}
	from, to := t.Period()
	return &Outcome{Summary: sum, Limits: verdicts, Views: views, Meta: s.meta, Duration: t.Duration(), Ext: x, Totals: totals, Intervals: t.Intervals(), From: from, To: to}, nil
}

// UnwrapOp strips net.OpError's address noise (and the syscall's name)
// for one-line messages: "connection refused", not "dial tcp
// 10.0.0.2:5201: connect: connection refused".
func UnwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		var se *os.SyscallError
		if errors.As(op.Err, &se) {
			return se.Err
		}
		return op.Err
	}
	return err
}
