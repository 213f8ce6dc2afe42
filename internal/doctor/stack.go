package doctor

import (
	"fmt"
	"strings"
)

// checkQdisc: the default qdisc.
func checkQdisc(h Host, in inputs) []Result {
	q, err := h.sysctl("net.core.default_qdisc")
	if err != nil {
		return []Result{na("qdisc", "net.core.default_qdisc unreadable")}
	}
	r := Result{Check: "qdisc", Verdict: OK, Evidence: "default qdisc " + q}
	if q == "pfifo_fast" || q == "pfifo" {
		r.Verdict, r.Fix = Warn, "fq paces each flow (and BBR needs pacing): sysctl -w net.core.default_qdisc=fq, as ESnet recommends"
	}
	return []Result{r}
}

// checkCongestion: the congestion control in use and those available.
func checkCongestion(h Host, in inputs) []Result {
	cc, err := h.sysctl("net.ipv4.tcp_congestion_control")
	if err != nil {
		return []Result{na("congestion-control", "net.ipv4.tcp_congestion_control unreadable")}
	}
	avail, _ := h.sysctl("net.ipv4.tcp_available_congestion_control")
	r := Result{Check: "congestion-control", Verdict: OK, Evidence: fmt.Sprintf("%s (available: %s)", cc, avail)}
	switch cc {
	case "reno", "vegas", "westwood":
		r.Verdict = Warn
		r.Fix = "grows the window slowly on long fast paths: sysctl -w net.ipv4.tcp_congestion_control=cubic (or bbr"
		if !strings.Contains(avail, "bbr") {
			r.Fix += " after modprobe tcp_bbr"
		}
		r.Fix += ")"
	}
	return []Result{r}
}

// checkTCPOptions: window scaling, SACK, timestamps.
func checkTCPOptions(h Host, in inputs) []Result {
	var out []Result
	for _, o := range []struct {
		key, name string
		off       Verdict
		why       string
	}{
		{"net.ipv4.tcp_window_scaling", "window-scaling", Fail, "without window scaling the window cannot exceed 64 KB: 10 Mbit/s at 50 ms"},
		{"net.ipv4.tcp_sack", "sack", Warn, "without SACK each loss beyond the first in a window costs a round trip or a timeout"},
		{"net.ipv4.tcp_timestamps", "timestamps", Warn, "without timestamps fast flows lose PAWS and RTT samples during recovery"},
	} {
		v, err := h.sysctl(o.key)
		switch {
		case err != nil:
			out = append(out, na(o.name, o.key+" unreadable"))
		case v == "0":
			out = append(out, Result{Check: o.name, Verdict: o.off, Evidence: o.key + " = 0", Fix: o.why + ": sysctl -w " + o.key + "=1"})
		default:
			out = append(out, Result{Check: o.name, Verdict: OK, Evidence: o.key + " = " + v})
		}
	}
	return out
}
