//go:build linux

package engine

import (
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The TCP data path on Linux. A stream's socket is taken out of Go's
// netpoller (rawSocket) and switched to blocking mode, and each stream
// runs on its own locked OS thread, sleeping in recvfrom, sendto or
// sendfile as iperf3 3.16+ sleeps in read and write on one thread per
// stream. Those calls are made with RawSyscall: the stream keeps its
// processor while it sleeps, and Procs raises GOMAXPROCS by one per
// running stream so that nothing else waits for it.
//
// Why (docs/performance.md has the profiles): a socket registered with
// the netpoller wakes one of the runtime's idle threads out of
// epoll_pwait on every arrival, a netpoller read parks and wakes the
// goroutine through the scheduler for nearly every read that finds the
// socket empty, and a blocking Syscall hands its processor to the
// monitor thread and back. Each costs context switches; together they
// cost 50% more CPU per byte received on loopback than iperf3 3.22.
//
// Waking a sleeping stream: socket timeouts (SO_RCVTIMEO, SO_SNDTIMEO;
// the latter also keeps the send buffer topped up, see topUpEvery) bound
// every sleep, and interrupt shuts the receive side down, which
// wakes a recvfrom at once. recvfrom and sendto with a timeout return
// EINTR on a signal (never restarted), so the runtime's preemption
// signal gets the loop back, and it yields there (runtime.Gosched).

// rawSocket owns a TCP socket outside the netpoller. It implements
// syscall.RawConn, so socket options and TCP_INFO work as before; the
// read lock is held while the descriptor is in use, so Close never frees
// the number under a running loop.
type rawSocket struct {
	interrupted atomic.Bool
	mu          sync.RWMutex
	fd          int // -1 once closed
}

// detach moves c's socket out of the netpoller: the descriptor is
// duplicated and c closed, which removes the original from epoll without
// closing the connection.
func detach(c net.Conn) (*rawSocket, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, syscall.EINVAL
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var derr error
	if err := rc.Control(func(fd uintptr) {
		nfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	c.Close()
	return &rawSocket{fd: nfd}, nil
}

// Control runs f on the descriptor.
func (r *rawSocket) Control(f func(fd uintptr)) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.fd < 0 {
		return net.ErrClosed
	}
	f(uintptr(r.fd))
	return nil
}

// Read runs f until it returns true, waiting for readability between calls.
func (r *rawSocket) Read(f func(fd uintptr) bool) error { return r.loop(f, unix.POLLIN) }

// Write runs f until it returns true, waiting for room between calls.
func (r *rawSocket) Write(f func(fd uintptr) bool) error { return r.loop(f, unix.POLLOUT) }

func (r *rawSocket) loop(f func(fd uintptr) bool, ev int16) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.fd < 0 {
		return net.ErrClosed
	}
	for !f(uintptr(r.fd)) {
		if !r.wait(ev) {
			return os.ErrDeadlineExceeded
		}
	}
	return nil
}

// interrupt makes every wait return false, now and later.
func (r *rawSocket) interrupt() {
	r.interrupted.Store(true)
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.fd >= 0 {
		unix.Shutdown(r.fd, unix.SHUT_RD)
	}
}

// Close wakes a running loop, waits for it to let go, and closes.
func (r *rawSocket) Close() error {
	r.interrupt()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fd < 0 {
		return nil
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}

// wait sleeps in poll until the socket is ready for ev, for at most
// sleepBound; false once the socket is interrupted. The caller holds the
// read lock.
func (r *rawSocket) wait(ev int16) bool {
	fds := []unix.PollFd{{Fd: int32(r.fd), Events: ev}}
	unix.Poll(fds, int(sleepBound.Milliseconds()))
	return !r.interrupted.Load()
}

// runRaw runs the stream's TCP loop on its detached socket; false when
// the stream has none (the caller then uses net.Conn).
func (s *Stream) runRaw(cfg runConfig) bool {
	r := s.raw
	if r == nil {
		return false
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var err error
	r.mu.RLock()
	if r.fd < 0 {
		err = net.ErrClosed
	} else if s.Sender {
		err = s.sendRaw(r, cfg)
	} else {
		err = s.recvRaw(r, cfg)
	}
	r.mu.RUnlock()
	s.setErr(err)
	return true
}

func (s *Stream) recvRaw(r *rawSocket, cfg runConfig) error {
	buf := make([]byte, rxChunk)
	flags := 0
	if cfg.skipRxCopy { // nothing is copied: take all that is there
		buf = make([]byte, max(cfg.blockLen, 64<<10))
		flags = unix.MSG_TRUNC
	}
	if err := r.block(unix.SO_RCVTIMEO, sleepBound); err != nil {
		return err
	}
	for {
		n, err := rawRecv(r.fd, buf, flags)
		switch {
		case n > 0:
			s.bytes.Add(int64(n))
			if cfg.blockLen > 0 {
				cfg.counter.add(int64(n), 0)
			}
		case err == unix.EAGAIN || err == unix.EINTR:
			runtime.Gosched()
		case err != nil:
			return os.NewSyscallError("recvfrom", err)
		default: // n == 0: the peer closed
			return nil
		}
		if cfg.stop.Load() || r.interrupted.Load() {
			return nil
		}
	}
}

func (s *Stream) sendRaw(r *rawSocket, cfg runConfig) error {
	if err := r.block(unix.SO_SNDTIMEO, topUpEvery); err != nil {
		return err
	}
	buf := randomBlock(cfg.blockLen)
	p := pacer{rate: cfg.rate, start: time.Now()}
	src := -1
	if cfg.zeroCopy {
		if mfd, err := memBlock(buf); err == nil {
			src = mfd
			defer unix.Close(mfd)
		}
	}
	off := 0 // bytes of the current block already written
	for !cfg.stop.Load() && !r.interrupted.Load() {
		if off == 0 {
			p.wait(s.bytes.Load(), func() bool { return cfg.stop.Load() || r.interrupted.Load() })
		}
		var n int
		var err error
		if src >= 0 {
			n, err = rawSendfile(r.fd, src, off, len(buf)-off)
		} else {
			n, err = rawSend(r.fd, buf[off:])
		}
		if n > 0 {
			off += n
			blocks := int64(0)
			if off >= len(buf) {
				off, blocks = 0, 1
			}
			s.bytes.Add(int64(n))
			s.blocks.Add(blocks)
			cfg.counter.add(int64(n), blocks)
		}
		switch {
		case err == nil:
		case err == unix.EAGAIN || err == unix.EINTR:
			runtime.Gosched()
		default:
			return os.NewSyscallError("sendto", err)
		}
	}
	return nil
}

// memBlock puts one block in an anonymous memory file, the source of
// sendfile(2) for -Z: the kernel sends its pages without copying them
// from user space, and nothing touches a disk.
func memBlock(block []byte) (int, error) {
	fd, err := unix.MemfdCreate("tcptune-zc", unix.MFD_CLOEXEC)
	if err != nil {
		return -1, err
	}
	for b := block; len(b) > 0; {
		n, err := unix.Write(fd, b)
		if err != nil {
			unix.Close(fd)
			return -1, err
		}
		b = b[n:]
	}
	return fd, nil
}

// rxChunk is the size of one receive. The socket is locked while
// recvfrom copies, and segments that arrive meanwhile wait in the
// backlog, unacknowledged, until the copy ends: 128 KiB reads (iperf3's)
// held the lock long enough to raise BBR's RTT on loopback by half and
// cost a fifth of the throughput, 32 KiB reads did not, and 16 KiB reads
// cost more in system calls than they saved (docs/performance.md).
const rxChunk = 32 << 10

// sleepBound is the longest a stream sleeps in one system call before it
// looks at its stop flag again.
const sleepBound = 100 * time.Millisecond

// topUpEvery is the longest a sender sleeps in sendto for room in its
// send buffer. The kernel wakes a writer that waits for room only once a
// third of the buffer is free (sk_stream_write_space), so a writer that
// sleeps until then keeps the buffer between two thirds and full, and a
// flow held by its send buffer carries that much less in flight (1
// Gbit/s × 60 ms with tcp_wmem's 4 MiB, cubic: 373 Mbit/s, as iperf3
// 3.22's blocking writes; iperf3 3.12 spins in select and write and
// reaches 446). Woken by the timeout, sendto copies whatever room the
// ACKs made since, so the buffer stays full to within a millisecond of
// sending (500 Mbit/s there; docs/performance.md). A sendto that finds
// the buffer full for a whole millisecond returns EAGAIN and is called
// again: a thousand calls a second per stream at most, and none while
// there is room.
const topUpEvery = time.Millisecond

// block puts the socket in blocking mode with a timeout of d (opt is
// SO_RCVTIMEO or SO_SNDTIMEO).
func (r *rawSocket) block(opt int, d time.Duration) error {
	if err := unix.SetNonblock(r.fd, false); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if err := unix.SetsockoptTimeval(r.fd, unix.SOL_SOCKET, opt, &tv); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	return nil
}

func rawRecv(fd int, b []byte, flags int) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(flags), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawSend(fd int, b []byte) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), unix.MSG_NOSIGNAL, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func rawSendfile(fd, src, off, n int) (int, error) {
	o := int64(off)
	m, _, e := unix.RawSyscall6(unix.SYS_SENDFILE, uintptr(fd), uintptr(src), uintptr(unsafe.Pointer(&o)), uintptr(n), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(m), nil
}
