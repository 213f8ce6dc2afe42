//go:build linux

package lab_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// doctor as a new user runs it in a lab namespace, with its fixes pasted
// as printed. In end a: SACK off, a 1 MiB tcp_wmem max (1 Gbit/s × 80
// ms needs 10 MB), and the TUN device's queue left as the host gives it.
// Every fix that acts inside the namespace (sysctl, tc, ip, tcptune) is
// run exactly as printed and must succeed; afterwards the checks it
// fixed say ok. The rest (systemctl, cpupower, ethtool: the host's, or
// hardware this lab lacks) must at least name a real tool.
func TestDoctorFixesPasteAsPrinted(t *testing.T) {
	l := newLab(t)
	const name = "tt-doc"
	l.up(name, "--rate", "1gbit", "--rtt", "80ms")
	l.serve(name)
	l.sysctl(name, "a", "net.ipv4.tcp_sack", "0")
	l.sysctl(name, "a", "net.ipv4.tcp_wmem", "'4096 16384 1048576'")
	ns := "tcptune-" + name + "-a"
	type result struct {
		Check, Verdict, Evidence, Why, Fix string
	}
	doctor := func() map[string]result {
		t.Helper()
		out, errOut, err := l.run("lab", "exec", name, "a", "--", "sh", "-c", `exec "$0" doctor --peer "$TCPTUNE_PEER" --rate 1gbit --json`, l.bin)
		if err != nil && !strings.Contains(err.Error(), "exit status 2") {
			t.Fatalf("doctor: %v\n%s%s", err, out, errOut)
		}
		var rs []result
		if err := json.Unmarshal([]byte(out), &rs); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		m := map[string]result{}
		for _, r := range rs {
			m[r.Check] = r
		}
		return m
	}
	before := doctor()
	for _, c := range []string{"sack", "buffers"} {
		if before[c].Fix == "" {
			t.Errorf("%s: no fix printed: %+v", c, before[c])
		}
	}
	if !strings.HasPrefix(before["buffers"].Fix, "tcptune advise --rate 1gbit --rtt 8") {
		t.Errorf("buffers: %+v", before["buffers"])
	}
	fixed := map[string]bool{}
	for _, r := range before {
		if r.Fix == "" {
			continue
		}
		word := strings.Fields(r.Fix)[0]
		switch word {
		case "sysctl", "tc", "ip", "tcptune":
			cmd := r.Fix
			if word == "tcptune" {
				cmd = l.bin + strings.TrimPrefix(cmd, "tcptune")
			}
			out, err := exec.Command("ip", "netns", "exec", ns, "sh", "-c", cmd).CombinedOutput()
			if err != nil {
				t.Errorf("%s: pasting %q failed: %v\n%s", r.Check, r.Fix, err, out)
			}
			t.Logf("%s: pasted %q", r.Check, r.Fix)
			fixed[r.Check] = word != "tcptune"
		case "systemctl", "cpupower", "ethtool":
			t.Logf("%s: not pasted here (acts on the host or on hardware): %q", r.Check, r.Fix)
		default:
			t.Errorf("%s: the fix %q starts with no known tool", r.Check, r.Fix)
		}
	}
	after := doctor()
	for c, ok := range fixed {
		if ok && after[c].Verdict != "ok" {
			t.Errorf("%s: after pasting %q: %s (%s)", c, before[c].Fix, after[c].Verdict, after[c].Evidence)
		}
	}
}

// An overlay below 1500 is raised only to what its lower device carries
// with the overlay's headers, and the size printed passes: VXLAN at 1400
// over the lab's 1500-byte link, at both ends; with the fix run as
// printed, doctor's path-MTU probe (ICMP echoes with DF) finds 1430-byte
// packets crossing the overlay.
func TestDoctorOverlayMTU(t *testing.T) {
	l := newLab(t)
	const name = "tt-ovl"
	l.up(name, "--rate", "100mbit", "--rtt", "10ms")
	links := l.ls()[name]
	for _, e := range []struct{ side, local, remote, addr string }{{"a", links.AddrA, links.AddrB, "192.168.77.1/24"}, {"b", links.AddrB, links.AddrA, "192.168.77.2/24"}} {
		l.must("lab", "exec", name, e.side, "--", "sh", "-c",
			`dev=$(ip -o route get "$1" | sed 's/.* dev \([^ ]*\).*/\1/') && ip link add vx0 type vxlan id 42 dev "$dev" local "$2" remote "$1" dstport 4789 && ip addr add "$3" dev vx0 && ip link set vx0 mtu 1400 up`,
			"sh", e.remote, e.local, e.addr)
	}
	doctor := func(args ...string) []struct{ Check, Verdict, Why, Fix string } {
		t.Helper()
		out, errOut, err := l.run(append([]string{"lab", "exec", name, "a", "--", l.bin, "doctor", "--iface", "vx0", "--json"}, args...)...)
		if err != nil && !strings.Contains(err.Error(), "exit status 2") {
			t.Fatalf("doctor: %v\n%s%s", err, out, errOut)
		}
		var rs []struct{ Check, Verdict, Why, Fix string }
		if err := json.Unmarshal([]byte(out), &rs); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return rs
	}
	var fix string
	for _, r := range doctor() {
		if r.Check == "mtu" {
			fix = r.Fix
		}
	}
	if fix != "ip link set dev vx0 mtu 1430" {
		t.Fatalf("mtu fix %q, want the size the lower link carries", fix)
	}
	l.must(append([]string{"lab", "exec", name, "a", "--"}, strings.Fields(fix)...)...)
	l.must("lab", "exec", name, "b", "--", "ip", "link", "set", "dev", "vx0", "mtu", "1430")
	probed := false
	for _, r := range doctor("--peer", "192.168.77.2") {
		if r.Check == "path-mtu" {
			probed = true
			if r.Verdict != "ok" {
				t.Errorf("at the MTU doctor printed, 1430-byte packets do not cross the overlay: %+v", r)
			}
		}
	}
	if !probed {
		t.Error("no path-mtu check")
	}
}
