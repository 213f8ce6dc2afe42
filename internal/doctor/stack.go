package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkQdisc: the interface's root qdisc (netlink), and the default
// qdisc new interfaces get (a host-wide sysctl, absent in a namespace).
func checkQdisc(h Host, in inputs) []Result {
	def, derr := h.sysctl("net.core.default_qdisc")
	var q string
	qerr := fmt.Errorf("no live probe")
	if h.Probe != nil {
		q, qerr = h.Probe.Qdisc(h.Iface)
	}
	if qerr != nil && derr != nil {
		return []Result{na("qdisc", fmt.Sprintf("%s's qdisc (%v) and net.core.default_qdisc unreadable", h.Iface, qerr))}
	}
	fifo := func(q string) bool { return q == "pfifo_fast" || q == "pfifo" }
	var ev []string
	if qerr == nil {
		ev = append(ev, fmt.Sprintf("%s root qdisc %s", h.Iface, q))
	}
	if derr == nil {
		ev = append(ev, "default qdisc "+def)
	}
	r := Result{Check: "qdisc", Verdict: OK, Evidence: strings.Join(ev, "; ")}
	if (qerr == nil && !fifo(q)) || (qerr != nil && !fifo(def)) {
		return []Result{r}
	}
	r.Verdict, r.Why = Warn, "fq paces each flow (and BBR needs pacing), as ESnet recommends"
	if !fqAvailable(h) {
		r.Why += "; but this kernel offers no sch_fq (not loaded, and not listed under /lib/modules): build or install it first"
		return []Result{r}
	}
	if qerr == nil {
		r.Fix = "tc qdisc replace dev " + h.Iface + " root fq"
	} else {
		r.Fix = "sysctl -w net.core.default_qdisc=fq"
	}
	return []Result{r}
}

// fqAvailable reports whether the kernel can give an interface fq: the
// module is loaded (/sys/module/sch_fq), or built in or installed for
// the running release (modules.builtin, modules.dep).
func fqAvailable(h Host) bool {
	if _, err := os.Stat(h.path("sys/module/sch_fq")); err == nil {
		return true
	}
	rel, err := h.sysctl("kernel.osrelease")
	if err != nil {
		return false
	}
	for _, f := range []string{"modules.builtin", "modules.dep"} {
		b, err := os.ReadFile(h.path(filepath.Join("lib/modules", rel, f)))
		if err == nil && strings.Contains(string(b), "/sch_fq.ko") {
			return true
		}
	}
	return false
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
		r.Why, r.Fix = "grows the window slowly on long fast paths: cubic (or bbr", "sysctl -w net.ipv4.tcp_congestion_control=cubic"
		if !strings.Contains(avail, "bbr") {
			r.Why += ", after modprobe tcp_bbr"
		}
		r.Why += ") does better"
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
			out = append(out, Result{Check: o.name, Verdict: o.off, Evidence: o.key + " = 0", Why: o.why, Fix: "sysctl -w " + o.key + "=1"})
		default:
			out = append(out, Result{Check: o.name, Verdict: OK, Evidence: o.key + " = " + v})
		}
	}
	return out
}
