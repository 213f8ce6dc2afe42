package doctor

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/pmtu"
	"github.com/tcptune/tcptune/internal/window"
)

// tree writes a fixture tree: files (path → content) and symlinks
// (path → target).
func tree(t *testing.T, files, links map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range links {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func netstat(t *testing.T) map[string]string {
	m := map[string]string{}
	for _, f := range []string{"netstat", "snmp"} {
		b, err := os.ReadFile("../procnet/testdata/proc/net/" + f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		// The fixture entered tcp_mem pressure twice; this host did not.
		for i := 0; i+1 < len(lines); i += 2 {
			h, v := strings.Fields(lines[i]), strings.Fields(lines[i+1])
			for j := range h {
				if h[j] == "TCPMemoryPressures" && j < len(v) {
					v[j] = "0"
				}
			}
			lines[i+1] = strings.Join(v, " ")
		}
		m["proc/net/"+f] = strings.Join(lines, "\n")
	}
	return m
}

const nicDev = "sys/devices/pci0000:00/0000:00:01.0/0000:07:00.0"

// configSpace is a 256-byte PCI config space whose PCI Express
// capability (at 0x50, after a power-management one at 0x40) says the
// device supports 512-byte payloads and is set to mps and mrrs bytes.
func configSpace(mps, mrrs int) string {
	c := make([]byte, 256)
	c[6] = 0x10                // status: capability list
	c[0x34] = 0x40             // first capability
	c[0x40], c[0x41] = 1, 0x50 // power management → next
	c[0x50] = 0x10             // PCI Express
	c[0x54] = 2                // Device Capabilities: MPS supported 512
	code := func(b int) uint16 {
		n := uint16(0)
		for 128<<n < b {
			n++
		}
		return n
	}
	ctl := code(mps)<<5 | code(mrrs)<<12
	c[0x58], c[0x59] = byte(ctl), byte(ctl>>8)
	return string(c)
}

// base is a 10G host; overrides change single files.
func base(t *testing.T, over map[string]string) map[string]string {
	f := netstat(t)
	for k, v := range map[string]string{
		"sys/class/net/eth9/mtu":                               "1500",
		"sys/class/net/eth9/speed":                             "10000",
		"sys/class/net/eth9/duplex":                            "full",
		nicDev + "/class":                                      "0x020000",
		nicDev + "/current_link_speed":                         "8.0 GT/s PCIe",
		nicDev + "/current_link_width":                         "8",
		nicDev + "/max_link_width":                             "8",
		nicDev + "/config":                                     configSpace(256, 4096),
		"sys/class/net/eth9/tx_queue_len":                      "10000",
		"sys/devices/pci0000:00/0000:00:01.0/class":            "0x060400",
		"proc/net/route":                                       "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\neth9\t00000000\t0102000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\neth9\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n",
		"proc/net/sockstat":                                    "sockets: used 10\nTCP: inuse 3 orphan 0 tw 0 alloc 4 mem 50\n",
		"proc/net/softnet_stat":                                "00000010 00000000 00000000\n00000010 00000000 00000000\n",
		"proc/sys/net/ipv4/tcp_window_scaling":                 "1",
		"proc/sys/net/ipv4/tcp_sack":                           "1",
		"proc/sys/net/ipv4/tcp_timestamps":                     "1",
		"proc/sys/net/core/default_qdisc":                      "fq",
		"proc/sys/net/ipv4/tcp_congestion_control":             "cubic",
		"proc/sys/net/ipv4/tcp_available_congestion_control":   "reno cubic",
		"proc/sys/net/ipv4/tcp_rmem":                           "4096 131072 134217728",
		"proc/sys/net/ipv4/tcp_wmem":                           "4096 16384 134217728",
		"proc/sys/net/ipv4/tcp_mem":                            "100000 200000 300000",
		"proc/sys/net/core/netdev_max_backlog":                 "1000",
		"proc/1/comm":                                          "systemd",
		"proc/77/comm":                                         "irqbalance",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "performance",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "performance",
	} {
		f[k] = v
	}
	for k, v := range over {
		if v == "" {
			delete(f, k)
		} else {
			f[k] = v
		}
	}
	return f
}

var nicLink = map[string]string{"sys/class/net/eth9/device": "../../../devices/pci0000:00/0000:00:01.0/0000:07:00.0"}

type fakeProbe struct {
	pmtu       int
	pmtuResult *pmtu.Result // when set, what the probes found
	rtt        time.Duration
	e          Ethtool
	qdisc      string // "" = unreadable
}

func (p fakeProbe) Qdisc(string) (string, error) {
	if p.qdisc == "" {
		return "", errors.New("no netlink")
	}
	return p.qdisc, nil
}

func (p fakeProbe) PathMTU(_ string, max int) (pmtu.Result, error) {
	if p.pmtuResult != nil {
		return *p.pmtuResult, nil
	}
	return pmtu.Result{Largest: min(p.pmtu, max), ICMP: map[bool]int{true: p.pmtu}[p.pmtu < max]}, nil
}
func (p fakeProbe) RTT(string, int) (time.Duration, error) { return p.rtt, nil }
func (p fakeProbe) Ethtool(string) Ethtool                 { return p.e }

var goodNIC = Ethtool{RxPending: 4096, RxMax: 4096, TxPending: 4096, TxMax: 4096, Combined: 2, CombinedMax: 2, TSO: true, GSO: true, GRO: true}

func results(t *testing.T, h Host) map[string]Result {
	t.Helper()
	rs, err := Run(h)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Result{}
	for _, r := range rs {
		if r.Evidence == "" {
			t.Errorf("%s: no evidence", r.Check)
		}
		if (r.Verdict == Warn || r.Verdict == Fail) && r.Why == "" {
			t.Errorf("%s: %s without saying what to do", r.Check, r.Verdict)
		}
		if r.Fix != "" && (strings.ContainsAny(r.Fix, "…()") || strings.Contains(r.Fix, " or ") || strings.Contains(r.Fix, ": ")) {
			t.Errorf("%s: the fix %q is not one command to paste", r.Check, r.Fix)
		}
		m[r.Check] = r
	}
	return m
}

func TestHealthyHost(t *testing.T) {
	root := tree(t, base(t, nil), nicLink)
	m := results(t, Host{Root: root, Peer: "10.0.0.2", Port: 5201, Probe: fakeProbe{pmtu: 1500, rtt: 50 * time.Millisecond, e: goodNIC}})
	for _, c := range []string{"mtu", "path-mtu", "link", "pcie", "pcie-payload", "nic-rings", "nic-offloads", "nic-channels", "txqueuelen", "irqbalance", "cpu-governor", "qdisc", "congestion-control", "window-scaling", "sack", "timestamps", "buffers", "tcp-mem", "backlog"} {
		r, ok := m[c]
		if !ok {
			t.Errorf("check %s missing", c)
			continue
		}
		// 10G × 50 ms is 62.5 MB: 128 MB buffers are 2 × BDP.
		if r.Verdict != OK {
			t.Errorf("%s: %s: %s (%s)", c, r.Verdict, r.Evidence, r.Fix)
		}
	}
	if !strings.Contains(m["pcie"].Evidence, "gen3 x8") || !strings.Contains(m["pcie"].Evidence, "63.0 Gbit/s") {
		t.Errorf("pcie: %s", m["pcie"].Evidence)
	}
}

// A 10 Gbit/s NIC in a PCIe gen1 x1 slot fails,
// with the arithmetic; and a host with every other problem.
func TestSickHost(t *testing.T) {
	root := tree(t, base(t, map[string]string{
		nicDev + "/current_link_speed":                         "2.5 GT/s PCIe",
		nicDev + "/current_link_width":                         "1",
		"sys/class/net/eth9/duplex":                            "half",
		"proc/sys/net/ipv4/tcp_window_scaling":                 "0",
		"proc/sys/net/ipv4/tcp_sack":                           "0",
		"proc/sys/net/core/default_qdisc":                      "pfifo_fast",
		"proc/sys/net/ipv4/tcp_congestion_control":             "reno",
		"proc/sys/net/ipv4/tcp_rmem":                           "4096 131072 6291456",
		"proc/net/sockstat":                                    "TCP: inuse 3 orphan 0 tw 0 alloc 4 mem 250000\n",
		"proc/net/softnet_stat":                                "00000010 0000002a 00000000\n",
		"proc/77/comm":                                         "sshd",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": "powersave",
		nicDev + "/config":                                     configSpace(128, 128),
		"sys/class/net/eth9/tx_queue_len":                      "1000",
	}), nicLink)
	nic := Ethtool{RxPending: 256, RxMax: 4096, TxPending: 256, TxMax: 4096, Combined: 1, CombinedMax: 8, TSO: false, GSO: true, GRO: true}
	m := results(t, Host{Root: root, Peer: "10.0.0.2", Port: 5201, Probe: fakeProbe{pmtu: 1400, rtt: 50 * time.Millisecond, e: nic}})
	want := map[string]Verdict{"pcie": Fail, "link": Fail, "window-scaling": Fail, "buffers": Fail, "tcp-mem": Fail,
		"sack": Warn, "qdisc": Warn, "congestion-control": Warn, "backlog": Warn, "irqbalance": Warn, "cpu-governor": Warn,
		"path-mtu": Warn, "nic-rings": Warn, "nic-offloads": Warn, "nic-channels": Warn, "mtu": OK, "timestamps": OK,
		"pcie-payload": Warn, "txqueuelen": Warn}
	for c, v := range want {
		if m[c].Verdict != v {
			t.Errorf("%s: %s, want %s: %s", c, m[c].Verdict, v, m[c].Evidence)
		}
	}
	if e := m["pcie"].Evidence; !strings.Contains(e, "2.5 GT/s × 1 lane(s) × 8b/10b = 2.0 Gbit/s < 10 Gbit/s NIC") || !strings.Contains(e, "could use x8") {
		t.Errorf("pcie arithmetic: %s", e)
	}
	if e := m["buffers"].Evidence; !strings.Contains(e, "BDP 62.5 MB") {
		t.Errorf("buffers: %s", e)
	}
	if f := m["nic-offloads"].Fix; !strings.Contains(f, "ethtool -K eth9 tso on") {
		t.Errorf("offload fix: %s", f)
	}
	if e := m["pcie-payload"].Evidence; !strings.Contains(e, "Max_Read_Request_Size 128 B, Max_Payload_Size 128 B (device supports 512 B)") {
		t.Errorf("pcie-payload: %s", e)
	}
	if r := m["txqueuelen"]; r.Fix != "ip link set dev eth9 txqueuelen 10000" || !strings.Contains(r.Evidence, "1.20 ms") {
		t.Errorf("txqueuelen: %+v", r)
	}
}

// A VM: no link speed, no PCIe attributes, no cpufreq, a driver that
// answers nothing — every such check says n/a instead of guessing.
func TestUnreadable(t *testing.T) {
	f := base(t, map[string]string{"sys/class/net/eth9/speed": "-1", nicDev + "/current_link_speed": "", nicDev + "/current_link_width": "",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "", "sys/devices/system/cpu/cpu1/cpufreq/scaling_governor": ""})
	root := tree(t, f, nicLink)
	errNo := errors.New("operation not supported")
	m := results(t, Host{Root: root, Probe: fakeProbe{e: Ethtool{RingErr: errNo, ChannelErr: errNo, OffloadErr: errNo}}})
	for _, c := range []string{"link", "pcie", "cpu-governor", "nic-rings", "nic-offloads", "nic-channels"} {
		if m[c].Verdict != NA {
			t.Errorf("%s: %s, want n/a: %s", c, m[c].Verdict, m[c].Evidence)
		}
	}
	if !strings.Contains(m["pcie"].Evidence, "133 MB/s") {
		t.Errorf("pcie: %s", m["pcie"].Evidence)
	}
	// No interface at all is an error, not a guess.
	if _, err := Run(Host{Root: root, Iface: "nope0"}); err == nil {
		t.Error("missing interface accepted")
	}
}

func TestRoute(t *testing.T) {
	root := tree(t, map[string]string{"proc/net/route": "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n" +
		"eth0\t00000000\t0102000A\t0003\t0\t0\t0\t00000000\n" +
		"eth1\t0000A8C0\t00000000\t0001\t0\t0\t0\t0000FFFF\n"}, nil)
	for peer, want := range map[string]string{"": "eth0", "192.168.3.4": "eth1", "8.8.8.8": "eth0", "127.0.0.1": "lo"} {
		if got, err := routeIface(Host{Root: root, Peer: peer}); err != nil || got != want {
			t.Errorf("route to %q: %s, %v; want %s", peer, got, err, want)
		}
	}
}

// A live run on this machine: every check answers with a verdict and
// evidence (n/a where the VM has nothing to read).
func TestLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	m := results(t, Host{Root: "/", Peer: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, Probe: Live{}, Rate: 10e9})
	for _, c := range []string{"mtu", "path-mtu", "link", "pcie", "nic-rings", "irqbalance", "cpu-governor", "qdisc", "congestion-control", "window-scaling", "sack", "timestamps", "buffers", "tcp-mem", "backlog"} {
		r, ok := m[c]
		if !ok || (r.Verdict != OK && r.Verdict != Warn && r.Verdict != Fail && r.Verdict != NA) {
			t.Errorf("live %s: %+v", c, r)
		}
		t.Logf("%-18s %-4s %s", c, r.Verdict, r.Evidence)
	}
	if m["buffers"].Verdict == NA {
		t.Errorf("live buffers: %s", m["buffers"].Evidence)
	}
}

// On a 10G link with a 1500-byte MTU, doctor suggests jumbo frames; on
// a 1G link it does not. (The hint read the link speed before the link
// check had set it, and never fired.)
func TestJumboFrameHint(t *testing.T) {
	for _, c := range []struct {
		speed string
		hint  bool
	}{{"10000", true}, {"25000", true}, {"1000", false}, {"-1", false}} {
		root := tree(t, base(t, map[string]string{"sys/class/net/eth9/speed": c.speed}), nicLink)
		r := results(t, Host{Root: root})["mtu"]
		if got := strings.Contains(r.Why, "jumbo frames"); got != c.hint {
			t.Errorf("speed %s, MTU 1500: jumbo hint %v, want %v (%+v)", c.speed, got, c.hint, r)
		}
	}
}

// Every check gives the same result whatever runs before it.
func TestChecksStandAlone(t *testing.T) {
	root := tree(t, base(t, nil), nicLink)
	h := Host{Root: root, Iface: "eth9", Peer: "10.0.0.2", Port: 5201, Probe: fakeProbe{pmtu: 1500, rtt: 50 * time.Millisecond, e: goodNIC}}
	in := gather(h)
	all := checks()
	forward := map[int][]Result{}
	for i, c := range all {
		forward[i] = c(h, in)
	}
	for i := len(all) - 1; i >= 0; i-- {
		if got := all[i](h, in); !reflect.DeepEqual(got, forward[i]) {
			t.Errorf("check %d alone: %+v, in order: %+v", i, got, forward[i])
		}
	}
}

func TestWriteText(t *testing.T) {
	res := []Result{{Check: "mtu", Verdict: OK, Evidence: "eth9 MTU 1500"}, {Check: "link", Verdict: Fail, Evidence: "half", Why: "fix the port", Fix: "ethtool -s eth9 autoneg on"}}
	var b strings.Builder
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "CHECK") || !strings.Contains(lines[2], "FAIL") || !strings.Contains(lines[3], "→ fix the port") || !strings.HasSuffix(lines[4], "$ ethtool -s eth9 autoneg on") {
		t.Fatalf("%q", lines)
	}
	if !Failed(res) || Failed(res[:1]) {
		t.Fatal("Failed")
	}
}

// A tune killed mid-trial leaves its backup "applied" with the pid of a
// process that is gone: doctor names it and the rollback that undoes it.
func TestInterruptedTune(t *testing.T) {
	root := tree(t, base(t, nil), nicLink)
	dir := filepath.Join(root, "backups")
	os.MkdirAll(dir, 0o700)
	os.MkdirAll(filepath.Join(root, "proc", "4242"), 0o755) // still running
	write := func(id string, pid int) {
		b := fmt.Sprintf(`{"id":%q,"time":"2026-11-23T10:00:00Z","changes":[{"key":"net.ipv4.tcp_wmem","old":"4096 16384 4194304","new":"4096 16384 9437184"}],"state":"applied","trial_pid":%d}`, id, pid)
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("20261123-100000-aaaaa1", 4242) // a running tune's trial
	write("20261123-100000-aaaaa2", 0)    // an apply meant to stay
	h := Host{Root: root, Probe: fakeProbe{e: goodNIC}, Backups: dir}
	if r := results(t, h)["interrupted-tune"]; r.Verdict != OK {
		t.Fatalf("%+v", r)
	}
	write("20261123-100001-aaaaa3", 4243) // its process is gone
	r := results(t, h)["interrupted-tune"]
	if r.Verdict != Fail || !strings.Contains(r.Evidence, "tcp_wmem 4096 16384 4194304 → 4096 16384 9437184") || r.Fix != "tcptune rollback 20261123-100001-aaaaa3" {
		t.Fatalf("%+v", r)
	}
}

// The path's rate: --rate wins over the link speed, a virtual interface
// (no device behind it: a TUN says 10000 Mbit/s on any path) has no
// speed to take, and the advise command doctor prints parses as a flag
// (it printed "--rate 10 Gbit/s", which the shell splits).
func TestRateAndPasteableAdvise(t *testing.T) {
	f := base(t, map[string]string{"proc/sys/net/ipv4/tcp_rmem": "4096 131072 6291456", "proc/sys/net/ipv4/tcp_wmem": "4096 16384 4194304"})
	probe := fakeProbe{pmtu: 1500, rtt: 80300 * time.Microsecond, e: goodNIC, qdisc: "pfifo_fast"}
	f["sys/module/sch_fq/refcnt"] = "0" // fq is loaded
	virtual := tree(t, f, nil)          // no sys/class/net/eth9/device
	m := results(t, Host{Root: virtual, Peer: "10.0.0.2", Port: 5201, Probe: probe})
	if r := m["buffers"]; r.Verdict != NA || !strings.Contains(r.Why, "--rate") || m["link"].Verdict != NA {
		t.Errorf("virtual interface: buffers %+v, link %+v", r, m["link"])
	}
	m = results(t, Host{Root: virtual, Peer: "10.0.0.2", Port: 5201, Probe: probe, Rate: 1e9})
	r := m["buffers"]
	if r.Verdict != Fail || r.Fix != "tcptune advise --rate 1gbit --rtt 80.3ms" || !strings.Contains(r.Evidence, "rate from --rate") {
		t.Errorf("--rate 1gbit: %+v", r)
	}
	// The interface's own qdisc, read through the prober, and the command
	// that replaces it.
	if q := m["qdisc"]; q.Verdict != Warn || q.Fix != "tc qdisc replace dev eth9 root fq" || !strings.Contains(q.Evidence, "eth9 root qdisc pfifo_fast") {
		t.Errorf("qdisc: %+v", q)
	}
	// A kernel without sch_fq (this machine's): the advice, no command
	// that would fail when pasted ("Specified qdisc kind is unknown").
	delete(f, "sys/module/sch_fq/refcnt")
	f["proc/sys/kernel/osrelease"] = "6.18.0"
	f["lib/modules/6.18.0/modules.dep"] = "kernel/net/sched/sch_htb.ko:\n"
	if q := results(t, Host{Root: tree(t, f, nil), Probe: probe})["qdisc"]; q.Verdict != Warn || q.Fix != "" || !strings.Contains(q.Why, "no sch_fq") {
		t.Errorf("qdisc without sch_fq: %+v", q)
	}
	f["lib/modules/6.18.0/modules.dep"] = "kernel/net/sched/sch_fq.ko:\n"
	if q := results(t, Host{Root: tree(t, f, nil), Probe: probe})["qdisc"]; q.Fix == "" {
		t.Errorf("qdisc with sch_fq installed: %+v", q)
	}
	probe.qdisc = "fq"
	if q := results(t, Host{Root: virtual, Probe: probe})["qdisc"]; q.Verdict != OK {
		t.Errorf("qdisc fq: %+v", q)
	}
}

// Config space as a non-root reader sees it (64 bytes): the capability
// list lies beyond, and doctor says so instead of guessing.
func TestPCIeControlUnreadable(t *testing.T) {
	full := configSpace(256, 4096)
	if c, err := readPCIeControl([]byte(full)); err != nil || c.MRRS != 4096 || c.MPS != 256 || c.MPSSupported != 512 {
		t.Errorf("full: %+v %v", c, err)
	}
	if _, err := readPCIeControl([]byte(full[:64])); err == nil || !strings.Contains(err.Error(), "root reads all 256") {
		t.Errorf("64 bytes: %v", err)
	}
	loop := []byte(full)
	loop[0x41], loop[0x51] = 0x50, 0x40 // a cycle, and no PCIe capability
	loop[0x50] = 0x05
	if _, err := readPCIeControl(loop); err == nil {
		t.Error("a capability cycle was followed")
	}
}

// What the path MTU probes found decides the verdict: a black hole
// fails (with the guard to paste), a smaller hop that answers warns,
// no echo at all is unknown, the interface's MTU end to end is fine.
func TestPathMTUVerdicts(t *testing.T) {
	h := Host{Peer: "10.0.0.2"}
	for _, tc := range []struct {
		r    pmtu.Result
		want Verdict
		fix  string
	}{
		{pmtu.Result{Largest: 9000, Probes: 2}, OK, ""},
		{pmtu.Result{Largest: 1500, ICMP: 1500, Probes: 3}, Warn, "sysctl -w net.ipv4.tcp_mtu_probing=1"},
		{pmtu.Result{Largest: 3992, Blackhole: true, Probes: 30}, Fail, "sysctl -w net.ipv4.tcp_mtu_probing=1"},
		{pmtu.Result{Unknown: true, Probes: 3}, NA, ""},
	} {
		got := pathMTUResult(h, tc.r, 9000)
		if got.Verdict != tc.want || got.Fix != tc.fix {
			t.Errorf("%+v: %s %q, want %s %q (%s)", tc.r, got.Verdict, got.Fix, tc.want, tc.fix, got.Evidence)
		}
	}
}

// An MTU below 1500 gets a command only where the size it names is
// known to fit: an overlay raised as far as its lower device carries
// with the overlay's headers; never 1500 for a tunnel or for a network
// that may need less.
func TestLowMTUFixOnlyWhatFits(t *testing.T) {
	for _, c := range []struct {
		name, kind, lower string
		mtu               string
		want              Verdict
		fix               string
	}{
		{"vxlan under its lower link's room", "vxlan", "eth9", "1400", Warn, "ip link set dev ov0 mtu 1430"},
		{"vxlan at what fits", "vxlan", "eth9", "1450", OK, ""},
		{"wireguard, no lower device", "wireguard", "", "1420", OK, ""},
		{"an Ethernet port below 1500", "", "", "1460", Warn, ""},
	} {
		files := map[string]string{
			"sys/class/net/eth9/ifindex": "2", "sys/class/net/eth9/iflink": "2",
			"sys/class/net/ov0/mtu": c.mtu, "sys/class/net/ov0/ifindex": "7", "sys/class/net/ov0/iflink": "7",
			"sys/class/net/ov0/type": "1", "sys/class/net/ov0/address": "02:00:00:00:00:07", "sys/class/net/ov0/addr_assign_type": "0",
		}
		if c.kind != "" {
			files["sys/class/net/ov0/uevent"] = "DEVTYPE=" + c.kind + "\nINTERFACE=ov0\n"
		}
		if c.lower != "" {
			files["sys/class/net/ov0/iflink"] = "2"
		}
		root := tree(t, base(t, files), nicLink)
		r := results(t, Host{Root: root, Iface: "ov0"})["mtu"]
		if r.Verdict != c.want || r.Fix != c.fix {
			t.Errorf("%s: %s, fix %q; want %s, fix %q (%+v)", c.name, r.Verdict, r.Fix, c.want, c.fix, r)
		}
	}
}

// The buffers check agrees with advise and tune: OK at the window
// model's need (plan.Needs), a warning just below it, a failure where
// the buffer caps one flow below the path.
func TestBufferVerdictAtTheModelsNeed(t *testing.T) {
	m, rate, rtt := window.Linux66, 1e9, 50*time.Millisecond
	bdp := window.BDP(rate, rtt)
	needR, needW := plan.Needs(bdp, rate, rtt, m.Recv, m.Send, plan.DefaultPolicy(3, 5*time.Second, 0, rtt))
	for _, c := range []struct {
		name       string
		rmax, wmax int64
		want       Verdict
	}{
		{"at the need", needR, needW, OK},
		{"rmem inside the headroom", needR * 99 / 100, needW, Warn},
		{"wmem inside the headroom", needR, needW * 99 / 100, Warn},
		{"the default 4 MiB send buffer", needR, 4 << 20, Fail},
	} {
		if r := bufferVerdict(m, "", rate, rtt, c.rmax, c.wmax); r.Verdict != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, r.Verdict, r.Evidence, c.want)
		}
	}
}
