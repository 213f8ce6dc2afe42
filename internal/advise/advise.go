// Package advise computes socket-buffer settings from a path's rate and
// RTT (the bandwidth-delay product), with a reason for each value, a
// memory budget, the role's caveats and corrections of common myths, and
// renders them for each OS and configuration format. It is pure logic:
// the caller supplies facts about the host (RAM, tcp_mem).
package advise

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/profiles"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

// IntMax is the largest socket buffer any of these kernels accepts.
const IntMax = 2147483647

// Input describes the path and the host.
type Input struct {
	Rate        float64       // bit/s of the path (or of the NIC)
	RTT         time.Duration // round-trip time
	Streams     int           // parallel streams per transfer
	Connections int           // concurrent connections expected on the host
	Memory      int64         // host RAM, bytes (0 = unknown)
	TCPMemMax   int64         // Linux tcp_mem max in bytes (0 = unknown)
	Role        string        // host, storage, firewall, router
	OS          string        // linux, freebsd, solaris10, solaris11, macos, windows
	// Kernel is the Linux release the advice is for ("6.18.4", as uname
	// -r): the defaults it is never below are that kernel's ("": the
	// newest's).
	Kernel string
	// RateAsWritten is the rate in the user's unit with its reading in
	// bits ("125MB/s = 1 Gbit/s (bytes per second × 8)"), echoed as
	// given; "" prints the rate in bits alone.
	RateAsWritten string
}

// MarshalJSON writes the input with snake_case keys that carry their
// units, as the rest of tcptune's JSON does.
func (in Input) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Rate        float64 `json:"rate_bits_per_second"`
		RTT         float64 `json:"rtt_ms"`
		Streams     int     `json:"streams"`
		Connections int     `json:"connections"`
		Memory      int64   `json:"memory_bytes,omitempty"`
		TCPMemMax   int64   `json:"tcp_mem_max_bytes,omitempty"`
		Role        string  `json:"role"`
		OS          string  `json:"os"`
	}{in.Rate, float64(in.RTT) / 1e6, in.Streams, in.Connections, in.Memory, in.TCPMemMax, in.Role, in.OS})
}

// Setting is one recommended value.
type Setting struct {
	Key    string  `json:"key"`
	Values []int64 `json:"values,omitempty"`
	Text   string  `json:"text,omitempty"` // non-numeric values (Windows levels)
	Reason string  `json:"reason"`
	// Grows is what a flow of the path grows an autotuned buffer to
	// where its maximum (a kernel default kept) is above that; 0: the
	// maximum. The memory budget counts it.
	Grows int64 `json:"-"`
}

// Value renders the setting's value as sysctl writes it.
func (s Setting) Value() string {
	if s.Text != "" {
		return s.Text
	}
	out := ""
	for i, v := range s.Values {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprint(v)
	}
	return out
}

// Budget is the worst-case memory the recommendation can commit.
type Budget struct {
	PerConnection int64  `json:"per_connection_bytes"`
	Total         int64  `json:"total_bytes"`
	Memory        int64  `json:"memory_bytes,omitempty"`
	TCPMemMax     int64  `json:"tcp_mem_max_bytes,omitempty"`
	Fits          bool   `json:"fits"`
	Note          string `json:"note"`
}

// Advice is the result.
type Advice struct {
	Input      Input     `json:"input"`
	BDP        int64     `json:"bdp_bytes"`
	StreamBDP  int64     `json:"stream_bdp_bytes"`
	Settings   []Setting `json:"settings"`
	Budget     Budget    `json:"budget"`
	Warnings   []string  `json:"warnings,omitempty"`
	Myths      []string  `json:"myths,omitempty"`
	CrossCheck string    `json:"cross_check,omitempty"`
	Persist    string    `json:"persist"`
	// Link is what the interface needs besides the kernel's settings
	// (MTU, transmit queue), with the command that sets it on this OS.
	Link []LinkSetting `json:"link,omitempty"`
}

