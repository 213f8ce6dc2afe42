package plan

import (
	"math"
	"slices"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/stats"
)

// Kind is what a trial is for.
type Kind int

const (
	// Screen is one trial: it may refute, never accept.
	Screen Kind = iota + 1
	// Full is a full set (Policy.Trials per direction): only full sets
	// accept, and the choice's is its verification.
	Full
)

// Obs is one trial, typed: what it ran and what it showed.
type Obs struct {
	Point Point
	Dir   Direction
	Kind  Kind
	Rate  float64 // bit/s, as the kernel counted it
	// Limit is the attribution's, with what it ruled out where it could
	// not decide; Capped a buffer at its cap behind another limit;
	// Recovering: the send buffer sat full while loss was recovered.
	Limit      attrib.Limit
	RuledOut   []attrib.Limit
	Capped     attrib.Limit
	Recovering bool
	SenderView bool // the sender's TCP_INFO was read
	// Lost is the retransmits that repaired a loss: those the receiver
	// reported as duplicates (DSACK: reordering) are not (-1 = unknown).
	Lost        int64
	Inflight    int64 // the sender's payload in flight, bytes (0 = unknown)
	Window      int64 // the largest window the receiver advertised (0 = unknown)
	RTT, MinRTT time.Duration
	MSS         int
	Seconds     float64
	Core        bool // a core of this host ran flat out
	Drops       bool // this host's queues dropped packets
	// Control is the sender's congestion control where known ("": a
	// peer's own default).
	Control string
}

// limit is what the model takes o's limit for: the attribution's,
// except that a window no buffer held while a core of this host ran
// flat out is the core's.
func (o Obs) limit() attrib.Limit {
	if o.Core && (o.Limit == attrib.Network || o.Limit == attrib.Unknown) {
		// A window no buffer held, with a core of this host flat out.
		return attrib.CPU
	}
	return o.Limit
}

// ownBuffer reports whether o's verdict names a buffer of this host
// that acts on o's direction.
func (o Obs) ownBuffer(bothEnds bool) bool {
	l := o.limit()
	return l == attrib.ReceiverWindow && acts(Rmem, o.Dir, bothEnds) || l == attrib.SendBuffer && acts(Wmem, o.Dir, bothEnds)
}

// Settled reports whether set, a full set's trials so far in one
// direction, decides it before its last trial: two or more within
// MinTol of each other, none with a retransmit, a drop of this host's
// queues or a recovery, each held by a figure chance does not move:
//   - a buffer of this host acting there: what it holds short of the
//     path is its window over the RTT (a stock peer's reverse, seen
//     from this receiver, counts no retransmits);
//   - the path, filled by a pacing control (Obs.Control): what it holds
//     is the path's goodput, which no later trial exceeds, and a pacing
//     control that lost nothing kept its rate at the bottleneck it
//     measures.
//
// A flow that a congestion window holds, or that filled the path with a
// control cutting its window at each loss (cubic, which behind a shallow
// queue has two modes), or with loss (a pacing control overfilling a
// queue, whose response to the loss varies), or whose sender's control
// is unknown (a peer's own), runs every trial. A buffer-held set that
// stops may miss a slower mode its congestion window has there at times
// (cubic leaving slow start early under the clamp), so it rates the
// setting at the buffer's figure.
func Settled(set []Obs, bothEnds bool, pol Policy) bool {
	if len(set) < 2 {
		return false
	}
	lo, hi := math.Inf(1), 0.0
	for _, o := range set {
		fixed := o.ownBuffer(bothEnds) || o.limit() == attrib.PathFull && Paces(o.Control)
		if !fixed || o.Lost > 0 || o.Drops || o.Recovering {
			return false
		}
		lo, hi = min(lo, o.Rate), max(hi, o.Rate)
	}
	return hi <= lo*(1+pol.MinTol)
}

// mode is the limit o's rate belongs to among its set's: its limit,
// except that a lossless flow that kept the path's BDP (bytes) in flight
// and fell short was not held by its window but by noise or a flow
// sharing the path: it belongs with the trials that filled the path.
func (o Obs) mode(bdp float64) attrib.Limit {
	if o.limit() == attrib.Network && o.Lost == 0 && o.Inflight > 0 && float64(o.Inflight) >= bdp {
		return attrib.PathFull
	}
	return o.limit()
}

// Source says where the goodput came from.
type Source int

