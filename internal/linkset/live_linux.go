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

func macLive(ifname string) string {
	l, err := netlink.LinkByName(ifname)
	if err != nil {
		return ""
	}
	return l.Attrs().HardwareAddr.String()
}
