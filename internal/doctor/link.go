package doctor

import "fmt"

// checkLink: link speed and duplex from sysfs.
func checkLink(h Host, in inputs) []Result {
	if in.speedMbps <= 0 {
		return []Result{na("link", fmt.Sprintf("%s reports no link speed (virtual or down interface)", h.Iface))}
	}
	speed := in.speedMbps
	duplex, _ := h.read("sys/class/net/" + h.Iface + "/duplex")
	r := Result{Check: "link", Verdict: OK, Evidence: fmt.Sprintf("%s %d Mbit/s, %s duplex", h.Iface, speed, duplex)}
	if duplex == "half" {
		r.Verdict, r.Fix = Fail, "half duplex: collisions cap throughput far below the speed; fix autonegotiation (ethtool -s "+h.Iface+" autoneg on) or the switch port"
	}
	return []Result{r}
}

// linkSpeed is the interface's speed in Mbit/s from sysfs (virtual and
// down interfaces report -1 or nothing).
func linkSpeed(h Host) (int64, error) {
	speed, err := h.readInt("sys/class/net/" + h.Iface + "/speed")
	if err == nil && speed <= 0 {
		err = fmt.Errorf("no link speed (%d)", speed)
	}
	if err != nil {
		return 0, err
	}
	return speed, nil
}
