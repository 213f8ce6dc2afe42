package plan

import (
	"cmp"
	"math"
	"slices"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/window"
)

// Model is the path as the trials so far show it.
type Model struct {
	Prior
	// Recv and Send are the buffer shares learned where a buffer held
	// (rate × idle RTT over it; 0 = not learned); Send per congestion
	// control (a lossy flow's buffer also holds what was sent beyond
	// holes), Writer from trials that lost nothing, whatever their control.
	Recv, Writer float64
	Send         map[string]float64
	// Ceiling is, per direction and MTU, what no knob of this host moves
	// (the peer's buffer, a core, an unseen sender); 0 = none seen.
	Ceiling map[At]float64
	// Window is, per congestion control class, direction and MTU, the
	// limit of its congestion window short of the path (see windows).
	Window map[string]map[At]Limit
	// Spread is each direction's relative noise, pooled over full sets.
	Spread map[Direction]float64
	// Loss is the path's random loss (lossFloor); MSS the trials'
	// largest per MTU (the smaller end's: a peer's may stay).
	Loss float64
	MSS  map[int]int
	// Dropped is the trials this host's queues' drops held, whose mean
	// caps a point (drops outside TCP hold a flow whatever its buffers).
	Dropped map[DropKey][]Obs
}

// At is a direction at an MTU (0: as found): a larger MTU changes what
// a core, a peer and a congestion window allow.
type At struct {
	Dir Direction
	MTU int
}

// DropKey is where host-queue drops were seen: a control's class, a
// direction and the queue raised there ("" none).
type DropKey struct {
	Class string
	Dir   Direction
	Queue Knob
}

// Limit is a congestion window's limit: the rate of the trials it held,
// the share it held (the others carried more, above Fast: a control's two
// modes deliver their mix), and the payload in flight the buffers allow
// (bytes) from which it holds and up to which (+Inf: no more buffer lifts it).
type Limit struct {
	Rate, Fast, Share, From, Upto float64
}

// Fit is the model the observations imply.
func Fit(pr Prior, obs []Obs, pol Policy) Model {
	m := Model{Prior: pr, Send: map[string]float64{}, Ceiling: map[At]float64{}, MSS: map[int]int{},
		Window: map[string]map[At]Limit{lossBased: {}}, Spread: spreads(obs, pr), Dropped: map[DropKey][]Obs{}}
	idle := pr.IdleRTT.Seconds()
	m.Loss = lossFloor(obs)
	for _, o := range obs {
		d, cc := o.Dir, m.ccOf(o.Point, o.Dir)
		l := o.limit()
		if m.buffers(o, obs, pol) {
			l = attrib.SendBuffer // more of it did better: it was the buffer's
		}
		switch {
		case o.Drops, m.overfills(o, pol):
			// Held by the host's queue, or by the send buffer of a
			// pacing control that overfilled the bottleneck's queue
			// (its window limit below says how): no share to learn.
		case l == attrib.ReceiverWindow && acts(Rmem, d, pr.BothEnds):
			m.Recv = lower(m.Recv, o.windowRate()*idle/float64(o.Point.Rmem))
		case l == attrib.SendBuffer && acts(Wmem, d, pr.BothEnds):
			m.Send[cc] = lower(m.Send[cc], o.Rate*idle/8/float64(o.Point.Wmem))
			if o.Lost == 0 {
				m.Writer = lower(m.Writer, o.Rate*idle/8/float64(o.Point.Wmem))
			}
		}
		m.MSS[o.Point.MTU] = max(m.MSS[o.Point.MTU], o.MSS)
		if k := (DropKey{class(cc), d, o.Point.key(d, m.BothEnds).Queue}); m.dropHeld(o, pol) {
			m.Dropped[k] = append(m.Dropped[k], o)
		}
	}
	// What no buffer lifts (the peer's side, a core) is learned from full
	// sets where it held every trial, and from as many screenings as a
	// full set has that it held in a direction at an MTU, wherever their
	// buffers were: the best set's mean (where a trial carried more, the
	// set shows a control's two modes: see windows).
	screened := groups(obs, func(o Obs) (At, bool) { return At{o.Dir, o.Point.MTU}, o.Kind == Screen && m.beyond(o) })
	sets, best := append(fullSets(obs, pr.BothEnds), slices.DeleteFunc(screened, func(s []Obs) bool { return len(s) < pol.Trials })...), map[At]float64{}
	for _, set := range sets {
		d := At{set[0].Dir, set[0].Point.MTU}
		if best[d] = max(best[d], meanRate(set)); !slices.ContainsFunc(set, func(x Obs) bool { return !m.beyond(x) }) {
			m.Ceiling[d] = 0 // held every trial: its figure below
		}
	}
	for d := range m.Ceiling {
		m.Ceiling[d] = best[d]
	}
	m.windows(obs, pol)
	return m
}

