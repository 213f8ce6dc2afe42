package tune

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/cores"
	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

func bdp(rate float64, rtt time.Duration) int64 { return window.BDP(rate, rtt) }

// knob names which buffer limits a direction and whose it is.
type knob struct {
	key  string // tcp_rmem or tcp_wmem
	peer bool   // the peer's, which this host cannot change
}

// leverOf is the buffer that held a trial in direction d, and whether
// it is the peer's (plan.Acts: this host's knob acts on d, or the other
// end's does): also a congestion window without loss behind a send
// buffer at its cap names that buffer (only a trial tells whether
// raising it helps). Without a sender's view (a stock iperf3 sends) it
// is this host's side of the direction; the trials decide.
func (r *runner) leverOf(d Direction, t Trial) (knob, bool) {
	limit := attrib.Limit(t.Limit)
	if limit == attrib.Network && t.Capped == string(attrib.SendBuffer) && t.lost() == 0 {
		limit = attrib.SendBuffer
	}
	k := map[attrib.Limit]string{attrib.ReceiverWindow: keyRmem, attrib.SendBuffer: keyWmem}[limit]
	switch {
	case limit == attrib.Unknown || limit == "":
		if k = keyRmem; slices.Contains(actsOn(keyWmem, false), d) {
			k = keyWmem // this host sends d
		}
	case k == "":
		return knob{}, false
	}
	return knob{key: k, peer: !slices.Contains(actsOn(k, r.env.BothEnds()), d)}, true
}

// controllable sets the directions this host can move, from the
// baseline's diagnosis, and what only the peer can change.
func (r *runner) controllable(base *Candidate) {
	r.res.Controllable = nil
	for _, d := range r.o.Directions {
		t, _ := medianTrial(base, d)
		if k, ok := r.leverOf(d, t); ok && k.peer && !r.good(base, d) {
			r.peerAdvice(d, k, t)
			continue
		}
		r.res.Controllable = append(r.res.Controllable, d)
	}
	base.summarize(r.o.Directions, r.res.Controllable)
}

func (r *runner) peerOnly() string { return strings.Join(r.res.PeerAdvice, "; ") }

// unseenPeer says what is known of a direction the peer sends without
// a sender's view (a stock iperf3): this host's buffer does not hold
// it (the receiver's verdict ruled its window out, or the buffer
// already allows the path's goodput), so the limit is on the peer's
// side; which one, the trial on the peer's sockets p decides where it
// ran (nil: it did not).
func (r *runner) unseenPeer(d Direction, k knob, cur int64, t Trial, p *peerCC) {
	v := r.peerNeed(keyWmem)
	why := fmt.Sprintf("this host's %s max %s already allows the path's goodput", strings.TrimPrefix(k.key, "net.ipv4."), r.multiple(cur))
	if slices.Contains(t.RuledOut, string(attrib.ReceiverWindow)) {
		why = "this host's receive window is ruled out (" + t.Verdict + ")"
	}
	wmem := fmt.Sprintf("if its tcp_wmem max is below %s: on %s: sysctl -w net.ipv4.tcp_wmem='4096 16384 %d' (tcptune advise's figure for this path)", r.multiple(v), r.env.Peer(), v)
	held := "its send buffer or its congestion control, which tune cannot see; " + wmem
	switch {
	case p == nil:
	case p.helped:
		held = p.finding(d, r.env.Peer())
	default:
		held = p.finding(d, r.env.Peer()) + "; " + wmem
	}
	line := fmt.Sprintf("%s is counted only at this receiver (the peer sends no sender's view, as a stock iperf3 does not); %s, so the limit is on the peer's side: %s", d, why, held)
	if !slices.Contains(r.res.PeerAdvice, line) {
		r.res.PeerAdvice = append(r.res.PeerAdvice, line)
	}
}

