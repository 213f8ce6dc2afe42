// Package doctor checks a host for what limits throughput besides TCP's
// buffers: MTU and path MTU, link speed and duplex, the PCIe slot against
// the NIC, rings, offloads and channels, irqbalance and the CPU governor,
// the qdisc and congestion control, TCP options, buffer maxima against
// the BDP to a peer, tcp_mem pressure, and the input backlog. Every check
// gives a verdict, its evidence and the fix; what cannot be read is
// reported as such ("n/a"), never guessed. /proc and /sys are read under
// an injectable root; live-only facts come from a Prober.
package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/pmtu"
	"github.com/tcptune/tcptune/internal/sysctl"
)

// Verdict of a check.
type Verdict string

const (
	OK   Verdict = "ok"
	Warn Verdict = "warn"
	Fail Verdict = "fail"
	NA   Verdict = "n/a" // could not be read
)

// Result is one check's finding. Why says what to do and why, in
// words; Fix is one shell command that does it, exactly as it can be
// pasted (empty where no command fits every host, e.g. moving a card).
type Result struct {
	Check    string  `json:"check"`
	Verdict  Verdict `json:"verdict"`
	Evidence string  `json:"evidence"`
	Why      string  `json:"why,omitempty"`
	Fix      string  `json:"fix,omitempty"`
}

// Ethtool is what the NIC driver reports through SIOCETHTOOL.
type Ethtool struct {
	RxPending, RxMax, TxPending, TxMax uint32
	Combined, CombinedMax, Rx, Tx      uint32
	TSO, GSO, GRO                      bool
	RingErr, ChannelErr, OffloadErr    error
}

// Prober finds the live facts /proc and /sys do not hold.
type Prober interface {
	// PathMTU probes the path to peer for the largest packet it
	// carries, up to max (the interface's MTU).
	PathMTU(peer string, max int) (pmtu.Result, error)
	RTT(peer string, port int) (time.Duration, error)
	Ethtool(iface string) Ethtool
	// Qdisc is the interface's root queueing discipline (netlink).
	Qdisc(iface string) (string, error)
}

// Host is what the checks look at.
type Host struct {
	Root  string // "/" live; a fixture tree in tests
	Iface string // "" = the interface of the route to Peer, or of the default route
	Peer  string // optional
	Port  int    // for the RTT to Peer (TCP connects)
	// Rate is the path's rate in bit/s (doctor --rate); 0 = the
	// interface's link speed, where it reports a real one.
	Rate  float64
	Probe Prober
	// Backups is tcptune's backup directory, where an interrupted tune
	// leaves its trial's backup; "" skips that check.
	Backups string
}

func (h Host) path(p string) string { return filepath.Join(h.Root, p) }

func (h Host) read(p string) (string, error) {
	b, err := os.ReadFile(h.path(p))
	return strings.TrimSpace(string(b)), err
}

func (h Host) readInt(p string) (int64, error) {
	s, err := h.read(p)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(s, 10, 64)
}

func (h Host) sysctl(key string) (string, error) { return sysctl.FS{Root: h.Root}.Get(key) }

func (h Host) sysctlInts(key string) ([]int64, error) { return sysctl.FS{Root: h.Root}.Ints(key) }

// check is one check: independent of the others, it reads the host and
// the inputs gathered once before any check runs, and may return
// several results.
type check func(h Host, in inputs) []Result

// inputs are facts several checks need, read once (as node_exporter's
// collectors each read what they need, none depends on another's run).
type inputs struct {
	speedMbps int64   // the interface's link speed; 0 = unknown
	rate      float64 // the path's rate for the BDP: --rate, else the link speed
	rateFrom  string  // where rate came from
}

func gather(h Host) inputs {
	speed, _ := linkSpeed(h)
	in := inputs{speedMbps: speed, rate: float64(speed) * 1e6, rateFrom: h.Iface + "'s link speed"}
	if h.Rate > 0 {
		in.rate, in.rateFrom = h.Rate, "--rate"
	}
	return in
}

// checks are every check, in the order of the report.
func checks() []check {
	return []check{checkMTU, checkLink, checkPCIe, checkPCIePayload, checkNIC, checkTxQueue, checkIRQBalance, checkGovernor,
		checkQdisc, checkCongestion, checkTCPOptions, checkBuffers, checkTCPMem, checkBacklog, checkInterrupted}
}

// Run runs every check.
func Run(h Host) ([]Result, error) {
	if h.Iface == "" {
		iface, err := routeIface(h)
		if err != nil {
			return nil, err
		}
		h.Iface = iface
	}
	if _, err := os.Stat(h.path("sys/class/net/" + h.Iface)); err != nil {
		return nil, fmt.Errorf("interface %s: not found", h.Iface)
	}
	in := gather(h)
	var out []Result
	for _, c := range checks() {
		out = append(out, c(h, in)...)
	}
	return out, nil
}

func na(check, why string) Result { return Result{Check: check, Verdict: NA, Evidence: why} }