// overfills reports whether o is a pacing control overfilling the
// bottleneck's queue with its send buffer full: most of its losses were
// its own (ownLoss), and its buffer sat at its cap.
func (m Model) overfills(o Obs, pol Policy) bool {
	return Paces(m.ccOf(o.Point, o.Dir)) && acts(Wmem, o.Dir, m.BothEnds) && (o.Capped == attrib.SendBuffer || o.Limit == attrib.SendBuffer || o.Recovering) && m.ownLoss(o, pol)
}

// ownLoss reports whether o lost beyond twice the path's random loss, by
// Spreads standard deviations of a count and the rule of three's three.
func (m Model) ownLoss(o Obs, pol Policy) bool {
	want := o.segments() * m.Loss
	return float64(o.Lost) > 2*want+pol.Spreads*math.Sqrt(want)+3
}

// shallow reports whether d's bottleneck queue holds under about Gain − 1
// BDPs (one a pacing control overfills): a trial in d overflowed it (lost
// beyond random loss, no host queue dropping) with under Gain BDPs in
// flight, by more than the noise, and filled the path or, a loss-based
// control's, had buffers that let more than a BDP in flight (a window
// held under the BDP stands in no queue).
func (m Model) shallow(obs []Obs, d Direction, pol Policy) bool {
	return slices.ContainsFunc(obs, func(o Obs) bool {
		tol := 1 + m.apart(o.Dir, pol)
		return (o.Dir == d || o.Dir == m.mirror(d)) && m.ownLoss(o, pol) && !o.Drops && o.Inflight > 0 && float64(o.Inflight)*tol < pol.Gain*m.bdp() &&
			(attrib.Full(o.Rate, m.goodput(o.Point.MTU)) || !Paces(m.ccOf(o.Point, o.Dir)) && m.allows(o.Point, o.Dir) > tol*m.bdp())
	})
}

