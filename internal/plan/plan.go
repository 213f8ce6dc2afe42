// Package plan decides tune's search. It holds the grid of settings tune
// may choose (buffer maxima on rungs a fixed factor apart × the
// congestion controls), a model of the path that every trial updates,
// the one table of which knob acts on which direction, and two pure
// functions: Next (the cheapest point the model predicts reaches the
// target, and the trial to run there) and Choose (the cheapest point
// whose full trials are on the plateau). It measures nothing, reads no
// clock and changes nothing: internal/tune carries out its actions and
// hands back what they observed, as tailscale's netcheck keeps its
// probe plan apart from the probing.
package plan

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/stats"
)

// Direction of a trial: forward is this host sending, reverse the peer.
type Direction string

const (
	Forward Direction = "forward"
	Reverse Direction = "reverse"
)

// Knob is a setting tune may change.
type Knob string

const (
	Rmem    Knob = "tcp_rmem"           // this host's receive buffer maximum
	Wmem    Knob = "tcp_wmem"           // this host's send buffer maximum
	CC      Knob = "congestion_control" // this host's congestion control
	TxQueue Knob = "txqueuelen"         // an interface's transmit queue
	Backlog Knob = "netdev_max_backlog" // the receive backlog
	MTU     Knob = "mtu"                // an interface's MTU
	// Queues is the transmit queue and the receive backlog raised
	// together (each where it acts: both directions).
	Queues Knob = "host_queues"
)

// Acts is where a knob acts, from the knob catalogue's side of it (the
// one table, internal/knobs): this host's send side (tcp_wmem, its
// congestion control, the transmit queue) on what it sends, forward; its
// receive side (tcp_rmem, the receive backlog) on what it receives,
// reverse; the MTU on both (the MSS is the smaller end's). In the lab
// both ends take every setting, so each acts on both.
func Acts(k Knob, bothEnds bool) []Direction {
	if k == Queues { // the transmit queue's side and the backlog's
		return []Direction{Forward, Reverse}
	}
	return On(gridSides()[k], bothEnds)
}

// On is where a setting on the catalogue's side s acts: what this host
// sends is forward, what it receives reverse; in the lab, where both
// ends take it, both, unless it acts on no transfer. An unclassified
// side acts on both.
func On(s knobs.Side, bothEnds bool) []Direction {
	switch {
	case s == knobs.SideNone:
		return nil
	case bothEnds || s != knobs.SideSend && s != knobs.SideReceive:
		return []Direction{Forward, Reverse}
	case s == knobs.SideSend:
		return []Direction{Forward}
	}
	return []Direction{Reverse}
}

// gridSides is the catalogue's side of each knob of the grid, read once
// (Acts is asked in the model's inner loops).
var gridSides = sync.OnceValue(func() map[Knob]knobs.Side {
	out := map[Knob]knobs.Side{}
	for k, name := range map[Knob]string{Rmem: "net.ipv4.tcp_rmem", Wmem: "net.ipv4.tcp_wmem", CC: "net.ipv4.tcp_congestion_control",
		TxQueue: "link.*.txqueuelen", Backlog: "net.core.netdev_max_backlog", MTU: "link.*.mtu"} {
		kn, _ := knobs.Lookup("linux", name)
		out[k] = kn.Acts
	}
	return out
})

func acts(k Knob, d Direction, bothEnds bool) bool { return slices.Contains(Acts(k, bothEnds), d) }

// Point is one setting of the grid: the buffer maxima, the congestion
// control (its name, never "" for the default), the host queue raised
// ("" none: TxQueue, Backlog or Queues, where the drops of this host's
// queues call for it) and the interfaces' MTU raised to (0: as found;
// a larger one where the path carries it).
type Point struct {
	Rmem, Wmem int64
	CC         string
	Queue      Knob
	MTU        int
}

// key is p as direction d sees it: the knobs that act on d, the others
// zeroed. Trials at points with the same key in d sample one thing.
func (p Point) key(d Direction, bothEnds bool) Point {
	if !acts(Rmem, d, bothEnds) {
		p.Rmem = 0
	}
	if !acts(Wmem, d, bothEnds) {
		p.Wmem = 0
	}
	if !acts(CC, d, bothEnds) {
		p.CC = ""
	}
	if p.Queue != "" && !acts(p.Queue, d, bothEnds) {
		p.Queue = ""
	}
	return p
}

