package doctor

import "fmt"

// checkLink: link speed and duplex from sysfs.
func checkLink(h Host, f *facts) []Result {
	dir := "sys/class/net/" + h.Iface + "/"
	speed, err := h.readInt(dir + "speed")
	if err != nil || speed <= 0 {
		return []Result{na("link", fmt.Sprintf("%s reports no link speed (virtual or down interface)", h.Iface))}
	}
	f.speedMbps = speed
	duplex, _ := h.read(dir + "duplex")
	r := Result{Check: "link", Verdict: OK, Evidence: fmt.Sprintf("%s %d Mbit/s, %s duplex", h.Iface, speed, duplex)}
	if duplex == "half" {
		r.Verdict, r.Fix = Fail, "half duplex: collisions cap throughput far below the speed; fix autonegotiation (ethtool -s "+h.Iface+" autoneg on) or the switch port"
	}
	return []Result{r}
}
