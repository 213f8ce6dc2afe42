//go:build linux

package linkset

import (
	"fmt"

	"github.com/vishvananda/netlink"
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
// hardware) and its permanent address ("" if the driver has none).
func deviceLive(ifname string) (kind, perm string, err error) {
	l, err := netlink.LinkByName(ifname)
	if err != nil {
		return "", "", err
	}
	if p := l.Attrs().PermHWAddr; len(p) > 0 && p.String() != "00:00:00:00:00:00" {
		perm = p.String()
	}
	return l.Type(), perm, nil
}