// windows learns each class's congestion-window limit per direction and
// MTU: the rate of the trials the sender's side held and their share (the
// others carried more), from the least buffers a full set's trial saw it
// hold at, or a loss-based control's screening at a full set's key (an
// early exit lasts the trial; a pacing control's slow trial passes, as a
// timeout, so a short screening does not sample a full set's). A
// loss-based window holds no flow its buffers hold under the BDP (no
// queue to lose in); held without loss where its buffers let it fill the
// path (as a full set of its class there did: fills), it left slow start
// early, which more buffer neither causes nor cures, so it holds wherever
// they do. Behind a shallow queue, until a trial shows that mode, it is
// taken at SlowRate in one of n+2 trials, n those that filled the path
// without it (Laplace's rule of succession), from the least buffers that
// filled it. A pacing control that overfilled is held at what those
// trials carried, from where it overfills (their payload, or a BDP and
// the queue they stood in, where less) to Gain + 1 BDPs, in their share
// of the trials there that no buffer of this host held (the others, no
// loss of its own, its other mode: at the edge it overfills at times).
func (m *Model) windows(obs []Obs, pol Policy) {
	type ck struct {
		c string
		d At
	}
	keyOf := func(o Obs) ck { return ck{class(m.ccOf(o.Point, o.Dir)), At{o.Dir, o.Point.MTU}} }
	filled := func(o Obs) bool { return m.allows(o.Point, o.Dir) >= m.bdp() || o.mode(m.bdp()) == attrib.PathFull } // a BDP in flight, whatever the shares say
	from, over, fills := map[ck]float64{}, map[ck][]Obs{}, map[ck]float64{}
	for _, x := range obs {
		if a := min(m.allows(x.Point, x.Dir), m.bdp()); x.Kind == Full && filled(x) {
			fills[keyOf(x)] = lower(fills[keyOf(x)], a)
		}
	}
	for _, o := range obs {
		k := keyOf(o)
		f, early := fills[k]
		switch held := m.sendersHeld(o, obs, pol) && (o.Kind == Full || !Paces(k.c)); {
		case m.overfills(o, pol):
			over[k], from[k] = append(over[k], o), lower(from[k], math.Inf(1))
		case held && early && !Paces(k.c) && o.Lost == 0 && m.allows(o.Point, o.Dir) >= f:
			from[k] = lower(from[k], f)
		case held && fullAt(obs, o.Point, o.Dir, m.BothEnds):
			from[k] = lower(from[k], m.allows(o.Point, o.Dir))
		}
	}
	for k := range from {
		l := Limit{From: from[k], Upto: math.Inf(1)}
		in := slices.DeleteFunc(slices.Clone(obs), func(o Obs) bool { return keyOf(o) != k || m.dropHeld(o, pol) || m.allows(o.Point, o.Dir) < l.From })
		held := slices.DeleteFunc(slices.Clone(in), func(o Obs) bool { return !m.sendersHeld(o, obs, pol) }) // what the sender's side held
		l.Rate, l.Fast = meanRate(held), m.fast(meanRate(held), k.d.Dir, pol)
		more := slices.DeleteFunc(in, func(o Obs) bool { return m.sendersHeld(o, obs, pol) || o.Rate <= l.Fast }) // what carried more
		l.Share = float64(len(held)) / float64(len(held)+len(more))
		if len(over[k]) > 0 {
			l = Limit{Rate: meanRate(over[k]), Fast: m.fast(meanRate(over[k]), k.d.Dir, pol), From: math.Inf(1), Upto: (pol.Gain + 1) * m.bdp()}
			for _, o := range over[k] {
				l.From = min(l.From, m.allows(o.Point, o.Dir), m.bdp()+o.queued(m.IdleRTT))
			}
			in = slices.DeleteFunc(slices.Clone(obs), func(o Obs) bool { // its other mode
				return keyOf(o) != k || !m.within(l, o.Point, o.Dir) || m.ownLoss(o, pol) || o.ownBuffer(m.BothEnds) || o.Drops
			})
			l.Share = float64(len(over[k])) / float64(len(over[k])+len(in))
		}
		if m.Window[k.c] == nil {
			m.Window[k.c] = map[At]Limit{}
		}
		m.Window[k.c][k.d] = l
	}
	for _, d := range m.Dirs {
		for _, mtu := range append([]int{0}, m.MTUs...) {
			k := ck{lossBased, At{d, mtu}}
			if _, learned := at(*m, m.Window[k.c], k.d); !learned && m.shallow(obs, d, pol) {
				n := len(slices.DeleteFunc(slices.Clone(obs), func(o Obs) bool { return keyOf(o) != k || !filled(o) || m.dropHeld(o, pol) }))
				r := pol.SlowRate * m.goodput(mtu)
				m.Window[k.c][k.d] = Limit{Rate: r, Fast: m.fast(r, d, pol), Share: 1 / float64(n+2), From: cmp.Or(fills[k], m.bdp()), Upto: math.Inf(1)}
			}
		}
	}
}

// sendersHeld reports whether the sender's side held o short of the
// path, not this host's buffers nor its queues' drops:
// its control's window, with less than the BDP in flight where that was
// read (see mode); or, where this host receives without the sender's
// view, whatever the receiver's view cannot name once it rules this
// host's window out (the peer's window or its send buffer).
func (m Model) sendersHeld(o Obs, obs []Obs, pol Policy) bool {
	switch {
	case m.dropHeld(o, pol):
		return false
	case o.limit() == attrib.Unknown && !o.SenderView:
		return acts(Rmem, o.Dir, m.BothEnds) && slices.Contains(o.RuledOut, attrib.ReceiverWindow)
	}
	return o.mode(m.bdp()) == attrib.Network && !m.ambiguous(o, obs, pol)
}

// dropHeld reports whether this host's queues' drops held o: neither the
// path nor a buffer of this host did (where either did, they cost nothing).
func (m Model) dropHeld(o Obs, pol Policy) bool {
	return o.Drops && o.limit() != attrib.PathFull && (!o.ownBuffer(m.BothEnds) || o.limit() == attrib.SendBuffer && m.roomLeft(o, pol))
}