// LinkSetting is one interface setting: its value, why, and the
// command for the OS ("IF" stands for the interface).
type LinkSetting struct {
	Name    string `json:"name"` // mtu, txqueuelen
	Value   int64  `json:"value"`
	Reason  string `json:"reason"`
	Command string `json:"command"`
}

// Validate checks the input.
func (in Input) Validate() error {
	switch {
	case in.Rate < 1e3 || in.Rate > 1e12:
		return fmt.Errorf("--rate: accepts 1kbit .. 1tbit")
	case in.RTT <= 0 || in.RTT > 10*time.Second:
		return fmt.Errorf("--rtt: accepts more than 0 and up to 10s")
	case in.Streams < 1 || in.Streams > 1024:
		return fmt.Errorf("--streams: accepts 1 .. 1024")
	case in.Connections < 1 || in.Connections > 10000000:
		return fmt.Errorf("--connections: accepts 1 .. 10000000")
	case in.Memory < 0:
		return fmt.Errorf("--memory: must not be negative")
	}
	switch in.Role {
	case "host", "storage", "firewall", "router":
	default:
		return fmt.Errorf("--role: accepts host, storage, firewall or router")
	}
	return nil
}

// roundMiB rounds up to a whole MiB.
func roundMiB(b float64) int64 { return int64(math.Ceil(b/(1<<20))) << 20 }

func clampBuf(b int64) int64 { return min(b, IntMax) }

// Advise computes the recommendation.
func Advise(in Input) (Advice, error) {
	if err := in.Validate(); err != nil {
		return Advice{}, err
	}
	bdp := window.BDP(in.Rate, in.RTT)
	sbdp := bdp / int64(in.Streams)
	a := Advice{Input: in, BDP: bdp, StreamBDP: sbdp, Link: linkAdvice(in)}
	forwarding := in.Role == "firewall" || in.Role == "router"
	// Buffers on the other OSes: 2 × BDP per stream (Linux's maxima are
	// the window model's need on tune's rungs, see linux) — the kernel keeps part of each buffer
	// for packet overhead (window.Linux66: 0.65 of tcp_rmem max becomes
	// window at MSS 1448, 0.80 of tcp_wmem max holds payload), with
	// margin for the RTT under load; bench/tune.sh's sweep found its
	// best points between 1.5 and 4 × BDP (docs/performance.md).
	buf := clampBuf(roundMiB(2 * float64(sbdp)))
	if buf == IntMax {
		a.Warnings = append(a.Warnings, "2 × BDP exceeds 2147483647, the largest buffer the kernel accepts: use several streams (--streams)")
	}
	switch in.OS {
	case "linux":
		a = linux(a, buf, forwarding)
	case "freebsd":
		a = freebsd(a, buf, forwarding)
	case "solaris10", "solaris11":
		a = solaris(a, buf, forwarding)
	case "macos":
		a = macos(a, buf, forwarding)
	case "windows":
		a = windows(a, forwarding)
	default:
		return Advice{}, fmt.Errorf("--os: accepts linux, freebsd, solaris10, solaris11, macos or windows")
	}
	if forwarding {
		a.Warnings = append(a.Warnings, fmt.Sprintf("a %s forwards packets and terminates few TCP connections: socket buffers are per connection, so raising them only wastes memory on every connection it does terminate (seed article 000). The values below stay conservative.", in.Role))
	}
	a.Budget = budget(a, in)
	a.CrossCheck = esnet(in.Rate, in.RTT)
	return a, nil
}

func mib(b int64) string { return units.FormatSize(float64(b)) }

func (a *Advice) why(format string, args ...any) string {
	return fmt.Sprintf(format, args...)
}

