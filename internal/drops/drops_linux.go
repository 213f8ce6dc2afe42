package drops

import (
	"fmt"
	"net"

	"github.com/vishvananda/netlink"

	"github.com/tcptune/tcptune/internal/procnet"
	"github.com/tcptune/tcptune/internal/sysctl"
)

// Snapshot reads the counters now, in this thread's network namespace:
// softnet_stat from root ("/" live) and, through netlink, the interface
// of the route to peer with its root qdisc.
func Snapshot(root string, peer net.IP) (Counters, error) {
	s, err := procnet.FS{Root: root}.SoftnetStat()
	if err != nil {
		return Counters{}, err
	}
	c := Counters{Backlog: s.Dropped, Squeezed: s.Squeezed}
	if v, err := (sysctl.FS{Root: root}).Ints("net.core.netdev_max_backlog"); err == nil && len(v) == 1 {
		c.Backlogs = v[0]
	}
	routes, err := netlink.RouteGet(peer)
	if err != nil || len(routes) == 0 {
		return c, fmt.Errorf("route to %s: %v", peer, err)
	}
	link, err := netlink.LinkByIndex(routes[0].LinkIndex)
	if err != nil {
		return c, fmt.Errorf("the route's interface: %w", err)
	}
	c.Iface, c.TxQLen = link.Attrs().Name, int64(link.Attrs().TxQLen)
	if st := link.Attrs().Statistics; st != nil {
		c.TxDrop = int64(st.TxDropped)
	}
	qs, err := netlink.QdiscList(link)
	if err != nil {
		return c, fmt.Errorf("qdiscs of %s: %w", c.Iface, err)
	}
	for _, q := range qs {
		if a := q.Attrs(); a.Parent == netlink.HANDLE_ROOT && a.Statistics != nil && a.Statistics.Queue != nil {
			c.Qdisc = int64(a.Statistics.Queue.Drops)
		}
	}
	return c, nil
}
