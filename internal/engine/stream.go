// Package engine moves test data: one goroutine per stream sending or
// receiving TCP blocks or UDP datagrams, pacing to a bitrate, counting
// bytes, and sampling TCP_INFO per reporting interval. Client and server
// share it; the control protocol lives in their own packages.
package engine

import (
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tcptune/tcptune/internal/sockopt"
)

// Stream is one data connection of a test.
type Stream struct {
	ID      int
	Sender  bool // the local side sends on this stream
	Reverse bool // in --bidir: one of the client-receive streams
	UDP     bool
	Socket  int // local descriptor number, as iperf3 prints it
	Local   net.Addr
	Remote  net.Addr

	conn   net.Conn                  // TCP, or a connected UDP socket
	rc     syscall.RawConn           // for socket options and TCP_INFO
	udpOut func([]byte) (int, error) // server-side UDP sends on a shared socket

	bytes   atomic.Int64
	blocks  atomic.Int64
	packets atomic.Int64 // UDP datagrams sent

	mu  sync.Mutex
	udp udpRecv

	err     atomic.Pointer[error]
	stopped atomic.Bool

	raw *rawSocket // Linux TCP: the socket, out of the netpoller
}

// NewTCPStream wraps a connected TCP socket. On Linux the stream takes
// the socket over (c is closed; the connection is not): see rawio_linux.go.
func NewTCPStream(id int, c net.Conn, sender bool) *Stream {
	return newStream(id, c, sender)
}

// goRaw moves a TCP stream to the raw path (its socket detached from
// the netpoller, rawio_linux.go); where that fails, or elsewhere, it
// stays on net.Conn. Test.Start calls it for the streams the thread
// budget grants, before any loop runs.
func (s *Stream) goRaw() bool {
	if s.UDP || s.raw != nil || s.conn == nil {
		return false
	}
	raw, err := detach(s.conn)
	if err != nil {
		return false
	}
	s.raw, s.rc, s.conn = raw, raw, nil
	raw.Control(func(fd uintptr) { s.Socket = int(fd) })
	return true
}

func newStream(id int, c net.Conn, sender bool) *Stream {
	s := &Stream{ID: id, Sender: sender, conn: c, Local: c.LocalAddr(), Remote: c.RemoteAddr()}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			s.rc = rc
			rc.Control(func(fd uintptr) { s.Socket = int(fd) })
		}
	}
	return s
}

// NewUDPStream wraps a connected UDP socket (the client side).
func NewUDPStream(id int, c net.Conn, sender bool) *Stream {
	s := newStream(id, c, sender)
	s.UDP = true
	return s
}

// NewFedUDPStream is a server-side UDP stream on a shared socket: sends
// go through out, received datagrams arrive through Feed.
func NewFedUDPStream(id int, local, remote net.Addr, socket int, sender bool, out func([]byte) (int, error)) *Stream {
	return &Stream{ID: id, Sender: sender, UDP: true, Local: local, Remote: remote, Socket: socket, udpOut: out}
}

// RawConn exposes the socket for options; nil for fed UDP streams.
func (s *Stream) RawConn() syscall.RawConn { return s.rc }

// Conn is the underlying connection (nil for fed UDP streams).
func (s *Stream) Conn() net.Conn { return s.conn }

// Bytes is the number of bytes moved so far.
func (s *Stream) Bytes() int64 { return s.bytes.Load() }

// Err is the error that ended the stream early, if any.
func (s *Stream) Err() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *Stream) setErr(err error) {
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
		s.err.CompareAndSwap(nil, &err)
	}
}

// TCPInfo reads the stream's TCP_INFO (Linux); nil when unavailable.
func (s *Stream) TCPInfo() *sockopt.TCPInfo {
	if s.UDP || s.rc == nil {
		return nil
	}
	ti, err := sockopt.ReadTCPInfo(s.rc)
	if err != nil {
		return nil
	}
	return ti
}

// Close closes the stream's socket, after waking a loop that uses it.
func (s *Stream) Close() {
	if s.raw != nil {
		s.raw.Close()
	}
	if s.conn != nil {
		s.conn.Close()
	}
}

