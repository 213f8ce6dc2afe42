//go:build linux

package pmtu

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Echo probes dst with ICMP echo requests over a raw socket (root),
// with DF set and the route's cached PMTU ignored (IP_PMTUDISC_PROBE),
// so that every size is tried on the wire. It sees the replies and the
// routers' "fragmentation needed" errors that quote its own requests.
// IPv4 only. The socket belongs to the network namespace it was opened
// in.
type Echo struct {
	f   *os.File
	fd  int
	dst netip.Addr
	id  uint16
	seq uint16
}

// OpenEcho opens the socket toward dst.
func OpenEcho(dst netip.Addr) (*Echo, error) {
	if !dst.Is4() {
		return nil, fmt.Errorf("path MTU probe to %s: IPv4 only", dst)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_ICMP)
	if err != nil {
		return nil, fmt.Errorf("path MTU probe: raw ICMP socket (needs root): %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_PROBE); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("path MTU probe: IP_MTU_DISCOVER: %w", err)
	}
	return &Echo{f: os.NewFile(uintptr(fd), "icmp"), fd: fd, dst: dst, id: uint16(os.Getpid())}, nil
}

// Close closes the socket.
func (e *Echo) Close() error { return e.f.Close() }

const ipHdr, icmpHdr = 20, 8

// Probe sends one echo request of size bytes (IP header included) and
// waits for its reply or a router's error about it.
func (e *Echo) Probe(ctx context.Context, size int, timeout time.Duration) (Outcome, int, error) {
	if size < ipHdr+icmpHdr || size > 65535 {
		return Lost, 0, fmt.Errorf("probe size %d out of range", size)
	}
	e.seq++
	msg := make([]byte, size-ipHdr)
	msg[0] = 8 // echo request
	binary.BigEndian.PutUint16(msg[4:], e.id)
	binary.BigEndian.PutUint16(msg[6:], e.seq)
	for i := icmpHdr; i < len(msg); i++ {
		msg[i] = byte(i)
	}
	binary.BigEndian.PutUint16(msg[2:], ^fold(msg))
	to := &unix.SockaddrInet4{Addr: e.dst.As4()}
	if err := unix.Sendto(e.fd, msg, 0, to); err != nil {
		if errors.Is(err, unix.EMSGSIZE) {
			return Lost, 0, fmt.Errorf("probe of %d bytes: larger than the interface's MTU", size)
		}
		return Lost, 0, fmt.Errorf("probe of %d bytes: %w", size, err)
	}
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	e.f.SetReadDeadline(deadline)
	buf := make([]byte, 65536)
	for {
		n, err := e.f.Read(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if ctx.Err() != nil {
				return Lost, 0, ctx.Err()
			}
			return Lost, 0, nil
		}
		if err != nil {
			return Lost, 0, fmt.Errorf("path MTU probe: %w", err)
		}
		if out, mtu, ok := e.match(buf[:n]); ok {
			return out, mtu, nil
		}
	}
}

// match reads a received IPv4 packet: the reply to this probe, or an
// ICMP "fragmentation needed" that quotes it.
func (e *Echo) match(p []byte) (Outcome, int, bool) {
	if len(p) < ipHdr || p[0]>>4 != 4 {
		return 0, 0, false
	}
	ihl := int(p[0]&0x0f) * 4
	if len(p) < ihl+icmpHdr {
		return 0, 0, false
	}
	m := p[ihl:]
	ours := func(q []byte) bool {
		return binary.BigEndian.Uint16(q[4:]) == e.id && binary.BigEndian.Uint16(q[6:]) == e.seq
	}
	switch {
	case m[0] == 0 && m[1] == 0 && ours(m) && netip.AddrFrom4([4]byte(p[12:16])) == e.dst:
		return Answered, 0, true
	case m[0] == 3 && m[1] == 4:
		inner := m[icmpHdr:]
		if len(inner) < ipHdr || inner[0]>>4 != 4 {
			return 0, 0, false
		}
		iihl := int(inner[0]&0x0f) * 4
		if len(inner) < iihl+icmpHdr || inner[9] != 1 || netip.AddrFrom4([4]byte(inner[16:20])) != e.dst {
			return 0, 0, false
		}
		if q := inner[iihl:]; q[0] == 8 && ours(q) {
			return TooBig, int(binary.BigEndian.Uint16(m[6:])), true
		}
	}
	return 0, 0, false
}

// fold is the ones' complement sum of b, folded to 16 bits.
func fold(b []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(b); i += 2 {
		s += uint32(binary.BigEndian.Uint16(b[i:]))
	}
	if len(b)%2 == 1 {
		s += uint32(b[len(b)-1]) << 8
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return uint16(s)
}
