package tune

import (
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
)

// routeLink is the interface of the route to host (netlink, in this
// namespace) and its MTU.
func routeLink(host string) (string, int, error) {
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return "", 0, fmt.Errorf("resolve %s: %v", host, err)
	}
	routes, err := netlink.RouteGet(ips[0])
	if err != nil || len(routes) == 0 {
		return "", 0, fmt.Errorf("route to %s: %v", host, err)
	}
	l, err := netlink.LinkByIndex(routes[0].LinkIndex)
	if err != nil {
		return "", 0, fmt.Errorf("route to %s: %w", host, err)
	}
	return l.Attrs().Name, l.Attrs().MTU, nil
}
