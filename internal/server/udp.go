package server

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/tcptune/tcptune/internal/engine"
)

// udpMux is the server's UDP side: one socket on the test port, shared by
// every UDP test. A new source address that sends iperf3's 4-byte hello
// while a test from that host awaits streams becomes a stream; datagrams
// are then routed to their stream by source address. (iperf3 instead
// connects a socket per stream; a shared socket works the same for the
// peer and lets tests run side by side.)
type udpMux struct {
	log  *slog.Logger
	bind *net.TCPAddr

	mu      sync.Mutex
	pc      *net.UDPConn
	fd      int
	users   int
	waiters []*udpWaiter
	streams map[string]*udpRoute

	// Stray hellos are logged at most once per strayEvery, with a count
	// of those left out: a flood of datagrams must not flood the log.
	lastStray  time.Time
	strayQuiet int
}

const strayEvery = 10 * time.Second

type udpWaiter struct {
	ip    net.IP
	need  int
	addrs chan *net.UDPAddr
}

type udpRoute struct {
	s     *engine.Stream
	test  *engine.Test
	udp64 bool
}

// expect registers a test that awaits n hellos from ip; it opens the
// socket if it is not open. A hello carries nothing but its source
// address, so two tests from one address (its per-client limit allows
// two, and hosts behind one NAT share one) could take each other's
// streams: a test whose address already has a test awaiting hellos
// waits its turn (until done is closed), and sends CREATE_STREAMS only
// when it has it. Each test's streams are then its own by address and
// port, in the order of set-up.
func (m *udpMux) expect(ip net.IP, n int, done <-chan struct{}) (*udpWaiter, error) {
	for {
		m.mu.Lock()
		busy := false
		for _, x := range m.waiters {
			busy = busy || (x.ip.Equal(ip) && x.need > 0)
		}
		if !busy {
			break
		}
		m.mu.Unlock()
		select {
		case <-done:
			return nil, errors.New("another test from this address is still setting up its UDP streams")
		case <-time.After(10 * time.Millisecond):
		}
	}
	defer m.mu.Unlock()
	if m.pc == nil {
		pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: m.bind.IP, Port: m.bind.Port})
		if err != nil {
			return nil, err
		}
		pc.SetReadBuffer(4 << 20)
		m.pc = pc
		if rc, err := pc.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { m.fd = int(fd) })
		}
		m.streams = map[string]*udpRoute{}
		go m.loop(pc)
	}
	m.users++
	w := &udpWaiter{ip: ip, need: n, addrs: make(chan *net.UDPAddr, n)}
	m.waiters = append(m.waiters, w)
	return w, nil
}

// cancel stops a test's wait for hellos. An address whose hello was
// counted but that the test never took (it ended first) is forgotten:
// its placeholder would otherwise hold a route for good.
func (m *udpMux) cancel(w *udpWaiter) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.waiters {
		if x == w {
			m.waiters = append(m.waiters[:i], m.waiters[i+1:]...)
			break
		}
	}
	for {
		select {
		case a := <-w.addrs:
			if r := m.streams[a.String()]; r != nil && r.test == nil {
				delete(m.streams, a.String())
			}
		default:
			return
		}
	}
}

// stream makes the server-side stream for a peer address.
func (m *udpMux) stream(id int, addr *net.UDPAddr, sender bool) *engine.Stream {
	m.mu.Lock()
	pc, fd := m.pc, m.fd
	m.mu.Unlock()
	out := func(b []byte) (int, error) { return pc.WriteToUDP(b, addr) }
	return engine.NewFedUDPStream(id, pc.LocalAddr(), addr, fd, sender, out)
}

// register routes datagrams from the streams' peers to them.
func (m *udpMux) register(streams []*engine.Stream, t *engine.Test, udp64 bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range streams {
		m.streams[s.Remote.String()] = &udpRoute{s: s, test: t, udp64: udp64}
	}
}

// drop forgets a finished test's streams and closes the socket when no
// UDP test is left.
func (m *udpMux) drop(keys []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.streams, k)
	}
	m.users--
	if m.users <= 0 && m.pc != nil {
		m.pc.Close()
		m.pc, m.users = nil, 0
	}
}

func (m *udpMux) loop(pc *net.UDPConn) {
	buf := make([]byte, 65536)
	for {
		n, addr, err := pc.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(time.Millisecond)
			continue
		}
		key := addr.String()
		m.mu.Lock()
		r := m.streams[key]
		m.mu.Unlock()
		if r != nil {
			switch {
			case n == 4 && engine.IsUDPConnect(buf[:4]):
				// A repeated hello: our reply was lost on the way. (No
				// data datagram is 4 bytes long.)
				pc.WriteToUDP(engine.UDPConnectReply, addr)
			case !r.s.Sender:
				r.s.Feed(buf[:n], r.test.Epoch(), r.udp64)
			}
			continue
		}
		if n == 4 && engine.IsUDPConnect(buf[:4]) {
			m.hello(pc, addr)
		}
	}
}

func (m *udpMux) hello(pc *net.UDPConn, addr *net.UDPAddr) {
	m.mu.Lock()
	var w *udpWaiter
	for _, x := range m.waiters {
		if x.ip.Equal(addr.IP) && x.need > 0 {
			w = x
			break
		}
	}
	if w != nil {
		w.need--
		// Hold the address so that repeated hellos are not taken twice,
		// and hand it over under the lock (the channel holds every hello
		// a waiter counts), so that cancel sees every address given.
		m.streams[addr.String()] = &udpRoute{s: engine.NewFedUDPStream(0, nil, addr, 0, true, nil)}
		w.addrs <- addr
	}
	logNow, quiet := false, 0
	if w == nil {
		if now := time.Now(); now.Sub(m.lastStray) >= strayEvery {
			logNow, quiet = true, m.strayQuiet
			m.lastStray, m.strayQuiet = now, 0
		} else {
			m.strayQuiet++
		}
	}
	m.mu.Unlock()
	if w == nil {
		if logNow {
			m.log.Warn("UDP datagram from a host no test awaits a stream from", "peer", addr.String(), "left_out_since_last", quiet)
		}
		return
	}
	pc.WriteToUDP(engine.UDPConnectReply, addr)
}
