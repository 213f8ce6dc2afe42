package doctor

import (
	"fmt"
	"os"
)

// checkLink: link speed and duplex from sysfs.
func checkLink(h Host, in inputs) []Result {
	if in.speedMbps <= 0 {
		return []Result{na("link", fmt.Sprintf("%s reports no link speed (a virtual or down interface)", h.Iface))}
	}
	speed := in.speedMbps
	duplex, _ := h.read("sys/class/net/" + h.Iface + "/duplex")
	r := Result{Check: "link", Verdict: OK, Evidence: fmt.Sprintf("%s %d Mbit/s, %s duplex", h.Iface, speed, duplex)}
	if duplex == "half" {
		r.Verdict, r.Why, r.Fix = Fail, "half duplex: collisions cap throughput far below the speed; fix autonegotiation, or the switch port", "ethtool -s "+h.Iface+" autoneg on"
	}
	return []Result{r}
}

// linkSpeed is the interface's speed in Mbit/s from sysfs: only for a
// device with hardware behind it (sys/class/net/IF/device). Down
// interfaces report -1; virtual ones (tun, veth, bridges) nothing or a
// made-up figure (a TUN device says 10000 on any path).
func linkSpeed(h Host) (int64, error) {
	if _, err := os.Stat(h.path("sys/class/net/" + h.Iface + "/device")); err != nil {
		return 0, fmt.Errorf("%s: a virtual interface, its speed is not the path's", h.Iface)
	}
	speed, err := h.readInt("sys/class/net/" + h.Iface + "/speed")
	if err == nil && speed <= 0 {
		err = fmt.Errorf("no link speed (%d)", speed)
	}
	if err != nil {
		return 0, err
	}
	return speed, nil
}