// peerNeed is what the peer's buffer key needs on this path: tcptune
// advise's figure, the window model's need at the prior's shares (the
// peer's own are out of reach) on tune's rungs.
func (r *runner) peerNeed(key string) int64 {
	m := window.Linux66
	rm, wm := plan.Needs(r.res.BDP, r.res.Rate, r.res.RTT, m.Recv, m.Send, r.policy())
	if key == keyRmem {
		return rm
	}
	return wm
}

// peerAdvice records the command the peer needs: its buffer at what
// the path needs (peerNeed).
func (r *runner) peerAdvice(d Direction, k knob, t Trial) {
	v := r.peerNeed(k.key)
	def := "4096 131072"
	if k.key == keyWmem {
		def = "4096 16384"
	}
	line := fmt.Sprintf("%s is limited by the peer's %s (%s): on %s: sysctl -w %s='%s %d' (%s, tcptune advise's figure for this path; tune cannot change another host)",
		d, strings.TrimPrefix(k.key, "net.ipv4."), t.Verdict, r.env.Peer(), k.key, def, v, r.multiple(v))
	for _, x := range r.res.PeerAdvice {
		if x == line {
			return
		}
	}
	r.res.PeerAdvice = append(r.res.PeerAdvice, line)
}

// good reports whether c's median in d fills the path.
func (r *runner) good(c *Candidate, d Direction) bool {
	return attrib.Full(c.Summary[d].Median, r.res.Goodput)
}

// fullShare is the baseline's worst share of the goodput over the
// controllable directions (0 when the goodput is unknown).
func (r *runner) fullShare(c *Candidate) float64 {
	if r.res.Goodput <= 0 {
		return 0
	}
	f := math.Inf(1)
	for _, d := range r.res.Controllable {
		f = min(f, c.Summary[d].Median/r.res.Goodput)
	}
	return f
}

func (r *runner) multiple(v int64) string {
	return strconv.FormatFloat(math.Round(float64(v)/float64(max(r.res.BDP, 1))*100)/100, 'f', -1, 64) + " × BDP"
}

// candidate builds the search's candidate at buffer maxima rmem and
// wmem: the keys that differ from the current settings, with the current
// min and default kept.
func (r *runner) candidate(rmem, wmem int64, why map[string]string) *Candidate {
	r.seq++
	c := &Candidate{ID: fmt.Sprintf("search-%d", r.seq), Origin: OriginSearch}
	var names, sizes []string
	for _, k := range []struct {
		key string
		v   int64
	}{{keyRmem, rmem}, {keyWmem, wmem}} {
		cur := strings.Fields(r.current[k.key])
		if len(cur) != 3 {
			continue
		}
		val := fmt.Sprintf("%s %s %d", cur[0], cur[1], k.v)
		short := strings.TrimPrefix(strings.TrimPrefix(k.key, "net.ipv4."), "tcp_")
		names = append(names, fmt.Sprintf("%s %s", short, r.multiple(k.v)))
		sizes = append(sizes, fmt.Sprintf("%s max %s", strings.TrimPrefix(k.key, "net.ipv4."), size(k.v)))
		if norm(val) == norm(r.current[k.key]) {
			continue
		}
		reason := why[k.key]
		if reason == "" {
			reason = "kept from the step before"
		}
		c.Settings = append(c.Settings, Setting{Key: k.key, Value: val, Reason: reason})
	}
	c.Name = strings.Join(names, ", ")
	c.Source = "the search: " + strings.Join(sizes, ", ")
	c.resolve(r.current)
	return c
}

// screen runs one trial per direction, the judged ones first. In the lab both ends carry the same settings over the
// same link, so one direction screens for both (the baseline and the
// verification run every direction).
func (r *runner) screen(ctx context.Context, c *Candidate, extra TrialSpec) error {
	for _, d := range r.screenDirs() {
		if err := r.trials(ctx, c, 1, []Direction{d}, extra); err != nil {
			return err
		}
	}
	return nil
}