// interrupt makes blocked reads and writes return at once.
func (s *Stream) interrupt() {
	if s.raw != nil {
		s.raw.interrupt()
	}
	if s.conn != nil {
		s.conn.SetDeadline(time.Unix(1, 0))
	}
}

// runConfig is what a stream goroutine needs to know.
type runConfig struct {
	blockLen   int
	rate       float64 // bit/s per stream, 0 = unlimited
	zeroCopy   bool
	skipRxCopy bool // receive with MSG_TRUNC: count, do not copy
	counter    *Limit
	stop       *atomic.Bool
	udp64      bool
	epoch      time.Time
}

func (s *Stream) run(cfg runConfig) {
	switch {
	case s.UDP && s.Sender:
		s.sendUDP(cfg)
	case s.UDP && s.conn != nil:
		s.recvUDP(cfg)
	case s.UDP:
		// fed by the server's dispatcher
	case s.runRaw(cfg):
	case s.Sender:
		s.sendTCP(cfg)
	default:
		s.recvTCP(cfg)
	}
}

func randomBlock(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// pacer sleeps so that sent bytes follow rate (bit/s) from start.
type pacer struct {
	rate  float64
	start time.Time
}

// It returns early once stop reports true: at a low rate one block can
// be due seconds away, and a stopped test must not wait for it.
func (p *pacer) wait(sent int64, stop func() bool) {
	if p.rate <= 0 {
		return
	}
	due := p.start.Add(time.Duration(float64(sent) * 8 / p.rate * float64(time.Second)))
	for d := time.Until(due); d > 0 && !stop(); d = time.Until(due) {
		time.Sleep(min(d, 20*time.Millisecond))
	}
}

// sendTCP is the portable send loop. -Z is zero-copy only on the raw
// Linux path (sendfile from a memfd, rawio_linux.go); here it sends with
// ordinary writes rather than staging the block in a file on disk.
func (s *Stream) sendTCP(cfg runConfig) {
	buf := randomBlock(cfg.blockLen)
	p := pacer{rate: cfg.rate, start: time.Now()}
	for !cfg.stop.Load() {
		p.wait(s.bytes.Load(), func() bool { return cfg.stop.Load() || s.stopped.Load() })
		n, err := s.conn.Write(buf)
		if n > 0 {
			s.bytes.Add(int64(n))
			s.blocks.Add(1)
			cfg.counter.add(int64(n), 1)
		}
		if err != nil {
			s.setErr(err)
			return
		}
	}
}

func (s *Stream) recvTCP(cfg runConfig) {
	// Reads of one block (128 KiB by default), as iperf3 does: a buffer
	// that stays in cache copies faster than a larger one.
	buf := make([]byte, max(cfg.blockLen, 64<<10))
	for {
		n, err := s.conn.Read(buf)
		if n > 0 {
			s.bytes.Add(int64(n))
			if cfg.blockLen > 0 {
				cfg.counter.add(int64(n), 0)
			}
		}
		if err != nil {
			s.setErr(err)
			return
		}
		if cfg.stop.Load() {
			return
		}
	}
}

// Limit is the client's end condition by volume (-n bytes or -k
// blocks), counted over all streams in whichever direction.
type Limit struct {
	Bytes, Blocks int64
	blockLen      int64
	n, k          atomic.Int64
	once          sync.Once
	done          chan struct{}
}

// NewLimit returns a Limit; with both bytes and blocks 0 it never fires.
func NewLimit(bytes, blocks int64, blockLen int) *Limit {
	return &Limit{Bytes: bytes, Blocks: blocks, blockLen: int64(blockLen), done: make(chan struct{})}
}

// Done is closed when the limit is reached.
func (l *Limit) Done() <-chan struct{} {
	if l == nil {
		return nil
	}
	return l.done
}

func (l *Limit) add(bytes, blocks int64) {
	if l == nil || (l.Bytes == 0 && l.Blocks == 0) {
		return
	}
	n := l.n.Add(bytes)
	k := l.k.Add(blocks)
	if blocks == 0 && l.blockLen > 0 { // receivers count blocks by volume
		k = n / l.blockLen
	}
	if (l.Bytes > 0 && n >= l.Bytes) || (l.Blocks > 0 && k >= l.Blocks) {
		l.once.Do(func() { close(l.done) })
	}
}