const (
	SourceLink      Source = iota + 1 // the lab link's rate
	SourceGiven                       // --rate
	SourceEstimated                   // the best of the probes and trials
)

// Action is what Next says to do.
type Action struct {
	Done  bool
	Point Point
	Kind  Kind
	Dirs  []Direction // the directions to run, in order
	// Predicted is the model's rate per direction at Point (what a
	// screening is held to); Aim the share of each direction's target
	// the plan aims at now (the best any point is rated at there).
	Predicted map[Direction]float64
	Aim       map[Direction]float64
	// Why says why it stops: nothing left worth a trial, or the budget.
	Why Stop
	// Untried counts the points the model still rated at the aim when
	// the budget ran out.
	Untried int
	// Confirm: a full set that confirms a screening's limit in its
	// directions only (Dirs), not one that may make a choice.
	Confirm bool
}

// Stop says why Next is done.
type Stop int

const (
	StopNone    Stop = iota
	StopChosen       // the cheapest point at the aim has its full set
	StopNothing      // no point is left that the model rates at the aim
	StopBudget       // the next trial would not leave the full set's time
)

// State is what Next and Choose read: the grid, the model and every
// observation, and the trial time spent so far.
type State struct {
	Grid  Grid
	Model Model
	Obs   []Obs
	Spent time.Duration
}

// fullSets are the full sets' trials grouped by key and direction, each
// sorted by rate, in a fixed order.
func fullSets(obs []Obs, bothEnds bool) [][]Obs {
	type k struct {
		p Point
		d Direction
	}
	return groups(obs, func(o Obs) (k, bool) { return k{o.Point.key(o.Dir, bothEnds), o.Dir}, o.Kind == Full })
}

// groups are the observations key keeps, grouped by their key, each
// sorted by rate, in the order of their first.
func groups[K comparable](obs []Obs, key func(Obs) (K, bool)) [][]Obs {
	idx := map[K]int{}
	var out [][]Obs
	for _, o := range obs {
		x, ok := key(o)
		if !ok {
			continue
		}
		i, seen := idx[x]
		if !seen {
			i, idx[x], out = len(out), len(out), append(out, nil)
		}
		out[i] = append(out[i], o)
	}
	for _, s := range out {
		slices.SortStableFunc(s, func(a, b Obs) int { return cmpFloat(a.Rate, b.Rate) })
	}
	return out
}

// fullAt reports whether obs hold a full set at p's key in d.
func fullAt(obs []Obs, p Point, d Direction, both bool) bool {
	return slices.ContainsFunc(obs, func(o Obs) bool { return o.Dir == d && o.Kind == Full && o.Point.key(d, both) == p.key(d, both) })
}

func meanRate(set []Obs) float64 { return mean(rates(set)) }

// rates is the trials' rates.
func rates(set []Obs) []float64 {
	xs := make([]float64, len(set))
	for i, o := range set {
		xs[i] = o.Rate
	}
	return xs
}

func lower(was, v float64) float64 {
	if was == 0 || v < was {
		return v
	}
	return was
}

// windowRate is the payload per second o's receive window allowed: the
// window it advertised over the RTT it met where both are known (a short
// trial's rate may not have reached it: eight RTTs at 150 ms), else its
// rate; at the idle RTT the RTT a held flow adds folds in.
func (o Obs) windowRate() float64 {
	if o.Window > 0 && o.RTT > 0 {
		return float64(o.Window) / o.RTT.Seconds()
	}
	return o.Rate / 8
}

// queued is the payload o's trial kept standing in the bottleneck's
// queue: its RTT under load above the idle one, at its rate (bytes;
// +Inf where its RTT is unknown: no bound).
func (o Obs) queued(idle time.Duration) float64 {
	if o.RTT <= 0 || idle <= 0 {
		return math.Inf(1)
	}
	return max(0, (o.RTT-idle).Seconds()) * o.Rate / 8
}

// segments is about how many segments o's trial sent (its rate over its
// period, in MSS-sized segments; 0 where either is unknown).
func (o Obs) segments() float64 {
	if o.MSS <= 0 {
		return 0
	}
	return o.Rate * o.Seconds / 8 / float64(o.MSS)
}