func linux(a Advice, buf int64, forwarding bool) Advice {
	in := a.Input
	a.Persist = "/etc/sysctl.d/90-tcptune.conf"
	defR, defW := kernelDefault("net.ipv4.tcp_rmem", in.Kernel), kernelDefault("net.ipv4.tcp_wmem", in.Kernel)
	// The maxima are tune's first point on an unmeasured path: the window
	// model's need, on tune's grid (internal/plan), never below the
	// kernel's defaults.
	m, pol := window.Linux66, plan.DefaultPolicy(3, 5*time.Second, 0, in.RTT)
	needR, needW := plan.Needs(a.StreamBDP, in.Rate/float64(in.Streams), in.RTT, m.Recv, m.Send, pol)
	needR, needW = clampBuf(needR), clampBuf(needW)
	grows := func(v, need int64) int64 {
		if v > need {
			return need
		}
		return 0
	}
	if forwarding {
		a.Settings = append(a.Settings,
			Setting{Key: "net.ipv4.tcp_rmem", Values: defR, Reason: "kernel default: forwarded traffic never touches socket buffers", Grows: grows(defR[2], needR)},
			Setting{Key: "net.ipv4.tcp_wmem", Values: defW, Reason: "kernel default, for the same reason", Grows: grows(defW[2], needW)},
			Setting{Key: "net.core.netdev_max_backlog", Values: []int64{max(1000, int64(in.Rate/1e9*1000))}, Reason: "the per-CPU input queue a forwarding box does use; overflows show in /proc/net/softnet_stat column 2"})
		a.Myths = append(a.Myths, "tcp_mem is counted in pages (4 KiB), not bytes, and is global: leave it alone unless TCPMemoryPressures grows")
		return a
	}
	rmem := max(needR, defR[2])
	wmem := max(needW, defW[2])
	of := func(v int64) string {
		return fmt.Sprintf("%.2f", float64(v)/float64(max(a.StreamBDP, 1)))
	}
	// above says where the kernel's default max is already more than the
	// need: the advice keeps it (lowering it would cost other paths).
	above := func(v, need int64) string {
		if v > need {
			return fmt.Sprintf("kept at the kernel's default, %s, above the need: ", mib(v))
		}
		return ""
	}
	a.Settings = append(a.Settings,
		Setting{Key: "net.ipv4.tcp_rmem", Values: []int64{defR[0], defR[1], rmem},
			Grows:  grows(rmem, needR),
			Reason: a.why("%smax ≥ %s × the per-stream BDP (%s at %s × %s): only ≈%.2f of the buffer becomes window on Linux 6.6+ (0.5 before), so one stream needs BDP ÷ %.2f with %.0f%% headroom, on tune's rungs; tune --peer measures this host's share and verifies it", above(rmem, needR), of(needR), mib(a.StreamBDP), units.FormatRateShort(in.Rate/float64(in.Streams)), units.FormatDuration(in.RTT), m.Recv, m.Recv, 100*pol.MinTol)},
		Setting{Key: "net.ipv4.tcp_wmem", Values: []int64{defW[0], defW[1], wmem},
			Grows:  grows(wmem, needW),
			Reason: a.why("%smax ≥ %s × the per-stream BDP: the send buffer holds everything not yet acknowledged, and only ≈%.2f of it is payload (the 4 MiB default caps one 50 ms flow near %s)", above(wmem, needW), of(needW), m.Send, units.FormatRateShort(m.SendCap(4<<20, 50*time.Millisecond)))},
	)
	switch {
	case in.Role == "storage":
		a.Settings = append(a.Settings,
			Setting{Key: "net.core.rmem_max", Values: []int64{rmem}, Reason: "storage daemons (NFS, iSCSI, backup agents) often set SO_RCVBUF themselves, which turns autotuning off: rmem_max caps those requests (host-only: not settable inside a container)"},
			Setting{Key: "net.core.wmem_max", Values: []int64{wmem}, Reason: "caps SO_SNDBUF requests, as rmem_max does for receive (host-only)"})
	case in.Rate >= 10e9:
		a.Settings = append(a.Settings,
			Setting{Key: "net.core.rmem_max", Values: []int64{rmem}, Reason: "tools that set their own buffer (iperf3 -w, GridFTP, some backup agents) get at most 2 × rmem_max, and no autotuning: let them ask for the path's buffer (host-only)"},
			Setting{Key: "net.core.wmem_max", Values: []int64{wmem}, Reason: "the same cap for SO_SNDBUF (host-only)"})
	}
	if in.Rate >= 10e9 {
		a.Settings = append(a.Settings,
			Setting{Key: "net.core.default_qdisc", Text: "fq", Reason: "fq paces each flow at its rate instead of bursting a window into the switch (BBR needs pacing; ESnet recommends it for 10G+ hosts); it applies to interfaces set up afterwards: tc qdisc replace dev IF root fq for one that is up (host-only; needs sch_fq)"},
			Setting{Key: "net.ipv4.tcp_mtu_probing", Values: []int64{1}, Reason: "recover from path-MTU black holes, as ESnet recommends for jumbo-frame hosts"})
	}
	a.Myths = append(a.Myths,
		"net.core.rmem_max does not cap tcp_rmem's max: autotuning ignores rmem_max, which only caps explicit SO_RCVBUF (iperf3 -w); raising rmem_max alone changes nothing for most applications",
		"tcp_adv_win_scale is obsolete since Linux 6.6: do not tune it",
		"tcp_mem is counted in pages (4 KiB), not bytes, and is system-wide: leave it unless TCPMemoryPressures grows",
		"bigger is not better: beyond the BDP, buffers only add queueing delay and memory (one seed's 512 MB set measured slower than its smaller one)")
	return a
}