// roomLeft reports whether o's payload in flight stayed short of the
// prior's share of its send buffer by more than MaxTol (unknown: no).
func (m Model) roomLeft(o Obs, pol Policy) bool {
	return o.Inflight > 0 && float64(o.Inflight) < m.SendShare*(1-pol.MaxTol)*float64(o.Point.Wmem)
}

// ambiguous reports whether o's window may be this host's send buffer's:
// it had no room left, and a trial with more of it (the same control and
// direction) did better by more than the noise (a diagnosis can miss a
// buffer; a comparison does not) or, held with the buffer at its cap, no
// such trial has told yet. A buffer with room left held nothing.
func (m Model) ambiguous(o Obs, obs []Obs, pol Policy) bool {
	if o.limit() != attrib.Network || !acts(Wmem, o.Dir, m.BothEnds) || m.roomLeft(o, pol) {
		return false
	}
	return m.beaten(o, obs, pol) || o.Capped == attrib.SendBuffer && !m.more(o, obs, func(Obs) bool { return true })
}

// buffers reports whether o's window, held by loss with the send buffer at
// its cap, was the buffer's (which also holds what was sent beyond each
// hole): a trial with more of it did better.
func (m Model) buffers(o Obs, obs []Obs, pol Policy) bool {
	return o.Capped == attrib.SendBuffer && o.Lost > 0 && m.ambiguous(o, obs, pol) && m.beaten(o, obs, pol)
}

// beaten reports whether a trial with more send buffer than o's did
// better by more than the noise (more).
func (m Model) beaten(o Obs, obs []Obs, pol Policy) bool {
	return m.more(o, obs, func(x Obs) bool { return x.Rate > o.Rate*(1+m.apart(o.Dir, pol)) })
}

// more reports whether a trial with more send buffer than o's, the same
// control and direction (in the lab, either), meets ok.
func (m Model) more(o Obs, obs []Obs, ok func(Obs) bool) bool {
	c := class(m.ccOf(o.Point, o.Dir))
	return slices.ContainsFunc(obs, func(x Obs) bool {
		return (x.Dir == o.Dir || x.Dir == m.mirror(o.Dir)) && x.Point.Wmem > o.Point.Wmem && class(m.ccOf(x.Point, x.Dir)) == c && ok(x)
	})
}

// beyond reports whether o's limit is one no knob of this host moves: a
// peer's buffer (the other end's side), a core, or a receiver's view that
// rules this host's window out or whose window allows the goodput already.
func (m Model) beyond(o Obs) bool {
	switch l := o.limit(); {
	case o.ownBuffer(m.BothEnds):
	case l == attrib.ReceiverWindow, l == attrib.SendBuffer, l == attrib.CPU:
		return true
	case l == attrib.Unknown:
		return slices.Contains(o.RuledOut, attrib.ReceiverWindow) || acts(Rmem, o.Dir, m.BothEnds) && m.recvShare()*float64(o.Point.Rmem)*8/m.IdleRTT.Seconds() >= m.Goodput
	}
	return false
}

// fullSetLearns reports whether o's limit is one only a full set
// teaches (a congestion window, the peer's side, a core: no buffer of
// this host held it), so that a screening held so calls for its full set.
func (m Model) fullSetLearns(o Obs) bool { return o.limit() == attrib.Network || m.beyond(o) }

// ccOf is the congestion control that sends in d at p: p's where this
// host's control acts on d, else the default (the peer's own).
func (m Model) ccOf(p Point, d Direction) string {
	if acts(CC, d, m.BothEnds) && p.CC != "" {
		return p.CC
	}
	return m.Default
}

func (m Model) recvShare() float64 { return cmp.Or(m.Recv, m.RecvShare) }

// sendShare is cc's learned share, else the writer's, never above the
// prior's: tcptune's writer keeps its send buffer fuller than an
// application's event-driven one (0.93–0.98 against 0.80).
func (m Model) sendShare(cc string) float64 {
	return min(cmp.Or(m.Send[cc], m.Writer, m.SendShare), m.SendShare)
}

// mirror stands for d where d learned nothing: in the lab the ends are alike.
func (m Model) mirror(d Direction) Direction {
	if !m.BothEnds {
		return ""
	}
	return map[Direction]Direction{Forward: Reverse, Reverse: Forward}[d]
}