func mean(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// TolN is d's noise tolerance where the mean of n trials is held to the
// mean of k (0: a figure without noise): Spreads standard errors of
// their difference (the pooled spread × √(1/n + 1/k)), within [MinTol,
// MaxTol] (two single trials: apart).
func (m Model) TolN(d Direction, n, k int, pol Policy) float64 {
	return min(pol.MaxTol, max(pol.MinTol, stats.Apart(m.Spread[d], pol.Spreads, n, k)))
}

// mix is a full set's rate, xs, at p in d: its mean, or where the
// sender's side has two modes there (see windows: cubic leaving slow
// start early behind a shallow queue), their mix at the share all the
// class's trials show, the set's trials above the slow one standing for
// the fast: three trials sample the mix too coarsely to weigh it.
func (m Model) mix(p Point, d Direction, xs []float64) float64 {
	fast, cost := m.modes(p, d, xs)
	return fast - cost
}

// modes is a full set's rate, xs, at p in d, without its sender's slow
// mode: its fast trials' mean (where one mode: its mean), and what that
// mode costs it at the class's share (0: one mode).
func (m Model) modes(p Point, d Direction, xs []float64) (fast, cost float64) {
	w, ok := m.window(p, d)
	hi := slices.DeleteFunc(slices.Clone(xs), func(x float64) bool { return x <= w.Fast })
	if !ok || w.Share >= 1 || len(hi) == 0 {
		return mean(xs), 0
	}
	return mean(hi), w.Share * (mean(hi) - w.Rate)
}

// outranked reports whether another point's full set in d beat p's
// beyond the noise, its rate over MinTol above: each of its trials above
// each of p's, an order one distribution gives by chance at most
// pol.Order; or p's slow mode (see mix) costs it over MinTol of that
// rate more than the other's own costs it. A set's own scatter (a send
// buffer at the lossy send need losing a second to one loss; a trial in
// a control's slow mode) widens the spread TolN holds means to; the
// order does not widen with it, and a mode a trial saw is an event, not
// noise.
func (s State) outranked(p Point, d Direction, pol Policy) bool {
	xs, k := s.trials(p, d)
	x, _, _ := s.measured(p, d)
	slow := func(at Point, zs []float64) float64 { _, c := s.Model.modes(at, d, zs); return c }
	return k == Full && slices.ContainsFunc(fullSets(s.Obs, s.Model.BothEnds), func(set []Obs) bool {
		ys, q := rates(set), set[0].Point
		y := s.Model.mix(q, d, ys)
		return (set[0].Dir == d || set[0].Dir == s.Model.mirror(d)) && x < y*(1-pol.MinTol) &&
			(stats.Outranks(ys, xs) <= pol.Order || slow(p, xs)-slow(q, ys) > pol.MinTol*y)
	})
}

// spreads pools, per direction, the variance of log rates among the
// trials of each full set (the trials at one key) that one limit held
// (by mode, at the prior's BDP): the noise a comparison must clear. Trials
// of a set held by different limits (cubic leaving slow start early in
// one of them) are a control's
// two modes, which the set's mean carries; their difference is no noise;
// nor is a trial's that this host's queues dropped in (the drops' count
// varies from trial to trial, not the path).
func spreads(obs []Obs, pr Prior) map[Direction]float64 {
	bdp := pr.bdp()
	groups := map[Direction][][]float64{}
	for _, set := range fullSets(obs, pr.BothEnds) {
		byLimit := map[attrib.Limit][]float64{}
		for _, o := range set {
			if !o.Drops { // the drops' count varies, not the path
				byLimit[o.mode(bdp)] = append(byLimit[o.mode(bdp)], o.Rate)
			}
		}
		for _, xs := range byLimit {
			groups[set[0].Dir] = append(groups[set[0].Dir], xs)
		}
	}
	out := map[Direction]float64{}
	for d, g := range groups {
		if s, df := stats.LogSpread(g...); df > 0 {
			out[d] = s
		}
	}
	return out
}

// lossFloor is the path's random loss: the least share of its packets
// any trial retransmitted that this host's queues did not drop in (what
// they drop is theirs, and a raise of the queue ends it), or 0 where a
// lossless trial rules it out by the rule of three (none in n segments:
// 95% below 3/n).
func lossFloor(obs []Obs) float64 {
	floor, saw := 0.0, false
	for _, o := range obs {
		if p := float64(o.Lost) / o.segments(); o.Lost > 0 && !o.Drops && o.segments() > 0 && (!saw || p < floor) {
			floor, saw = p, true
		}
	}
	for _, o := range obs {
		if o.Lost == 0 && o.Seconds > 0 && o.segments()*floor >= 3 {
			return 0
		}
	}
	return floor
}