// kernelDefault is a Linux knob's default (min, default, max) on kernel
// release rel, from the knob catalogue.
func kernelDefault(name, rel string) []int64 {
	k, _ := knobs.Lookup("linux", name)
	return k.DefaultOn(rel)
}

func freebsd(a Advice, buf int64, forwarding bool) Advice {
	a.Persist = "/etc/sysctl.conf"
	if forwarding {
		a.Settings = append(a.Settings, Setting{Key: "net.inet.tcp.recvbuf_max", Values: []int64{2097152}, Reason: "default: forwarding does not use socket buffers"})
		return a
	}
	buf = max(buf, 2097152)
	// Only 2048/2304 of maxsockbuf is usable for buffer space.
	msb := clampBuf(roundMiB(float64(buf) * 2304 / 2048 * 1.02))
	a.Settings = append(a.Settings,
		Setting{Key: "kern.ipc.maxsockbuf", Values: []int64{msb}, Reason: "must exceed the buffer maxima by ~13%: only 2048/2304 of it is usable, and a larger request fails with ENOBUFS instead of being clamped"},
		Setting{Key: "net.inet.tcp.recvbuf_max", Values: []int64{buf}, Reason: a.why("receive autotuning ceiling: 2 × the per-stream BDP (%s)", mib(a.StreamBDP))},
		Setting{Key: "net.inet.tcp.sendbuf_max", Values: []int64{buf}, Reason: "send autotuning ceiling: holds unacknowledged data, at least the BDP"},
		Setting{Key: "net.inet.tcp.recvbuf_auto", Values: []int64{1}, Reason: "autotuning grows buffers only for flows that need them"},
		Setting{Key: "net.inet.tcp.sendbuf_auto", Values: []int64{1}, Reason: "as above, for sending"},
	)
	a.Myths = append(a.Myths, "raising recvbuf_max without kern.ipc.maxsockbuf leaves autotuning stuck below it")
	return a
}

