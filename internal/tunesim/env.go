package tunesim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/cores"
	"github.com/tcptune/tcptune/internal/drops"
	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/pmtu"
	"github.com/tcptune/tcptune/internal/tune"
	"github.com/tcptune/tcptune/internal/window"
)

// The keys the simulated host has.
const (
	keyRmem = "net.ipv4.tcp_rmem"
	keyWmem = "net.ipv4.tcp_wmem"
	keyCC   = "net.ipv4.tcp_congestion_control"
	iface   = "eth0"
)

var (
	keyMTU = linkset.Key(iface, "mtu")
	keyTxq = linkset.Key(iface, "txqueuelen")
)

// Env is a Scenario with one seed's truth, as tune.Env: trials draw
// from the truth with noise; settings live in a map.
type Env struct {
	s      Scenario
	t      truth
	rng    *rand.Rand
	values map[string]string
	// TrialSeconds adds up each trial's omit and time and eight RTTs of
	// set-up: what the search spent.
	TrialSeconds float64
	Trials       int
	// Slow are the rates of the trials that drew a control's slow mode
	// (cubic out of slow start early behind a shallow queue), as they
	// were returned: what tune's trials could show of it.
	Slow map[float64]bool
}

// New is the scenario's path with the truth seed draws.
func New(s Scenario, seed uint64) *Env {
	rng := rand.New(rand.NewPCG(seed, 0x7475_6e65))
	mtu := 1500
	e := &Env{s: s, t: drawTruth(rng), rng: rng, values: map[string]string{
		keyRmem: fmt.Sprintf("4096 131072 %d", s.Rmem), keyWmem: fmt.Sprintf("4096 16384 %d", s.Wmem),
		keyCC: s.CC, "net.ipv4.tcp_available_congestion_control": "reno cubic bbr",
		"net.ipv4.tcp_sack": "1", "net.ipv4.tcp_timestamps": "1", "net.ipv4.tcp_notsent_lowat": "4294967295",
		"net.ipv4.tcp_slow_start_after_idle": "1", "net.ipv4.tcp_mtu_probing": "0",
		keyMTU: strconv.Itoa(mtu), keyTxq: "1000", "kernel.osrelease": kernel,
	}}
	return e
}

// Values are the host's settings now.
func (e *Env) Values() map[string]string {
	out := map[string]string{}
	for k, v := range e.values {
		out[k] = v
	}
	return out
}

func (e *Env) Describe() string { return "simulated " + e.s.Name }
func (e *Env) Peer() string     { return "192.0.2.2" }
func (e *Env) RTT(context.Context) (time.Duration, error) {
	return e.s.RTT, nil
}

// LinkRate and Goodput are known in the lab; a peer's path is measured
// (tune's --rate gives its rate).
// Burst: the simulated paths have no policer.
func (e *Env) Burst() int64 { return 0 }

func (e *Env) LinkRate() float64 {
	if e.s.Both {
		return e.s.Rate
	}
	return 0
}

func (e *Env) Goodput() float64 {
	if e.s.Both {
		return e.s.goodput(e.mss() + 52)
	}
	return 0
}

func (e *Env) BothEnds() bool { return e.s.Both }

// Device, Route and PathMTU let tune try the MTU.
func (e *Env) Device() string {
	if e.s.Both {
		return iface
	}
	return ""
}

func (e *Env) Route() (string, int, error) { return iface, e.int(keyMTU), nil }

func (e *Env) PathMTU(_ context.Context, max int) (pmtu.Result, error) {
	return pmtu.Result{Largest: min(e.pathMTU(), max), Probes: 3}, nil
}

func (e *Env) pathMTU() int {
	if e.s.PathMTU > 0 {
		return e.s.PathMTU
	}
	return 1500
}

// mss is the connection's MSS: the smaller end's interface (a peer's is
// at what the path carries), and the path's.
func (e *Env) mss() int {
	m := min(e.int(keyMTU), e.pathMTU())
	return m - 52
}

func (e *Env) int(key string) int {
	v, _ := strconv.Atoi(e.values[key])
	return v
}

func maxOf(triple string) int64 {
	f := strings.Fields(triple)
	if len(f) != 3 {
		return 0
	}
	v, _ := strconv.ParseInt(f[2], 10, 64)
	return v
}

// point is the truth's view of direction d's settings now.
func (e *Env) point(d tune.Direction, spec tune.TrialSpec) point {
	r, w := maxOf(e.values[keyRmem]), maxOf(e.values[keyWmem])
	p := point{rcv: r, snd: w, cc: e.values[keyCC], mtu: e.mss() + 52, txq: int64(e.int(keyTxq)), parallel: max(spec.Parallel, 1), zerocopy: spec.ZeroCopy}
	if !e.s.Both {
		if d == tune.Forward {
			p.rcv = e.s.PeerRmem
		} else {
			p.snd, p.cc = e.s.PeerWmem, e.s.CC
		}
	}
	if spec.Congestion != "" {
		p.cc = spec.Congestion // both ends' sockets take -C
	}
	return p
}

