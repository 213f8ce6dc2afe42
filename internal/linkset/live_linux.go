//go:build linux

package linkset

import (
	"fmt"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

func getLive(ifname, attr string) (int, error) {
	l, err := netlink.LinkByName(ifname)
	if err != nil {
		return 0, err
	}
	a := l.Attrs()
	if attr == "mtu" {
		return a.MTU, nil
	}
	return a.TxQLen, nil
}

func setLive(ifname, attr string, v int) error {
	l, err := netlink.LinkByName(ifname)
	if err != nil {
		return err
	}
	switch attr {
	case "mtu":
		return netlink.LinkSetMTU(l, v)
	case "txqueuelen":
		return netlink.LinkSetTxQLen(l, v)
	}
	return fmt.Errorf("unknown attribute %q", attr)
}

// deviceLive is the link's kind as netlink names it ("device" for
// hardware), its permanent address ("" if the driver has none) and its
// driver as ethtool reports it (veth, bridge, e1000e; what udev's
// Driver= matches; "" if none answers).
func deviceLive(ifname string) (kind, perm, driver string, err error) {
	l, err := netlink.LinkByName(ifname)
	if err != nil {
		return "", "", "", err
	}
	if p := l.Attrs().PermHWAddr; len(p) > 0 && p.String() != "00:00:00:00:00:00" {
		perm = p.String()
	}
	if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err == nil {
		if info, err := unix.IoctlGetEthtoolDrvinfo(fd, ifname); err == nil {
			driver = unix.ByteSliceToString(info.Driver[:])
		}
		unix.Close(fd)
	}
	return l.Type(), perm, driver, nil
}