// screenDirs are the directions screen runs.
func (r *runner) screenDirs() []Direction {
	dirs := append(slices.Clone(r.res.Controllable), r.uncontrolled()...)
	if r.env.BothEnds() {
		dirs = dirs[:1]
	}
	return dirs
}

func (r *runner) uncontrolled() []Direction {
	var out []Direction
	for _, d := range r.o.Directions {
		if !slices.Contains(r.res.Controllable, d) {
			out = append(out, d)
		}
	}
	return out
}

// windowShort is the first direction this host controls in which c's
// congestion window (its median trial's limit) held it short of the
// path, with that trial: what parallel streams may do that no buffer
// does (loss, or cubic growing slowly behind a shallow queue).
func (r *runner) windowShort(c *Candidate) (Direction, Trial, bool) {
	for _, d := range r.res.Controllable {
		if t, ok := medianTrial(c, d); ok && attrib.Limit(t.Limit) == attrib.Network && !r.good(c, d) {
			return d, t, true
		}
	}
	return "", Trial{}, false
}

// windowWhy says what t's evidence decides of a congestion window that
// held direction d short of the path (bdp bytes): with loss (which a
// loss-based control cuts it at, and a pacing one overfilling a queue
// causes), short of the BDP without loss, or neither, where the window
// did not hold it and more streams can only take a larger share from a
// flow that shares the path.
func windowWhy(d Direction, t Trial, bdp int64) string {
	switch {
	case t.lost() > 0:
		return fmt.Sprintf("%s: the congestion window holds the flow short of the path, with loss (%d retransmits)", d, t.lost())
	case t.lost() == 0 && t.Inflight > 0 && t.Inflight < bdp:
		return fmt.Sprintf("%s: the congestion window kept %s in flight without loss, under the path's BDP (%s)", d, units.FormatBytes(float64(t.Inflight)), units.FormatBytes(float64(bdp)))
	case t.lost() == 0 && t.Inflight >= bdp:
		return fmt.Sprintf("%s: the flow kept the path's BDP in flight without loss and fell short: not its window (a flow that shares the path, or noise)", d)
	}
	return fmt.Sprintf("%s: the congestion window holds the flow short of the path", d)
}

// coreShort is the first direction this host controls in which c fell
// short of the path while a core of this host ran flat out in most of
// its trials, with that core and the count (ok false: none).
func (r *runner) coreShort(c *Candidate) (d Direction, core *cores.Load, hot, n int, ok bool) {
	for _, d := range r.res.Controllable {
		hot, n = 0, 0
		for _, t := range c.Trials {
			if t.Direction == d {
				if n++; t.Core != nil {
					hot, core = hot+1, t.Core
				}
			}
		}
		if n > 0 && 2*hot > n && r.res.Goodput > 0 && !r.good(c, d) {
			return d, core, hot, n, true
		}
	}
	return "", nil, 0, 0, false
}