// Alike reports whether trials at a and b in direction d sample one
// thing: the knobs that act on d are the same at both.
func (m Model) Alike(a, b Point, d Direction) bool {
	return a.key(d, m.BothEnds) == b.key(d, m.BothEnds)
}

// Paces reports whether a congestion control paces at the bottleneck
// it measures rather than cutting its window at each loss (BBR).
func Paces(cc string) bool { return len(cc) >= 3 && cc[:3] == "bbr" }

// class is what a congestion window's limit carries over to: a
// control that cuts its window at each loss shares it with every such
// control (loss and a queue hold them alike); a pacing one keeps its own.
func class(cc string) string {
	if Paces(cc) {
		return cc
	}
	return lossBased
}

// lossBased is the class of every control that is not pacing.
const lossBased = "loss-based"

// Policy is every number a decision uses.
type Policy struct {
	Rung       float64 // the factor between a buffer's rungs (1.15)
	TopBDP     float64 // the grid's top, in BDPs (4, a rung itself): above it memory buys queueing
	LowBDP     float64 // the grid's bottom with AllowLower, in BDPs (0.5)
	AllowLower bool    // rungs below the host's maxima (else those are the floor)
	// Gain is the payload a pacing control keeps in flight, in BDPs
	// (BBR's cwnd_gain, 2): behind a queue shallower than Gain − 1
	// BDPs it overfills it.
	Gain float64
	// SlowRate is a loss-based control's slow mode behind such a queue
	// (it leaves slow start early), as a share of the goodput, where no
	// trial has shown it yet (0.65: 1128–1397 of 1930 Mbit/s in the lab).
	SlowRate float64
	// CCCost is what a host-wide change (its default congestion
	// control, an interface's MTU) costs, in BDPs of memory: more than
	// none, so that one that reaches the target only by more memory
	// still competes.
	CCCost float64
	// Slack is how far a count may run above the goodput without being
	// more than the path carries (the sender's count runs ahead by the
	// ACKs held up at the period's start): what a point's MTU carries at
	// most is known without noise.
	Slack float64
	// MinTol and MaxTol bound a direction's noise tolerance; Spreads
	// is how many pooled standard deviations it is.
	MinTol, MaxTol, Spreads float64
	// Order is the chance below which a full set that every trial of
	// another beat is apart from it, whatever the spread (three
	// trials against three: 1/20).
	Order float64
	// Trials per direction in a full set; Time and Omit a trial's
	// measured and omitted parts; SetupRTTs the round trips a trial's
	// set-up costs.
	Trials    int
	Time      time.Duration
	Omit      time.Duration
	SetupRTTs float64
	// ShortTime is a reference profile's short trial (a screening of the
	// first direction); LeverTime an application setting's where a core
	// ran flat out (what it cuts is CPU per byte, which a short trial
	// shows); from LongRTT the profiles are listed but not measured,
	// their trials' omit and set-up costing minutes.
	ShortTime, LeverTime time.Duration
	LongRTT              time.Duration
	// Budget is the trial time the search may spend in all, the
	// baseline's included.
	Budget time.Duration
	// The verification's last safety net (tune's judge): a choice is
	// rolled back where a direction a changed knob acts on is Worse (its
	// trials apart from the baseline's); a direction nothing changed
	// acts on is reported as drift where it moved by more than Drift up
	// or Worse down. An application setting (-P, -Z) helped where it
	// gained LeverGain in one direction and lost no more than Worse in
	// another.
	Drift, Worse, LeverGain float64
}

// DefaultPolicy is tune's policy for trials of length t with omit o and
// n trials per direction at an RTT of rtt.
func DefaultPolicy(n int, t, o, rtt time.Duration) Policy {
	b := 3 * time.Minute
	if rtt >= 500*time.Millisecond {
		b = 4 * time.Minute
	}
	return Policy{Rung: 1.15, TopBDP: 4, LowBDP: 0.5, Gain: 2, SlowRate: 0.65, CCCost: 1, Slack: Slack, MinTol: 0.03, MaxTol: 0.10, Spreads: 2, Order: 0.05,
		Trials: n, Time: t, Omit: o, SetupRTTs: 8, ShortTime: max(t/4, time.Second), LeverTime: max(t/2, time.Second), LongRTT: 300 * time.Millisecond,
		Budget: b, Drift: 0.02, Worse: 0.05, LeverGain: 0.05}
}