// at is what mp holds for d, or in the lab for its mirror.
func at[V any](m Model, mp map[At]V, d At) (V, bool) {
	v, ok := mp[d]
	if !ok {
		v, ok = mp[At{m.mirror(d.Dir), d.MTU}]
	}
	return v, ok
}

// Target is what direction d can reach: the path's goodput at the best
// MTU it carries, or less where something no knob of this host moves
// holds it there.
func (m Model) Target(d Direction) float64 {
	t := 0.0
	for _, mtu := range append([]int{0}, m.MTUs...) {
		c, _ := at(m, m.Ceiling, At{d, mtu})
		t = max(t, min(m.goodput(mtu), cmp.Or(c, math.Inf(1))))
	}
	return t
}

// goodput is the path's goodput at an MTU (0: as found) at the MSS its
// trials had there, else at the same headers.
func (m Model) goodput(mtu int) float64 {
	if base := m.MSS[0]; mtu != 0 && base > 0 {
		return window.Payload(m.Goodput, base, cmp.Or(m.MSS[mtu], mtu-m.MTU+base), 0)
	}
	return m.Goodput
}

// Predict is the rate the model expects at p in direction d (predict's
// two parts' least).
func (m Model) Predict(p Point, d Direction) float64 {
	w, c := m.predict(p, d)
	return min(w, c)
}

// predict is what this host's buffers acting on d allow over the idle
// RTT (win: a trial may yet show their share smaller, so a prediction
// takes the noise as headroom on it), and what holds the flow whatever
// the buffers (caps: a control's window limit, its response to random
// loss, this host's queues' drops, the ceiling, the goodput).
func (m Model) predict(p Point, d Direction) (win, caps float64) {
	if m.IdleRTT <= 0 {
		return m.Target(d), m.Target(d)
	}
	win, caps = m.allows(p, d)*8/m.IdleRTT.Seconds(), math.Inf(1)
	cc := m.ccOf(p, d)
	// Up to Upto the buffers hold what the window model's shares say
	// (see window).
	w, mixed := m.window(p, d)
	if set, ok := m.Dropped[DropKey{class(cc), d, p.key(d, m.BothEnds).Queue}]; ok {
		caps = min(caps, meanRate(set))
	}
	if mss := m.MSS[p.MTU]; !Paces(cc) && m.Loss > 0 && mss > 0 {
		caps = min(caps, window.LossRate(int64(mss), m.IdleRTT, m.Loss))
	}
	c, _ := at(m, m.Ceiling, At{d, p.MTU}) // 0: none
	if caps = min(caps, cmp.Or(c, caps), m.goodput(p.MTU)); mixed {
		caps = min(caps, w.Share*w.Rate+(1-w.Share)*min(win, caps)) // the window's mode, and the rest
	}
	return win, caps
}

// window is the congestion window's limit that holds p in d (ok false:
// none learned, or p's buffers are outside where it holds). Upto bounds
// the bytes in flight, a holed flight's included, which both buffers
// hold at the window model's shares: a learned share is a rate's at the
// idle RTT, which folds in the queue a held flow stood in and, on the
// send side, the holes, which Upto counts already.
func (m Model) window(p Point, d Direction) (Limit, bool) {
	w, ok := at(m, m.Window[class(m.ccOf(p, d))], At{d, p.MTU})
	return w, ok && m.within(w, p, d)
}

// within reports whether p's buffers in d are where limit l holds.
func (m Model) within(l Limit, p Point, d Direction) bool {
	return m.allows(p, d) >= l.From && m.payload(p, d, m.RecvShare, m.SendShare) < l.Upto
}

// allows is the payload the buffers of this host acting on d let in flight
// at p (bytes; +Inf: none acts), at the shares learned, its send buffer at
// its control's.
func (m Model) allows(p Point, d Direction) float64 {
	return m.payload(p, d, m.recvShare(), m.sendShare(m.ccOf(p, d)))
}

func (m Model) payload(p Point, d Direction, recv, send float64) float64 {
	a := math.Inf(1)
	if acts(Rmem, d, m.BothEnds) {
		a = min(a, recv*float64(p.Rmem))
	}
	if acts(Wmem, d, m.BothEnds) {
		a = min(a, send*float64(p.Wmem))
	}
	return a
}
