package sockopt

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// From linux/in6.h (x/sys/unix lacks them).
const (
	ipv6FlowlabelMgr = 32 // IPV6_FLOWLABEL_MGR
	ipv6FlowinfoSend = 33 // IPV6_FLOWINFO_SEND
	ipv6FlAGet       = 0  // IPV6_FL_A_GET
	ipv6FlFCreate    = 1  // IPV6_FL_F_CREATE
	ipv6FlFRemote    = 2  // IPV6_FL_F_REMOTE
	ipv6FlSAny       = 255
)

// in6FlowlabelReq is struct in6_flowlabel_req.
type in6FlowlabelReq struct {
	Dst     [16]byte
	Label   uint32 // network order
	Action  uint8
	Share   uint8
	Flags   uint16
	Expires uint16
	Linger  uint16
	_       uint32
}

// ConnectWithFlowLabel leases the IPv6 flow label (20 bits) for address
// and starts connecting the socket to it with that label, as iperf3 -L
// does: Linux takes a socket's label from the sin6_flowinfo of connect(2)
// once it is leased (IPV6_FLOWLABEL_MGR) and IPV6_FLOWINFO_SEND is on.
// It runs in a Dialer's Control hook, which Go calls before it binds: the
// local address (nil = any) is bound here, and the Dialer must have none.
// Go's own connect then finds the socket connecting or connected, which
// it accepts.
func ConnectWithFlowLabel(rc syscall.RawConn, local *net.TCPAddr, address string, label int) error {
	if label <= 0 || label > 0xFFFFF {
		return fmt.Errorf("flow label %d: accepts 1..1048575", label)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ap.Addr().Is6() || ap.Addr().Is4In6() {
		return fmt.Errorf("flow labels need an IPv6 destination (got %s)", address)
	}
	return control(rc, func(fd uintptr) error {
		req := in6FlowlabelReq{Dst: ap.Addr().As16(), Action: ipv6FlAGet, Share: ipv6FlSAny, Flags: ipv6FlFCreate}
		binary.BigEndian.PutUint32((*[4]byte)(unsafe.Pointer(&req.Label))[:], uint32(label))
		if _, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, fd, unix.IPPROTO_IPV6, ipv6FlowlabelMgr,
			uintptr(unsafe.Pointer(&req)), unsafe.Sizeof(req), 0); e != 0 {
			return fmt.Errorf("IPV6_FLOWLABEL_MGR: %w", e)
		}
		if err := unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, ipv6FlowinfoSend, 1); err != nil {
			return fmt.Errorf("IPV6_FLOWINFO_SEND: %w", err)
		}
		if local != nil {
			la := &unix.SockaddrInet6{Port: local.Port}
			if ip := local.IP.To16(); ip != nil {
				copy(la.Addr[:], ip)
			}
			if err := unix.Bind(int(fd), la); err != nil {
				return fmt.Errorf("bind %s: %w", local, err)
			}
		}
		sa := unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: ap.Addr().As16()}
		binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&sa.Port))[:], ap.Port())
		binary.BigEndian.PutUint32((*[4]byte)(unsafe.Pointer(&sa.Flowinfo))[:], uint32(label))
		if z := ap.Addr().Zone(); z != "" {
			if ifi, err := net.InterfaceByName(z); err == nil {
				sa.Scope_id = uint32(ifi.Index)
			} else if n, err := strconv.Atoi(z); err == nil {
				sa.Scope_id = uint32(n)
			}
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, fd, uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa))
		switch e {
		case 0, unix.EINPROGRESS, unix.EINTR:
			return nil
		}
		return fmt.Errorf("connect: %w", e)
	})
}
