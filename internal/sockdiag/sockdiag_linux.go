package sockdiag

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/sockopt"
)

const (
	sockDiagByFamily = 20
	inetDiagInfo     = 2
	inetDiagSkmem    = 7
	reqLen           = 16 + 56
	msgLen           = 72 // struct inet_diag_msg
	// Every state but LISTEN, TIME-WAIT and CLOSE: the sockets that
	// move data.
	stateMask = ^uint32(1<<10 | 1<<6 | 1<<7)
)

// Dump lists the TCP sockets (IPv4 and IPv6) of network namespace netns
// ("" = this one).
func Dump(netns string) ([]Socket, error) {
	var out []Socket
	err := nsx.Do(netns, func() error {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
		if err != nil {
			return fmt.Errorf("sock_diag socket: %w", err)
		}
		defer unix.Close(fd)
		// Every read has a deadline.
		tv := unix.NsecToTimeval(int64(5 * time.Second))
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return err
		}
		for seq, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
			socks, err := dumpFamily(fd, family, uint32(seq+1))
			if err != nil {
				return err
			}
			out = append(out, socks...)
		}
		return nil
	})
	return out, err
}

func dumpFamily(fd int, family uint8, seq uint32) ([]Socket, error) {
	req := make([]byte, reqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], reqLen)
	ne.PutUint16(req[4:], sockDiagByFamily)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], seq)
	req[16] = family
	req[17] = unix.IPPROTO_TCP
	req[18] = 1<<(inetDiagInfo-1) | 1<<(inetDiagSkmem-1)
	ne.PutUint32(req[20:], stateMask)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("sock_diag request: %w", err)
	}
	var out []Socket
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, fmt.Errorf("sock_diag: %w", err)
		}
		done, socks, err := parseMessages(buf[:n], seq)
		if err != nil {
			return nil, err
		}
		out = append(out, socks...)
		if done {
			return out, nil
		}
	}
}

// parseMessages parses one netlink datagram of inet_diag replies.
func parseMessages(b []byte, seq uint32) (done bool, out []Socket, err error) {
	ne := binary.NativeEndian
	for len(b) >= 16 {
		l := int(ne.Uint32(b[0:]))
		typ := ne.Uint16(b[4:])
		if l < 16 || l > len(b) {
			return false, nil, errors.New("sock_diag: truncated message")
		}
		body := b[16:l]
		switch {
		case ne.Uint32(b[8:]) != seq:
		case typ == unix.NLMSG_DONE:
			return true, out, nil
		case typ == unix.NLMSG_ERROR:
			if len(body) >= 4 {
				if e := int32(ne.Uint32(body)); e != 0 {
					return false, nil, fmt.Errorf("sock_diag: %w", unix.Errno(-e))
				}
			}
			return true, out, nil
		case typ == sockDiagByFamily:
			s, err := parseSocket(body)
			if err != nil {
				return false, nil, err
			}
			out = append(out, s)
		}
		l = (l + 3) &^ 3
		if l > len(b) {
			break
		}
		b = b[l:]
	}
	return false, out, nil
}

func parseSocket(b []byte) (Socket, error) {
	if len(b) < msgLen {
		return Socket{}, errors.New("sock_diag: short inet_diag_msg")
	}
	ne := binary.NativeEndian
	family := b[0]
	s := Socket{State: stateName(b[1])}
	sport, dport := binary.BigEndian.Uint16(b[4:]), binary.BigEndian.Uint16(b[6:])
	s.Local = netip.AddrPortFrom(addr(family, b[8:24]), sport)
	s.Remote = netip.AddrPortFrom(addr(family, b[24:40]), dport)
	s.Cookie = uint64(ne.Uint32(b[44:])) | uint64(ne.Uint32(b[48:]))<<32
	s.RecvQ, s.SendQ = ne.Uint32(b[56:]), ne.Uint32(b[60:])
	s.Inode = ne.Uint32(b[68:])
	for a := b[msgLen:]; len(a) >= 4; {
		l, typ := int(ne.Uint16(a[0:])), ne.Uint16(a[2:])
		if l < 4 || l > len(a) {
			break
		}
		data := a[4:l]
		switch typ {
		case inetDiagInfo:
			var ti unix.TCPInfo
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&ti)), unsafe.Sizeof(ti)), data)
			s.Info = sockopt.FromKernel(&ti)
		case inetDiagSkmem:
			var v [9]uint32
			for i := 0; i < len(v) && 4*i+4 <= len(data); i++ {
				v[i] = ne.Uint32(data[4*i:])
			}
			s.Mem = &SkMem{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]}
		}
		l = (l + 3) &^ 3
		if l > len(a) {
			break
		}
		a = a[l:]
	}
	return s, nil
}

