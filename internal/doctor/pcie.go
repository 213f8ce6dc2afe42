package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lane is one PCIe generation's usable bandwidth per lane, after line
// coding (8b/10b to 5 GT/s, 128b/130b from 8 GT/s).
type lane struct {
	gt     float64
	gen    int
	coding string
	gbps   float64
}

var lanes = []lane{
	{2.5, 1, "8b/10b", 2.5 * 8 / 10},
	{5, 2, "8b/10b", 5 * 8 / 10},
	{8, 3, "128b/130b", 8 * 128 / 130.0},
	{16, 4, "128b/130b", 16 * 128 / 130.0},
	{32, 5, "128b/130b", 32 * 128 / 130.0},
	{64, 6, "FLIT 242/256", 64 * 242 / 256.0},
}

// pciDevice finds the PCI function behind an interface: the device link,
// or its nearest ancestor with a PCI "class" file.
func pciDevice(h Host) (string, bool) {
	link := h.path("sys/class/net/" + h.Iface + "/device")
	dir, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", false
	}
	for d := dir; strings.HasPrefix(d, h.path("sys")) && d != h.path("sys"); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "class")); err == nil && strings.Contains(filepath.Base(d), ":") {
			return d, true
		}
	}
	return "", false
}

// checkPCIe: the slot's speed × width against the NIC's speed.
func checkPCIe(h Host, in inputs) []Result {
	dev, ok := pciDevice(h)
	if !ok {
		return []Result{na("pcie", fmt.Sprintf("%s has no PCI device in sysfs (virtual interface)", h.Iface))}
	}
	read := func(n string) string {
		b, _ := os.ReadFile(filepath.Join(dev, n))
		return strings.TrimSpace(string(b))
	}
	speedS, widthS := read("current_link_speed"), read("current_link_width")
	if speedS == "" || widthS == "" {
		return []Result{na("pcie", fmt.Sprintf("%s (%s) exposes no PCIe link speed: legacy PCI or a virtual function (32-bit/33 MHz PCI moves about 133 MB/s, 1.06 Gbit/s)", h.Iface, filepath.Base(dev)))}
	}
	gt, _ := strconv.ParseFloat(strings.Fields(speedS)[0], 64)
	width, _ := strconv.Atoi(widthS)
	var l lane
	for _, x := range lanes {
		if x.gt == gt {
			l = x
		}
	}
	if l.gt == 0 || width <= 0 {
		return []Result{na("pcie", fmt.Sprintf("%s: unrecognised PCIe link %q × %q", filepath.Base(dev), speedS, widthS))}
	}
	slot := l.gbps * float64(width)
	ev := fmt.Sprintf("%s in a PCIe gen%d x%d slot: %g GT/s × %d lane(s) × %s = %.1f Gbit/s", filepath.Base(dev), l.gen, width, gt, width, l.coding, slot)
	note := ""
	if max := read("max_link_width"); max != "" && max != widthS {
		note = fmt.Sprintf(" (the device could use x%s)", max)
	}
	if in.speedMbps <= 0 {
		return []Result{{Check: "pcie", Verdict: OK, Evidence: ev + note + "; NIC speed unknown"}}
	}
	nic := float64(in.speedMbps) / 1000
	r := Result{Check: "pcie", Verdict: OK, Evidence: fmt.Sprintf("%s for a %g Gbit/s NIC%s", ev, nic, note)}
	switch {
	case slot < nic:
		r.Verdict = Fail
		r.Evidence = fmt.Sprintf("%s < %g Gbit/s NIC%s", ev, nic, note)
		r.Why = "the slot cannot carry the NIC's line rate: move the card to a faster or wider slot (check the BIOS's lane allocation)"
	case slot < 1.25*nic:
		r.Verdict = Warn
		r.Why = "the slot barely exceeds line rate: descriptor and DMA overhead may cap throughput below it; prefer a faster or wider slot"
	}
	return []Result{r}
}