// reportLevers screens, with the choice's settings, the application
// settings that may do what no setting of this host does: 4 parallel
// streams where the congestion window held the choice short of the
// path, and where a core ran flat out also zero-copy sends (-Z), in
// trials of half the time (what they cut is CPU per byte, which a
// short trial shows). Reported, never applied (the application sets
// them); a larger MTU, the other lever for a core, is a dimension of
// the search.
func (r *runner) reportLevers(ctx context.Context, choice, measured *Candidate) error {
	res := r.res
	if measured == nil {
		measured = choice
	}
	type lever struct {
		id, name, lever string
		spec            TrialSpec
	}
	var levers []lever
	var why string
	parallel := lever{"parallel-4", "with -P 4", "4 parallel streams (-P 4)", TrialSpec{Parallel: 4, Congestion: choice.Congestion}}
	if d, t, ok := r.windowShort(measured); ok {
		why, levers = windowWhy(d, t, res.BDP), append(levers, parallel)
	}
	if d, core, hot, n, ok := r.coreShort(measured); ok {
		why = fmt.Sprintf("%s: a core ran flat out in %d of %d trials (%s) short of the path", d, hot, n, core)
		half := r.policy().LeverTime
		if len(levers) == 0 {
			parallel.spec.Time = half
			levers = append(levers, parallel)
		}
		levers = append(levers, lever{"zerocopy", "with -Z", "zero-copy sends (-Z)", TrialSpec{ZeroCopy: true, Congestion: choice.Congestion, Time: half}})
	}
	if len(levers) == 0 {
		return nil
	}
	r.pr.Stage("%s: screening application settings (reported, not applied)", why)
	pol, n := r.policy(), len(r.screenDirs())
	for _, l := range levers {
		// Reported, not chased: it runs only where its trials fit what
		// the budget has left.
		if cost := time.Duration(n) * pol.CostOf(cmp.Or(l.spec.Time, pol.Time), res.RTT); r.spent()+cost > pol.Budget {
			res.Steps = append(res.Steps, fmt.Sprintf("%s: %s not screened: the budget (--budget %s) has %s left, its trials cost %s", why, l.lever, secs(pol.Budget), secs(max(0, pol.Budget-r.spent())), secs(cost)))
			continue
		}
		res.Steps = append(res.Steps, fmt.Sprintf("%s: screening %s (an application setting: reported, not applied)", why, l.lever))
		c := &Candidate{ID: l.id, Origin: OriginLever, Name: shortName(choice) + " " + l.name, Source: "an application setting", Settings: choice.Settings, Congestion: choice.Congestion, App: true}
		c.resolve(r.current)
		res.Candidates = append(res.Candidates, c)
		if err := r.screen(ctx, c, l.spec); err != nil {
			return err
		}
		g, d, helped := r.helps(c, measured, r.res.Controllable)
		res.Levers = append(res.Levers, Lever{Name: l.lever, Direction: d, Median: cmp.Or(c.Summary[d].Median, c.Score), Gain: g, Helped: helped})
		c.Status = fmt.Sprintf("%.2f× the choice (an application setting: not applied)", g)
	}
	return nil
}

// peerCC is what the trial with the other class of congestion control
// on the peer's sending sockets read (peerLever).
type peerCC struct {
	cc                 string
	rate, gain, before float64 // its rate, its ratio to the reference's median, that median
	short              float64 // its share of the goodput where short of it (0: full)
	helped             bool
}

// finding says what the trial decided, with the command where the
// peer's control holds the direction.
func (p peerCC) finding(d Direction, host string) string {
	s := fmt.Sprintf("a trial with -C %s on its sending sockets read %s, %.2f× what %s's trials read (%s)", p.cc, rate(p.rate), p.gain, d, rate(p.before))
	if !p.helped {
		if plan.Paces(p.cc) { // what it rules out: the other class's way of falling short
			return s + ": not a loss-based control's cut at each loss but its send buffer, or the path"
		}
		return s + ": not a pacing control's overfilled queue but its send buffer, or the path"
	}
	s += fmt.Sprintf(": its congestion control holds %s: on %s: sysctl -w net.ipv4.tcp_congestion_control=%s, or -C %s in the application that sends", d, host, p.cc, p.cc)
	if p.short > 0 {
		s += fmt.Sprintf("; with it %s is still %.0f%% of the path: what holds it then, its send buffer or the path, only its view tells", d, 100*p.short)
	}
	return s
}

