package doctor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
	"unsafe"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/tcptune/tcptune/internal/pmtu"
	"github.com/tcptune/tcptune/internal/probe"
	"github.com/tcptune/tcptune/internal/stats"
)

// Live probes the running system.
type Live struct{}

// PathMTU probes the path to peer with DF echo requests (package pmtu):
// the largest size answered, a router's "fragmentation needed", or a
// black hole. Without root (no raw socket) it reads what the kernel's
// route holds instead: the interface's MTU, lowered by any ICMP seen.
func (Live) PathMTU(peer string, max int) (pmtu.Result, error) {
	addr, err := resolve4(peer)
	if err != nil {
		return pmtu.Result{}, err
	}
	e, err := pmtu.OpenEcho(addr)
	if errors.Is(err, unix.EPERM) {
		m, err := routeMTU(peer)
		if err != nil {
			return pmtu.Result{}, err
		}
		return pmtu.Result{Largest: m}, nil
	}
	if err != nil {
		return pmtu.Result{}, err
	}
	defer e.Close()
	return pmtu.Search(context.Background(), e, pmtu.Options{Base: min(1200, max), Max: max, Tries: 3, Step: 16})
}

// resolve4 is peer's IPv4 address.
func resolve4(peer string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(peer); err == nil {
		return a.Unmap(), nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip4", peer)
	if err != nil || len(ips) == 0 {
		return netip.Addr{}, fmt.Errorf("resolve %s: %v", peer, err)
	}
	return ips[0], nil
}

// routeMTU is the kernel's path MTU to peer: a connected UDP socket with
// DF set reports the route's MTU, lowered by any ICMP "fragmentation
// needed" seen.
func routeMTU(peer string) (int, error) {
	c, err := net.Dial("udp4", net.JoinHostPort(peer, "9"))
	if err != nil {
		return 0, err
	}
	defer c.Close()
	rc, err := c.(*net.UDPConn).SyscallConn()
	if err != nil {
		return 0, err
	}
	mtu, serr := 0, error(nil)
	err = rc.Control(func(fd uintptr) {
		if serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO); serr != nil {
			return
		}
		mtu, serr = unix.GetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU)
	})
	if err == nil {
		err = serr
	}
	return mtu, err
}

// RTT is the median of five TCP connects.
func (Live) RTT(peer string, port int) (time.Duration, error) {
	rtts, err := probe.ConnectRTT(context.Background(), peer, port, 5, 100*time.Millisecond, 3*time.Second)
	if err != nil {
		return 0, err
	}
	ms := make([]float64, len(rtts))
	for i, r := range rtts {
		ms[i] = float64(r)
	}
	return time.Duration(stats.Median(ms)), nil
}

const (
	ethtoolGRingParam = 0x10
	ethtoolGTSO       = 0x1e
	ethtoolGGSO       = 0x23
	ethtoolGGRO       = 0x2b
	ethtoolGChannels  = 0x3c
)

type ifreq struct {
	name [unix.IFNAMSIZ]byte
	data uintptr
	_    [16]byte
}

func ethtool(fd int, iface string, data unsafe.Pointer) error {
	var r ifreq
	copy(r.name[:], iface)
	r.data = uintptr(data)
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&r))); e != 0 {
		return e
	}
	return nil
}

// Ethtool asks the driver for rings, channels and offloads.
func (Live) Ethtool(iface string) Ethtool {
	var e Ethtool
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		e.RingErr, e.ChannelErr, e.OffloadErr = err, err, err
		return e
	}
	defer unix.Close(fd)
	var ring [9]uint32
	ring[0] = ethtoolGRingParam
	if e.RingErr = ethtool(fd, iface, unsafe.Pointer(&ring)); e.RingErr == nil {
		e.RxMax, e.TxMax, e.RxPending, e.TxPending = ring[1], ring[4], ring[5], ring[8]
	}
	var ch [9]uint32
	ch[0] = ethtoolGChannels
	if e.ChannelErr = ethtool(fd, iface, unsafe.Pointer(&ch)); e.ChannelErr == nil {
		e.CombinedMax, e.Rx, e.Tx, e.Combined = ch[4], ch[5], ch[6], ch[8]
	}
	for _, o := range []struct {
		cmd uint32
		on  *bool
	}{{ethtoolGTSO, &e.TSO}, {ethtoolGGSO, &e.GSO}, {ethtoolGGRO, &e.GRO}} {
		v := [2]uint32{o.cmd, 0}
		if err := ethtool(fd, iface, unsafe.Pointer(&v)); err != nil {
			e.OffloadErr = fmt.Errorf("offloads: %w", err)
			break
		}
		*o.on = v[1] != 0
	}
	return e
}

// Qdisc is the root queueing discipline of iface, through netlink
// (tc qdisc show dev IF root).
func (Live) Qdisc(iface string) (string, error) {
	link, err := netlink.LinkByName(iface)
	if err != nil {
		return "", fmt.Errorf("%s: %w", iface, err)
	}
	qs, err := netlink.QdiscList(link)
	if err != nil {
		return "", fmt.Errorf("qdiscs of %s: %w", iface, err)
	}
	for _, q := range qs {
		if q.Attrs().Parent == netlink.HANDLE_ROOT {
			return q.Type(), nil
		}
	}
	return "", fmt.Errorf("%s has no root qdisc", iface)
}