func solaris(a Advice, buf int64, forwarding bool) Advice {
	in := a.Input
	s10 := in.OS == "solaris10"
	name := func(s10name, s11name string) string {
		if s10 {
			return s10name
		}
		return s11name
	}
	if s10 {
		a.Persist = "/etc/rc3.d/S99tcptune (ndd settings do not survive a reboot)"
	} else {
		a.Persist = "ipadm set-prop is persistent by itself"
	}
	if forwarding {
		a.Settings = append(a.Settings, Setting{Key: name("tcp_max_buf", "max_buf"), Values: []int64{1048576}, Reason: "default: forwarding does not use socket buffers"})
		return a
	}
	buf = min(max(buf, 1048576), 1073741824)
	hiwat := min(max(roundMiB(float64(a.StreamBDP)), 1048576), buf)
	a.Settings = append(a.Settings,
		Setting{Key: name("tcp_max_buf", "max_buf"), Values: []int64{buf}, Reason: a.why("largest buffer an application may set: 2 × the per-stream BDP (%s)", mib(a.StreamBDP))},
		Setting{Key: name("tcp_cwnd_max", "_cwnd_max"), Values: []int64{buf}, Reason: "the congestion window may grow to the buffer, not beyond (keep ≤ max_buf)"},
		Setting{Key: name("tcp_xmit_hiwat", "send_buf"), Values: []int64{hiwat}, Reason: "default send buffer of every connection: about one BDP (it applies to all sockets, so it is not larger)"},
		Setting{Key: name("tcp_recv_hiwat", "recv_buf"), Values: []int64{hiwat}, Reason: "default receive window of every connection: about one BDP"},
	)
	a.Warnings = append(a.Warnings, "the hiwat (send_buf/recv_buf) values apply to every TCP socket: with many connections they cost memory on each (see the budget)")
	return a
}

func macos(a Advice, buf int64, forwarding bool) Advice {
	a.Persist = "a LaunchDaemon that runs these sysctl commands at boot"
	if forwarding {
		return a
	}
	buf = max(buf, 4194304)
	a.Settings = append(a.Settings,
		Setting{Key: "kern.ipc.maxsockbuf", Values: []int64{clampBuf(2 * buf)}, Reason: "ceiling of any socket buffer; a value above 1/16 of the mbuf cluster pool (kern.ipc.nmbclusters) fails with ERANGE"},
		Setting{Key: "net.inet.tcp.autorcvbufmax", Values: []int64{buf}, Reason: a.why("receive autotuning ceiling: 2 × the per-stream BDP (%s)", mib(a.StreamBDP))},
		Setting{Key: "net.inet.tcp.autosndbufmax", Values: []int64{buf}, Reason: "send autotuning ceiling"},
		Setting{Key: "net.inet.tcp.win_scale_factor", Values: []int64{8}, Reason: "allow windows beyond 2 MB (the default factor 3 caps them)"},
	)
	a.Warnings = append(a.Warnings, "do not apply these on Wi-Fi laptops or links of 100 Mbit/s or less (ESnet); net.inet.tcp.rfc1323 exists only on debug kernels and is not emitted")
	return a
}

// windowsLevels maps autotuning levels to their largest window.
var windowsLevels = []struct {
	name string
	max  int64
}{{"Restricted", 1 << 20}, {"Normal", 16 << 20}, {"Experimental", 1 << 30}}

func windows(a Advice, forwarding bool) Advice {
	a.Persist = "Set-NetTCPSetting and netsh settings persist by themselves"
	level := "Normal"
	for _, l := range windowsLevels {
		if l.max >= 2*a.StreamBDP {
			level = l.name
			break
		}
		level = l.name
	}
	if forwarding || level == "Restricted" {
		level = "Normal"
	}
	a.Settings = append(a.Settings, Setting{Key: "AutoTuningLevelLocal", Text: level,
		Reason: a.why("the smallest autotuning level whose window (Normal: 16 MB, Experimental: 1 GB) covers 2 × the per-stream BDP (%s)", mib(a.StreamBDP))})
	a.Myths = append(a.Myths, "Windows has ignored the TcpWindowSize, NumTcbTablePartitions and MaxHashTableSize registry values since Vista and Server 2008: autotuning replaced them; do not set them")
	return a
}