// peerLever screens, in each direction the peer sends short of the path
// that no buffer is known to hold (a stock peer's, whose sender's view
// is out of reach, or one its congestion window held), the other class of congestion
// control on the peer's sending sockets: iperf3's -C on a reverse test
// sets it there, per socket. A pacing control lifting the direction says
// the peer's loss-based one held it, cutting its window at each loss; a
// loss-based one lifting it, that the peer's pacing one overfilled a
// queue; no lift, that its send buffer or the path holds it. It decides
// where its one trial beats every trial of ref's there. Reported, never
// applied: tune changes no other host. A peer that refuses the control
// (it has no such module) leaves it untested.
func (r *runner) peerLever(ctx context.Context, ref *Candidate) (map[Direction]peerCC, error) {
	res, pol, out := r.res, r.policy(), map[Direction]peerCC{}
	alt := "bbr"
	if plan.Paces(r.o.Congestion) { // what the peer's sockets ran: -C, else its own default
		alt = "cubic"
	}
	for _, d := range r.o.Directions {
		t, ok := medianTrial(ref, d)
		if !ok || r.good(ref, d) || slices.Contains(plan.Acts(plan.CC, r.env.BothEnds()), d) { // this host's control sends d
			continue
		}
		if _, ok := r.leverOf(d, t); ok && attrib.Limit(t.Limit) != attrib.Unknown { // a buffer holds d, this host's or the peer's by its view
			continue
		}
		what := fmt.Sprintf("-C %s on the peer's sending sockets", alt)
		if cost := pol.CostOf(pol.Time, res.RTT); r.spent()+cost > pol.Budget {
			res.Steps = append(res.Steps, fmt.Sprintf("%s short of the path: %s not screened: the budget (--budget %s) has %s left, its trial costs %s", d, what, secs(pol.Budget), secs(max(0, pol.Budget-r.spent())), secs(cost)))
			continue
		}
		res.Steps = append(res.Steps, fmt.Sprintf("%s short of the path, held on the peer's side: screening %s (reported, not applied)", d, what))
		c := &Candidate{ID: "peer-" + alt, Origin: OriginLever, Name: "the peer sending with -C " + alt, Source: "a setting of the peer", Settings: ref.Settings, Congestion: ref.Congestion, App: true}
		c.resolve(r.current)
		if err := r.trials(ctx, c, 1, []Direction{d}, TrialSpec{PeerCongestion: alt}); err != nil {
			if ctx.Err() != nil {
				return out, err
			}
			res.Steps = append(res.Steps, fmt.Sprintf("%s: the peer refused it (%v): its congestion control untested", what, err))
			continue
		}
		res.Candidates = append(res.Candidates, c)
		p := peerCC{cc: alt, rate: c.Summary[d].Median, before: ref.Summary[d].Median}
		p.gain = p.rate / p.before
		p.helped = p.rate >= ref.Summary[d].Max*(1+pol.LeverGain) // its one trial beats every trial of ref's (a full set's)
		if !attrib.Full(p.rate, res.Goodput) && res.Goodput > 0 {
			p.short = p.rate / res.Goodput
		}
		res.Levers = append(res.Levers, Lever{Name: what, Direction: d, Median: p.rate, Gain: p.gain, Helped: p.helped})
		c.Status = fmt.Sprintf("%.2f× in %s (a setting of the peer: not applied)", p.gain, d)
		out[d] = p
	}
	return out, nil
}

// helps is a lever's gain over ref: its best ratio of medians over the
// directions dirs (judged ones, measured in both), the direction of it,
// and whether it helped there: a gain of pol.LeverGain in one, and no
// loss beyond pol.Worse in another.
func (r *runner) helps(c, ref *Candidate, dirs []Direction) (float64, Direction, bool) {
	up, down, at := 0.0, math.Inf(1), Direction("")
	for _, d := range dirs {
		if x, y := c.Summary[d], ref.Summary[d]; slices.Contains(r.res.Controllable, d) && x.N > 0 && y.N > 0 && y.Median > 0 {
			if x.Median/y.Median > up {
				up, at = x.Median/y.Median, d
			}
			down = min(down, x.Median/y.Median)
		}
	}
	if up == 0 {
		return 1, "", false
	}
	pol := r.policy()
	return up, at, up >= 1+pol.LeverGain && down >= 1-pol.Worse
}

func shortName(c *Candidate) string {
	if c.Baseline {
		return "current settings"
	}
	return c.Name
}