// Slack is Policy.Slack's value: a trial further above the goodput
// is a counting error, not a result (0.02–0.16% seen at 2.5 Gbit/s).
const Slack = 0.01

// TrialCost is what one trial costs: its omit, its time and the
// round trips of its set-up at rtt.
func (p Policy) TrialCost(rtt time.Duration) time.Duration { return p.CostOf(p.Time, rtt) }

// CostOf is what a trial measuring for length costs at rtt (a short
// trial's, or one that ran over).
func (p Policy) CostOf(length, rtt time.Duration) time.Duration {
	return p.Omit + length + time.Duration(p.SetupRTTs*float64(rtt))
}

// SetsCost is what full sets in n directions cost at rtt.
func (p Policy) SetsCost(n int, rtt time.Duration) time.Duration {
	return time.Duration(n*p.Trials) * p.TrialCost(rtt)
}

// Grid is the search space: each maximum on rungs Rung apart in bytes,
// fixed at the start, from the floor (the host's maxima, unless
// AllowLower) to TopBDP, × the congestion controls, × the host queues'
// raise and a larger MTU where the path calls for them.
type Grid struct {
	Rmem, Wmem []int64
	CCs        []string
	Default    string // the host's congestion control now
	BDP        int64  // the unit of the rungs and of CCCost
	Base       Point  // the host's settings now
	Idle       int64  // what the defaults cost every idle socket
	CCCost     float64
	// Queue is the host queue the search may raise ("" none), and
	// QueueCost what the raise lets the host hold (bytes: the packets
	// it adds × the MTU).
	Queue     Knob
	QueueCost float64
	// MTUs are the larger MTUs the path carries (none: the MTU stays).
	MTUs []int
}

// NewGrid is the grid for a path of bdp bytes from the host's maxima
// rmem and wmem and congestion control def, over the controls ccs but
// those another of them dominates (the host's own stays).
func NewGrid(bdp, rmem, wmem int64, def string, ccs []string, pol Policy) Grid {
	g := Grid{Default: def, BDP: bdp, Base: Point{Rmem: rmem, Wmem: wmem, CC: def}, CCCost: pol.CCCost}
	g.Rmem, g.Wmem = rungs(bdp, rmem, pol), rungs(bdp, wmem, pol)
	g.CCs = []string{def}
	for _, cc := range ccs {
		if by := dominatedBy(cc); !slices.Contains(g.CCs, cc) && (by == "" || by != def && !slices.Contains(ccs, by)) {
			g.CCs = append(g.CCs, cc)
		}
	}
	return g
}

// dominatedBy names the control that carries one flow at least as far
// as cc does on any path ("": none): Reno's is CUBIC, whose window never
// falls below its estimate of Reno's (RFC 9438's Reno-friendly region)
// and which cuts it by 0.3 at a loss where Reno halves it.
func dominatedBy(cc string) string {
	if cc == "reno" {
		return "cubic"
	}
	return ""
}

// rungs are the values of one maximum: the host's, and BDP × Rung^k
// rounded up to 64 KiB between the floor and TopBDP, and TopBDP itself.
func rungs(bdp, host int64, pol Policy) []int64 {
	out := []int64{host}
	if bdp <= 0 {
		return out
	}
	floor := host
	if pol.AllowLower {
		floor = min(host, RoundUp(pol.LowBDP*float64(bdp)))
	}
	top := int64(pol.TopBDP*float64(bdp)) / 65536 * 65536 // never above it
	for k := math.Floor(math.Log(pol.LowBDP) / math.Log(pol.Rung)); ; k++ {
		v := RoundUp(float64(bdp) * math.Pow(pol.Rung, k))
		if v > top {
			v = top
		}
		if v >= floor && !slices.Contains(out, v) {
			out = append(out, v)
		}
		if v == top {
			break
		}
	}
	slices.Sort(out)
	return out
}

// RoundUp rounds a buffer size up to 64 KiB.
func RoundUp(b float64) int64 { return int64(math.Ceil(b/65536)) * 65536 }