// Trial draws a trial from the truth and judges it with the real
// attribution, from the view the sender (or, against a stock peer in
// reverse, only the receiver) would have.
func (e *Env) Trial(_ context.Context, spec tune.TrialSpec, pathRate float64, idleRTT time.Duration) (tune.Trial, error) {
	d := spec.Direction
	p := e.point(d, spec)
	e.Trials++
	e.TrialSeconds += (spec.Omit + spec.Time).Seconds() + 8*e.s.RTT.Seconds()
	early := e.rng.Float64()
	at := e.s.flowOf
	if d == tune.Forward {
		at = e.s.forward
	}
	f := at(e.t, p, early)
	g := e.s.goodput(p.mtu)
	bps := math.Min(f.bps*math.Exp(e.t.noise*e.rng.NormFloat64()), g)
	if f.bps < at(e.t, p, 1).bps {
		if e.Slow == nil {
			e.Slow = map[float64]bool{}
		}
		e.Slow[bps] = true
	}
	secs := spec.Time.Seconds()
	t := tune.Trial{Direction: d, BitsPerSecond: bps, CountedBy: "sender", Seconds: secs, MSS: p.mtu - 52,
		RTTus: float64(f.rttLoaded.Microseconds()), MinRTTus: float64(e.s.RTT.Microseconds()),
		Window: int64(f.window), SndBuf: p.snd, Inflight: int64(f.inflight), Retransmits: f.retransmits,
		Congestion: spec.Congestion, ZeroCopy: spec.ZeroCopy, Delivered: int64(bps / 8 * secs)}
	if p.parallel > 1 {
		t.Parallel = p.parallel
	}
	for i := 0; i < int(math.Round(secs)); i++ {
		t.Intervals = append(t.Intervals, math.Min(bps*(1+0.5*e.t.noise*e.rng.NormFloat64()), g))
	}
	if f.queueDrops > 0 {
		t.Drops = &drops.Counters{Iface: iface, TxDrop: f.queueDrops}
	}
	if f.cpu {
		t.Core = &cores.Load{CPU: 1, Busy: 99, System: 80, User: 19}
	}
	in := e.input(f, p, bps, secs, pathRate, idleRTT)
	if d == tune.Reverse && e.s.Stock {
		t.CountedBy, t.Retransmits, t.Window, t.SndBuf, t.Inflight = "receiver", -1, 0, 0, 0
		in = attrib.Input{From: attrib.FromReceiver, WallUS: in.WallUS, BitsPerSecond: bps, Streams: p.parallel,
			MinRTTUS: in.MinRTTUS, IdleRTTUS: in.IdleRTTUS, PathRate: pathRate, MSS: in.MSS, Retransmits: -1,
			ReceiverView: &attrib.Receiver{Window: uint64(f.window), RcvBuf: uint64(p.rcv), BufMax: uint64(p.rcv), RTTUS: uint64(f.rttLoaded.Microseconds())}}
	}
	r := attrib.Judge(in)
	t.Limit, t.Verdict, t.Advice, t.Capped, t.Recovering = string(r.Limit), r.Verdict, r.Advice, r.Capped, r.Recovering
	for _, l := range r.RuledOut {
		t.RuledOut = append(t.RuledOut, string(l))
	}
	return t, nil
}

// input is the sender's view the truth implies: busy throughout,
// limited by the window or its send buffer where that binds.
func (e *Env) input(f flow, p point, bps, secs, pathRate float64, idle time.Duration) attrib.Input {
	wall := uint64(secs * 1e6)
	in := attrib.Input{WallUS: wall, BusyUS: wall, SndWnd: uint64(f.window), CwndBytes: uint64(f.cwnd),
		RTTUS: uint64(f.rttLoaded.Microseconds()), MinRTTUS: uint64(e.s.RTT.Microseconds()), Retransmits: f.retransmits,
		BitsPerSecond: bps, Streams: p.parallel, InflightBytes: uint64(f.inflight), NotsentBytes: uint64(f.inflight),
		PathRate: pathRate, IdleRTTUS: uint64(idle.Microseconds()), MSS: uint64(p.mtu - 52), SenderIsLocal: true, SenderCores: 2}
	// The kernel's autotuning grows the send buffer to what the
	// congestion window wants, up to tcp_wmem's max: a window held
	// below its buffer's reach leaves the buffer short of its cap.
	in.SndBuf = uint64(p.snd)
	if f.bind != "sndbuf" {
		in.SndBuf = uint64(min(p.snd, window.SendTarget(int64(f.cwnd), int64(p.mtu-52))))
	}
	switch f.bind {
	case "rwnd":
		in.RwndLimitedUS = wall * 9 / 10
	case "sndbuf":
		in.SndbufLimitUS = wall * 9 / 10
		in.NotsentBytes = uint64(f.inflight / 4)
	case "cpu":
		in.SenderCPU = 99
	}
	return in
}

// Read returns the current values of keys.
func (e *Env) Read(keys []string) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := e.values[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

// Split: the keys the simulated host has apply; others do not.
func (e *Env) Split(kvs []apply.KV) (ok []apply.KV, skipped []string, err error) {
	for _, kv := range kvs {
		if _, known := e.values[kv.Key]; known {
			ok = append(ok, kv)
		} else {
			skipped = append(skipped, kv.Key+": not on the simulated host")
		}
	}
	return ok, skipped, nil
}

// Set applies kvs; undo restores them.
func (e *Env) Set(kvs []apply.KV) (func() error, error) {
	old := map[string]string{}
	for _, kv := range kvs {
		old[kv.Key] = e.values[kv.Key]
		e.values[kv.Key] = kv.Value
	}
	return func() error {
		for k, v := range old {
			e.values[k] = v
		}
		return nil
	}, nil
}

// Keep applies kvs for good.
func (e *Env) Keep(kvs []apply.KV, _ bool) (string, error) {
	for _, kv := range kvs {
		e.values[kv.Key] = kv.Value
	}
	return "sim", nil
}

func atoi(s string) (int, error) { return strconv.Atoi(s) }
