package doctor

import (
	"fmt"
	"runtime"
	"strings"
)

// checkNIC: ring sizes, offloads and channel count, from the driver.
func checkNIC(h Host, in inputs) []Result {
	if h.Probe == nil {
		return []Result{na("nic", "ring sizes, offloads and channels need the live driver (ethtool)")}
	}
	e := h.Probe.Ethtool(h.Iface)
	var out []Result
	if e.RingErr != nil {
		out = append(out, na("nic-rings", fmt.Sprintf("%s: the driver does not report ring sizes (%v)", h.Iface, e.RingErr)))
	} else {
		r := Result{Check: "nic-rings", Verdict: OK, Evidence: fmt.Sprintf("%s rings rx %d/%d, tx %d/%d (current/max)", h.Iface, e.RxPending, e.RxMax, e.TxPending, e.TxMax)}
		if e.RxPending < e.RxMax && in.speedMbps >= 10000 {
			r.Verdict, r.Why, r.Fix = Warn, "a small rx ring on a fast link drops bursts", fmt.Sprintf("ethtool -G %s rx %d", h.Iface, e.RxMax)
		}
		out = append(out, r)
	}
	if e.OffloadErr != nil {
		out = append(out, na("nic-offloads", fmt.Sprintf("%s: offload state unavailable (%v)", h.Iface, e.OffloadErr)))
	} else {
		var off []string
		for _, o := range []struct {
			name string
			on   bool
		}{{"tso", e.TSO}, {"gso", e.GSO}, {"gro", e.GRO}} {
			if !o.on {
				off = append(off, o.name)
			}
		}
		r := Result{Check: "nic-offloads", Verdict: OK, Evidence: fmt.Sprintf("%s: TSO %v, GSO %v, GRO %v", h.Iface, onOff(e.TSO), onOff(e.GSO), onOff(e.GRO))}
		if len(off) > 0 {
			r.Verdict, r.Why, r.Fix = Warn, "segmentation offloads save CPU per byte", fmt.Sprintf("ethtool -K %s %s on", h.Iface, strings.Join(off, " on "))
		}
		out = append(out, r)
	}
	if e.ChannelErr != nil {
		out = append(out, na("nic-channels", fmt.Sprintf("%s: channel count unavailable (%v)", h.Iface, e.ChannelErr)))
	} else {
		n := e.Combined + e.Rx
		r := Result{Check: "nic-channels", Verdict: OK, Evidence: fmt.Sprintf("%s: %d queue(s) (max %d), %d CPUs", h.Iface, n, e.CombinedMax, runtime.NumCPU())}
		if n < e.CombinedMax && int(n) < runtime.NumCPU() {
			r.Verdict, r.Why, r.Fix = Warn, "more queues spread interrupts over more CPUs", fmt.Sprintf("ethtool -L %s combined %d", h.Iface, min(int(e.CombinedMax), runtime.NumCPU()))
		}
		out = append(out, r)
	}
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
