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

// deviceLive is what netlink and ethtool say of a link: its kind
// ("device" for hardware), its permanent address ("" if the driver has
// none), its driver as ethtool reports it (veth, bridge, e1000e; what
// udev's Driver= matches; "" if none answers), and the device it is
// stacked on (IFLA_LINK, or a VXLAN's VTEP device; never a veth's
// peer, which lives in another namespace).
func deviceLive(ifname string) (liveDevice, error) {
	var d liveDevice
	l, err := netlink.LinkByName(ifname)
	if err != nil {
		return d, err
	}
	d.kind = l.Type()
	if p := l.Attrs().PermHWAddr; len(p) > 0 && p.String() != "00:00:00:00:00:00" {
		d.perm = p.String()
	}
	if fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err == nil {
		if info, err := unix.IoctlGetEthtoolDrvinfo(fd, ifname); err == nil {
			d.driver = unix.ByteSliceToString(info.Driver[:])
		}
		unix.Close(fd)
	}
	lower := l.Attrs().ParentIndex
	if vx, ok := l.(*netlink.Vxlan); ok {
		lower = vx.VtepDevIndex
	}
	if lower > 0 && lower != l.Attrs().Index && d.kind != "veth" {
		if p, err := netlink.LinkByIndex(lower); err == nil {
			d.lower = p.Attrs().Name
		}
	}
	return d, nil
}