func addr(family uint8, b []byte) netip.Addr {
	if family == unix.AF_INET {
		return netip.AddrFrom4([4]byte(b[:4]))
	}
	a := netip.AddrFrom16([16]byte(b[:16]))
	if a.Is4In6() {
		return a.Unmap()
	}
	return a
}

// The multicast groups of NETLINK_SOCK_DIAG that carry TCP sockets as
// they are destroyed (include/uapi/linux/sock_diag.h).
const (
	groupTCP4Destroy = 1 // SKNLGRP_INET_TCP_DESTROY
	groupTCP6Destroy = 3 // SKNLGRP_INET6_TCP_DESTROY
)

// Listener receives the TCP sockets of one network namespace as the
// kernel frees them, each with its final TCP_INFO (what `ss -E` prints).
// Joining needs root (CAP_NET_ADMIN in the namespace's user namespace).
type Listener struct {
	fd       int
	buf      []byte
	overruns uint64
}

// Listen joins the TCP destroy groups of namespace netns ("" = this
// one) with a receive buffer of rcvbuf bytes (0 = 8 MiB): bursts of
// ending flows that outrun the reader overflow it, and Overruns counts
// them.
func Listen(netns string, rcvbuf int) (*Listener, error) {
	if rcvbuf <= 0 {
		rcvbuf = 8 << 20
	}
	l := &Listener{fd: -1, buf: make([]byte, 1<<16)}
	err := nsx.Do(netns, func() error {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
		if err != nil {
			return fmt.Errorf("sock_diag socket: %w", err)
		}
		l.fd = fd
		// SO_RCVBUFFORCE passes the rmem_max cap as root; SO_RCVBUF is the
		// fallback within it.
		if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, rcvbuf) != nil {
			_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, rcvbuf)
		}
		tv := unix.NsecToTimeval(int64(200 * time.Millisecond))
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
			return err
		}
		sa := &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: 1<<(groupTCP4Destroy-1) | 1<<(groupTCP6Destroy-1)}
		if err := unix.Bind(fd, sa); err != nil {
			return fmt.Errorf("joining the sock_diag destroy groups: %w", err)
		}
		return nil
	})
	if err != nil {
		if l.fd >= 0 {
			unix.Close(l.fd)
		}
		return nil, err
	}
	return l, nil
}

// Next returns the sockets of every notification queued, waiting up to
// 200 ms for the first when none is (none: nothing came, so a caller can
// check for its end). An overrun of the receive buffer is counted, not
// returned. The socket is not on the runtime's poller: a caller that
// reads in batches is woken by its own timer, not by every notification
// that arrives meanwhile.
func (l *Listener) Next() ([]Socket, error) {
	var out []Socket
	for flags := unix.MSG_DONTWAIT; ; {
		n, _, err := unix.Recvfrom(l.fd, l.buf, flags)
		switch {
		case errors.Is(err, unix.EAGAIN) && len(out) == 0 && flags != 0:
			flags = 0 // nothing queued: wait for the first
			continue
		case errors.Is(err, unix.EAGAIN):
			return out, nil
		case errors.Is(err, unix.ENOBUFS):
			l.overruns++
			continue
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return out, fmt.Errorf("sock_diag events: %w", err)
		}
		_, socks, err := parseMessages(l.buf[:n], 0)
		if err != nil {
			return out, err
		}
		out = append(out, socks...)
		flags = unix.MSG_DONTWAIT
	}
}

// Overruns is how many times the receive buffer overflowed: each lost
// at least one notification.
func (l *Listener) Overruns() uint64 { return l.overruns }

// Close leaves the groups.
func (l *Listener) Close() error { return unix.Close(l.fd) }