// Points are every point of the grid, cheapest first.
func (g Grid) Points() []Point {
	var out []Point
	queues := []Knob{""}
	if g.Queue != "" {
		queues = append(queues, g.Queue)
	}
	for _, cc := range g.CCs {
		for _, r := range g.Rmem {
			for _, w := range g.Wmem {
				for _, q := range queues {
					for _, mtu := range append([]int{0}, g.MTUs...) {
						out = append(out, Point{Rmem: r, Wmem: w, CC: cc, Queue: q, MTU: mtu})
					}
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Point) int { return cmpFloat(g.Cost(a), g.Cost(b)) })
	return out
}

// Cost is what a point costs: the memory one busy connection can reach
// and the defaults every idle socket holds, a change of the congestion
// control or the MTU, and a host queue's raise.
func (g Grid) Cost(p Point) float64 {
	c := float64(p.Rmem + p.Wmem + g.Idle)
	if p.CC != g.Default {
		c += g.CCCost * float64(g.BDP)
	}
	if p.MTU != 0 {
		c += g.CCCost * float64(g.BDP)
	}
	if p.Queue != "" {
		c += g.QueueCost
	}
	return c
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Prior is what the model knows before any trial.
type Prior struct {
	Goodput  float64 // bit/s
	Source   Source
	IdleRTT  time.Duration
	BothEnds bool
	Dirs     []Direction // the directions this host controls
	Default  string      // the congestion control trials use by default
	// MTU is the interfaces' MTU as found; MTUs the larger ones the
	// path carries (the grid's).
	MTU  int
	MTUs []int
	// RecvShare and SendShare are the window model's shares of a buffer
	// that become window and payload in flight (internal/window).
	RecvShare, SendShare float64
}

// bdp is the path's bandwidth-delay product at the idle RTT, bytes.
func (pr Prior) bdp() float64 { return pr.Goodput / 8 * pr.IdleRTT.Seconds() }

// Needs is what the window model's prior needs of each buffer maximum
// for one flow to carry goodput bit/s over rtt: the least rung of a grid
// anchored at bdp (bdp × Rung^k) whose window, at the prior's share,
// carries the goodput with MinTol as headroom. It is the first point
// tune's search proposes on a path it has not measured, and what advise
// recommends for Linux, so the two cannot disagree.
func Needs(bdp int64, goodput float64, rtt time.Duration, recvShare, sendShare float64, pol Policy) (rmem, wmem int64) {
	path := goodput / 8 * rtt.Seconds()
	atRung := func(v float64) int64 {
		k := math.Ceil(math.Log(v/float64(bdp))/math.Log(pol.Rung) - 1e-9)
		return RoundUp(float64(bdp) * math.Pow(pol.Rung, k))
	}
	return atRung(path / recvShare * (1 + pol.MinTol)), atRung(path / sendShare * (1 + pol.MinTol))
}

// Need is what buffer k needs on this path as the model has learned it:
// Needs with the model's shares (cc's for the send buffer) and each
// direction's target, the largest over the controlled directions k acts
// on (0: it acts on none). The report compares it with a maximum the
// host already has above it, which the search never lowers.
func (m Model) Need(k Knob, cc string, bdp int64, pol Policy) int64 {
	var need int64
	for _, d := range m.Dirs {
		if !acts(k, d, m.BothEnds) {
			continue
		}
		r, w := Needs(bdp, m.Target(d), m.IdleRTT, m.recvShare(), m.sendShare(cc), pol)
		if k == Rmem {
			need = max(need, r)
		} else {
			need = max(need, w)
		}
	}
	return need
}

// apart is how far two single trials in direction d must differ to be
// apart: Spreads standard deviations of their difference (the pooled
// spread × √2), at least MinTol and not capped: where a control's rate
// has two modes (cubic leaving slow start early or late) one trial of
// each differs by that much without any knob's doing.
func (m Model) apart(d Direction, pol Policy) float64 {
	return max(pol.MinTol, stats.Apart(m.Spread[d], pol.Spreads, 1, 1))
}

// fast is where a trial in d is above a window's limit at rate r: beyond the noise.
func (m Model) fast(r float64, d Direction, p Policy) float64 { return r * (1 + m.TolN(d, 1, 1, p)) }

// Modes is the congestion window's limit that holds p in d, where one
// does (a Share under 1: a control's two modes, their mix predicted).
func (m Model) Modes(p Point, d Direction) (Limit, bool) { return m.window(p, d) }

// ShareOf is the share of buffer k the model predicts with (a send
// buffer's for control cc), and whether trials taught it.
func (m Model) ShareOf(k Knob, cc string) (float64, bool) {
	if k == Rmem {
		return m.recvShare(), m.Recv > 0
	}
	s := m.sendShare(cc)
	return s, s != m.SendShare
}