func budget(a Advice, in Input) Budget {
	var per int64
	for _, s := range a.Settings {
		switch s.Key {
		case "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem":
			per += cmp.Or(s.Grows, s.Values[2])
		case "net.inet.tcp.recvbuf_max", "net.inet.tcp.sendbuf_max", "net.inet.tcp.autorcvbufmax", "net.inet.tcp.autosndbufmax",
			"tcp_xmit_hiwat", "tcp_recv_hiwat", "send_buf", "recv_buf":
			per += s.Values[0]
		}
	}
	if in.OS == "windows" {
		per = 2 * a.StreamBDP
	}
	b := Budget{PerConnection: per, Total: per * int64(in.Connections), Memory: in.Memory, TCPMemMax: in.TCPMemMax, Fits: true}
	switch {
	case in.Memory > 0 && b.Total > in.Memory/4:
		b.Fits = false
		b.Note = fmt.Sprintf("does not fit: %d connections × %s at full size need %s, more than a quarter of RAM (%s of %s); lower --connections, use fewer streams, or accept that not all connections can run at full window", in.Connections, mib(per), mib(b.Total), mib(in.Memory/4), mib(in.Memory))
	case in.TCPMemMax > 0 && b.Total > in.TCPMemMax:
		b.Fits = false
		b.Note = fmt.Sprintf("does not fit: %s at full size exceeds tcp_mem max (%s): under pressure the kernel trims buffers; raise tcp_mem (in pages) only if TCPMemoryPressures grows", mib(b.Total), mib(in.TCPMemMax))
	default:
		b.Note = fmt.Sprintf("%d connections × %s at full size = %s worst case", in.Connections, mib(per), mib(b.Total))
		if in.Memory > 0 {
			b.Note += fmt.Sprintf(", %.1f%% of RAM", 100*float64(b.Total)/float64(in.Memory))
		}
		b.Note += "; autotuning grows a buffer only for flows that need it"
	}
	return b
}

// esnet names ESnet fasterdata's class for the path, as a cross-check
// (the classes are data in internal/profiles).
func esnet(rate float64, rtt time.Duration) string {
	if p, ok := profiles.ESnet(rate, rtt); ok {
		return p.Summary
	}
	return ""
}

// linkAdvice is what an interface needs at 10 Gbit/s and up, besides
// the kernel's settings: jumbo frames where the path carries them (a
// third of the packets per byte, so less CPU per byte) and a transmit
// queue that absorbs a window's burst (ESnet's 10000 at 10G+). The
// command is the OS's; a router or firewall keeps its links as they are.
func linkAdvice(in Input) []LinkSetting {
	if in.Rate < 10e9 || in.Role == "firewall" || in.Role == "router" {
		return nil
	}
	mtu := map[string]string{
		"linux":     "ip link set dev IF mtu 9000",
		"freebsd":   `sysrc ifconfig_IF+=" mtu 9000" && ifconfig IF mtu 9000`,
		"solaris10": "ifconfig IF mtu 9000",
		"solaris11": "dladm set-linkprop -p mtu=9000 IF",
		"macos":     "networksetup -setMTU IF 9000",
		"windows":   `netsh interface ipv4 set subinterface "IF" mtu=9000 store=persistent`,
	}[in.OS]
	out := []LinkSetting{{Name: "mtu", Value: 9000, Command: mtu,
		Reason: "jumbo frames cut the packets per byte six-fold, and with them the CPU per byte, only where every hop carries 9000: a larger MTU than the path carries breaks connections (a PMTU black hole) rather than slowing them; tcptune tune proves it on the path first"}}
	if in.OS == "linux" {
		out = append(out, LinkSetting{Name: "txqueuelen", Value: 10000, Command: "ip link set dev IF txqueuelen 10000",
			Reason: "the default 1000 packets drain in 1.2 ms at 10 Gbit/s: a window's burst overflows it (tx drops), as ESnet sets for 10G+ hosts"})
	}
	return out
}
