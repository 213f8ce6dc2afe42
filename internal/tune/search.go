package tune

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/cores"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

// ladder is the multiples of the BDP the search steps through.
var ladder = []float64{1, 1.5, 2, 3, 4, 6, 8}

// headroom is the margin on the model's jump: the RTT grows under load
// (a queue, a busy receiver), and with it the buffer a rate needs.
const headroom = 1.15

// screenCut: a screening trial this far below the best so far in its
// direction is clearly worse, and the candidate's other direction is
// not run.
const screenCut = 0.10

func bdp(rate float64, rtt time.Duration) int64 { return window.BDP(rate, rtt) }

// point is a pair of buffer maxima, the search's coordinates.
type point struct{ R, W int64 }

// knob names which buffer limits a direction and whose it is.
type knob struct {
	key  string // tcp_rmem or tcp_wmem
	peer bool   // the peer's, which this host cannot change
}

// lever says which knob limits direction d when the verdict is limit:
// the receiver's window is the receiver's rmem, the send buffer the
// sender's wmem. Forward, this host sends; reverse, the peer does. In
// the lab both ends are set alike, so nothing is the peer's.
func (r *runner) lever(d Direction, limit string) (knob, bool) {
	return r.leverOf(d, Trial{Limit: limit})
}

// leverOf is lever for a trial: also a congestion window without loss
// behind a send buffer at its cap names that buffer (only a trial tells
// whether raising it helps; the climb's rule stops it if not).
func (r *runner) leverOf(d Direction, t Trial) (knob, bool) {
	limit := t.Limit
	if attrib.Limit(limit) == attrib.Network && t.Capped == string(attrib.SendBuffer) && t.Retransmits == 0 {
		limit = string(attrib.SendBuffer)
	}
	var k knob
	switch attrib.Limit(limit) {
	case attrib.ReceiverWindow:
		k = knob{key: keyRmem, peer: d == Forward}
	case attrib.SendBuffer:
		k = knob{key: keyWmem, peer: d == Reverse}
	case attrib.Unknown, "":
		// No sender's view (a stock iperf3 sends): try this host's
		// side of the direction; the trials decide.
		if d == Forward {
			k = knob{key: keyWmem}
		} else {
			k = knob{key: keyRmem}
		}
	default:
		return knob{}, false
	}
	if r.env.BothEnds() {
		k.peer = false
	}
	return k, true
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

// modelNeed is the buffer (bytes) the window model says one flow needs
// to carry the goodput at the idle RTT, with headroom, at the trials' MSS.
func (r *runner) modelNeed(key string) float64 {
	m := r.model.ForMSS(int64(r.mss))
	bdp := window.BDP(r.res.Goodput, r.res.RTT)
	if key == keyRmem {
		return headroom * float64(m.RecvBuffer(bdp))
	}
	return headroom * float64(m.SendBuffer(bdp))
}

// unseenPeer says what is known of a direction the peer sends without
// a sender's view (a stock iperf3): this host's buffer does not hold
// it (the receiver's verdict ruled its window out, or the buffer
// already allows the path's goodput), so the limit is on the peer's
// side, but which one the evidence does not decide.
func (r *runner) unseenPeer(d Direction, k knob, cur int64, t Trial) {
	v := roundUp(2 * float64(r.res.BDP))
	why := fmt.Sprintf("this host's %s max %s already allows the path's goodput", strings.TrimPrefix(k.key, "net.ipv4."), r.multiple(cur))
	if slices.Contains(t.RuledOut, string(attrib.ReceiverWindow)) {
		why = "this host's receive window is ruled out (" + t.Verdict + ")"
	}
	line := fmt.Sprintf("%s is counted only at this receiver (the peer sends no sender's view, as a stock iperf3 does not); %s, so the limit is on the peer's side: its send buffer or its congestion control, which tune cannot see; if its tcp_wmem max is below 2 × BDP: on %s: sysctl -w net.ipv4.tcp_wmem='4096 16384 %d'",
		d, why, r.env.Peer(), v)
	if !slices.Contains(r.res.PeerAdvice, line) {
		r.res.PeerAdvice = append(r.res.PeerAdvice, line)
	}
}

// peerAdvice records the command the peer needs: its buffer at 2 × BDP
// (the model's share of it becomes window, with margin).
func (r *runner) peerAdvice(d Direction, k knob, t Trial) {
	v := roundUp(2 * float64(r.res.BDP))
	def := "4096 131072"
	if k.key == keyWmem {
		def = "4096 16384"
	}
	line := fmt.Sprintf("%s is limited by the peer's %s (%s): on %s: sysctl -w %s='%s %d' (2 × BDP; tune cannot change another host)",
		d, strings.TrimPrefix(k.key, "net.ipv4."), t.Verdict, r.env.Peer(), k.key, def, v)
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

// roundUp rounds a buffer size up to 64 KiB.
func roundUp(b float64) int64 { return int64(math.Ceil(b/65536)) * 65536 }

func (r *runner) multiple(v int64) string {
	return strconv.FormatFloat(math.Round(float64(v)/float64(max(r.res.BDP, 1))*100)/100, 'f', -1, 64) + " × BDP"
}

// candidate builds the search's candidate at p: the keys that differ
// from the current settings, with the current min and default kept.
func (r *runner) candidate(p point, why map[string]string) *Candidate {
	r.seq++
	c := &Candidate{ID: fmt.Sprintf("search-%d", r.seq), Origin: OriginSearch}
	var names, sizes []string
	for _, k := range []struct {
		key string
		v   int64
	}{{keyRmem, p.R}, {keyWmem, p.W}} {
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
	c.Settings = append(c.Settings, r.extra...)
	c.Name = strings.Join(names, ", ")
	c.Source = "the search: " + strings.Join(sizes, ", ")
	c.resolve(r.current)
	return c
}

// at is the point a candidate sits at.
// candidateWith is the search's candidate at p that keeps choice's
// congestion control (its setting and its per-socket -C), added to the
// result's candidates.
func (r *runner) candidateWith(p point, why map[string]string, choice *Candidate) *Candidate {
	c := r.candidate(p, why)
	for _, st := range choice.Settings {
		if st.Key == keyCC {
			c.Settings = append(c.Settings, st)
		}
	}
	if choice.Congestion != "" {
		c.Congestion, c.Name = choice.Congestion, c.Name+" with "+choice.Congestion
	}
	c.resolve(r.current)
	r.res.Candidates = append(r.res.Candidates, c)
	return c
}

func at(c *Candidate) point { return point{c.RmemMax, c.WmemMax} }

// screen runs one trial per direction, the judged ones first, and
// stops early when the first is clearly worse than the best so far in
// that direction. In the lab both ends carry the same settings over the
// same link, so one direction screens for both (the baseline and the
// verification run every direction).
func (r *runner) screen(ctx context.Context, c *Candidate, cut bool, extra TrialSpec) error {
	dirs := append(slices.Clone(r.res.Controllable), r.uncontrolled()...)
	if r.env.BothEnds() {
		dirs = dirs[:1]
	}
	for i, d := range dirs {
		if err := r.trials(ctx, c, 1, []Direction{d}, extra); err != nil {
			return err
		}
		if b := r.best[d]; i == 0 && cut && b > 0 && c.Summary[d].Median < (1-screenCut)*b {
			c.Status = fmt.Sprintf("stopped early: %s %.0f%% of the best", d, 100*c.Summary[d].Median/b)
			return nil
		}
	}
	return nil
}

func (r *runner) uncontrolled() []Direction {
	var out []Direction
	for _, d := range r.o.Directions {
		if !r.res.controls(d) {
			out = append(out, d)
		}
	}
	return out
}

// note records c's medians in the per-direction bests: each direction
// is judged by its own figures, so one direction's plateau is never
// read off another's (a stock iperf3 peer's reverse, counted only at
// this receiver, must not decide forward's step, nor the other way).
func (r *runner) note(c *Candidate) {
	if r.best == nil {
		r.best = map[Direction]float64{}
	}
	if c.Status != "" && c.Origin == OriginSearch {
		return
	}
	for d, s := range c.Summary {
		if s.N > 0 && s.Median > r.best[d] {
			r.best[d] = s.Median
		}
	}
}

// share is c's worst median over the judged directions it was measured
// in (those of dirs, when given), as a share of the best seen in each
// (0 when it has none).
func (r *runner) share(c *Candidate, dirs ...Direction) float64 {
	if len(dirs) == 0 {
		dirs = r.res.Controllable
	}
	f, any := 1.0, false
	for _, d := range dirs {
		if !r.res.controls(d) {
			continue
		}
		if s := c.Summary[d]; s.N > 0 && r.best[d] > 0 {
			f, any = min(f, s.Median/r.best[d]), true
		}
	}
	if !any {
		return 0
	}
	return f
}

// gain is what moved from last to c in direction d (ok false when
// either was not measured there).
func gain(last, c *Candidate, d Direction) (float64, bool) {
	x, y := c.Summary[d], last.Summary[d]
	if x.N == 0 || y.N == 0 || y.Median <= 0 {
		return 0, false
	}
	return x.Median/y.Median - 1, true
}

// search climbs the ladder where the diagnosis points, then bisects
// down to the smallest point on the plateau, and returns the choice
// (the baseline when nothing beat it).
//
// Each step jumps to the smallest ladder value that the window model
// says reaches the goodput: a buffer-limited flow moves in proportion
// to its buffer, so the buffer needed is the current one × goodput ÷
// rate, with headroom. Each direction is judged by its own figures:
// when a step gains less than half of what the model predicted in the
// direction that asked for it, that buffer has stopped paying there
// (loss, the congestion window or the other buffer holds the flow now),
// and that direction climbs no further with it; where the next
// diagnosis names another knob (the receiver's window once the send
// buffer was raised), the direction climbs with that one.
func (r *runner) search(ctx context.Context, base *Candidate) (*Candidate, error) {
	res := r.res
	r.pr.Stage("searching from the BDP model (%s × %s = %s): each step raises the buffer the diagnosis names", rate(res.Rate), units.FormatDuration(res.RTT), size(res.BDP))
	r.tol = r.tolerance(base)
	if r.tol > plateau {
		res.Steps = append(res.Steps, fmt.Sprintf("the baseline's trials spread by %.0f%%: a setting counts as on the plateau within that of the best", 100*r.tol))
	}
	r.note(base)
	last := base
	path := []*Candidate{base}
	lossy := false
	stopped := map[Direction]map[string]bool{}
	for _, d := range res.Controllable {
		stopped[d] = map[string]bool{}
	}
	r.paid = map[string]bool{}
	for step := 0; step < len(ladder); step++ {
		next, why, predicted := r.nextStep(last, stopped, &lossy)
		if next == at(last) && lossy {
			next, why, predicted = r.lossyNext(path)
		}
		if next == at(last) {
			break
		}
		c := r.candidate(next, why)
		res.Candidates = append(res.Candidates, c)
		res.Steps = append(res.Steps, "step: "+c.Name+" — "+strings.Join(values(why), "; "))
		if err := r.screen(ctx, c, true, TrialSpec{}); err != nil {
			return nil, err
		}
		path = append(path, c)
		r.note(c)
		if c.Status != "" { // stopped early: worse, the climb ends
			break
		}
		for _, p := range predicted {
			g, ok := gain(last, c, p.dir)
			if !ok && r.env.BothEnds() {
				// In the lab one direction screens for both (both ends
				// set alike): a step reverse asked for is judged by it.
				g, ok = gain(last, c, r.res.Controllable[0])
			}
			switch {
			case !ok:
				continue
			case p.gain > 0.05 && g < p.gain/2:
				stopped[p.dir][p.key] = true
				res.Steps = append(res.Steps, fmt.Sprintf("%s: the buffer stopped paying: raising %s, the model predicted %+.0f%%, the step gained %+.0f%%; what holds %s now is not that buffer",
					p.dir, strings.TrimPrefix(p.key, "net.ipv4."), 100*p.gain, 100*g, p.dir))
				lossy = lossy || r.retransmits(c)
			}
			if g > max(r.tol, minGain) {
				r.paid[p.key] = true
			}
		}
		last = c
	}

	choice := r.smallestGood(path, base, lossy)
	var err error
	if choice, err = r.bisect(ctx, path, choice, lossy); err != nil {
		return nil, err
	}
	if choice, err = r.trim(ctx, base, choice); err != nil {
		return nil, err
	}
	if why := r.windowHeld(choice, lossy); why != "" {
		if choice, err = r.levers(ctx, choice, why); err != nil {
			return nil, err
		}
		if choice, err = r.retrim(ctx, choice); err != nil {
			return nil, err
		}
	}
	// A saturated core and loss together (a host that cannot keep up
	// drops what it cannot take: 40,000 retransmits at 10.9 Gbit/s on
	// one core of the lab's 40 Gbit/s link): the levers for CPU per byte
	// run too, those the loss levers did not.
	if why := r.cpuHeld(choice); why != "" {
		if err := r.cpuLevers(ctx, choice, why); err != nil {
			return nil, err
		}
	}
	if choice != base && !r.improves(choice, base) {
		if base.Baseline {
			res.Steps = append(res.Steps, fmt.Sprintf("the best found (%s) is within %.0f%% of the baseline in every judged direction: keeping the current settings", choice.Name, 100*minGain))
		} else {
			res.Steps = append(res.Steps, fmt.Sprintf("the best found (%s) is within %.0f%% of where the search started (%s) in every judged direction: that stays the choice", choice.Name, 100*minGain, base.Name))
		}
		choice = base
	}
	for _, c := range res.Candidates {
		if c.Status == "" && c.Origin == OriginSearch {
			c.Status = fmt.Sprintf("%.0f%% of the best", 100*r.share(c))
		}
	}
	if choice != base {
		st := fmt.Sprintf("chosen: the least memory within %.0f%% of the best in each direction", 100*r.tol)
		if choice.Status != "" && choice.Origin == OriginLever {
			st += "; " + choice.Status
		}
		choice.Status = st
	}
	return choice, nil
}

// improves reports whether c beats base by at least minGain in some
// judged direction both were measured in.
func (r *runner) improves(c, base *Candidate) bool {
	for _, d := range r.res.Controllable {
		if x, y := c.Summary[d], base.Summary[d]; x.N > 0 && y.N > 0 && x.Median >= (1+minGain)*y.Median {
			return true
		}
	}
	return false
}

// prediction is the gain the model expects of a step in the direction
// that asked for it, and the knob it raised.
type prediction struct {
	dir  Direction
	key  string
	gain float64
}

// nextStep is the point the diagnosis of last's trials leads to, why
// each knob moved, and the gain the model predicts per direction. A
// direction asks only with a knob that has not stopped paying for it
// (stopped).
func (r *runner) nextStep(last *Candidate, stopped map[Direction]map[string]bool, lossy *bool) (point, map[string]string, []prediction) {
	res := r.res
	from := at(last)
	next, why := from, map[string]string{}
	var predicted []prediction
	for _, d := range res.Controllable {
		if stopped[d] == nil || r.good(last, d) {
			continue
		}
		t, ok := medianTrial(last, d)
		if !ok {
			continue
		}
		if attrib.Limit(t.Limit) == attrib.Network && t.Retransmits > 0 {
			*lossy = true
		}
		if t.Recovering {
			r.recovering = true
		}
		k, ok := r.leverOf(d, t)
		if !ok || stopped[d][k.key] {
			continue
		}
		if k.peer {
			r.peerAdvice(d, k, t)
			continue
		}
		cur := map[string]int64{keyRmem: from.R, keyWmem: from.W}[k.key]
		want := float64(cur)
		if res.Goodput > 0 && t.BitsPerSecond > 0 {
			want = float64(cur) * res.Goodput / t.BitsPerSecond * headroom
		}
		if attrib.Limit(t.Limit) == attrib.Unknown && k.key == keyRmem && slices.Contains(t.RuledOut, string(attrib.ReceiverWindow)) {
			// The receiver's view rules this host's window out: its
			// buffer is not the lever, whatever the model says.
			r.unseenPeer(d, k, cur, t)
			continue
		}
		if attrib.Limit(t.Limit) == attrib.Unknown && res.Goodput > 0 {
			// No sender's view: nothing says this host's buffer limits.
			// Raise it only to what the model needs for the goodput; if it
			// already allows that, the limit is on the sender's side.
			need := r.modelNeed(k.key)
			if float64(cur) >= need {
				r.unseenPeer(d, k, cur, t)
				continue
			}
			want = need
		}
		if t.Retransmits > 0 {
			// Loss, not the buffer alone, holds such a flow: the model's
			// jump would overshoot, so a lossy step takes no headroom (a
			// lossy flow builds no standing queue to lengthen the RTT)
			// and at most doubles: 3 × BDP at 84% of the goodput asks for
			// 3.6 ×, the ladder's 4, not 6 with the headroom.
			want = min(want/headroom, 2*float64(cur))
		}
		up := r.atLeast(max(want, 1.05*float64(cur)))
		if up == 0 {
			res.Steps = append(res.Steps, fmt.Sprintf("%s: the model asks for %s %s, beyond the ladder's top (%s): not raised further", d, strings.TrimPrefix(k.key, "net.ipv4."), r.multiple(int64(want)), r.multiple(roundUp(ladder[len(ladder)-1]*float64(res.BDP)))))
			continue
		}
		if k.key == keyRmem {
			next.R = max(next.R, up)
		} else {
			next.W = max(next.W, up)
		}
		if res.Goodput > 0 && t.BitsPerSecond > 0 {
			predicted = append(predicted, prediction{d, k.key, min(res.Goodput, t.BitsPerSecond*float64(up)/float64(cur))/t.BitsPerSecond - 1})
		}
		why[k.key] = fmt.Sprintf("%s was limited by %s (%s); the model needs %s to fill the path: raised to %s",
			d, limitName(t.Limit), trimVerdict(t.Verdict), r.multiple(int64(want)), r.multiple(up))
	}
	return next, why, predicted
}

// lossyNext is one more ladder step of the buffer the last step raised,
// for a lossy flow whose trial names no buffer (loss holds its window)
// while that raise gained more than the noise: the send buffer also
// keeps what was sent beyond each hole until it is filled, which the
// chronographs do not show (on the lossy 300 Mbit/s × 150 ms path the
// climb stopped at 3 × BDP, verified 243–251 Mbit/s, where 4 × verified
// 263–268). At most maxChange × BDP; the climb goes on while each such
// step pays. It returns the last point when there is none.
func (r *runner) lossyNext(path []*Candidate) (point, map[string]string, []prediction) {
	last := path[len(path)-1]
	// The step is judged as it pays (a prediction of no gain: its raise
	// counts as paid when it gains more than the noise).
	var paying []prediction
	for _, d := range r.res.Controllable {
		paying = append(paying, prediction{d, keyWmem, 0})
	}
	if need := r.lossyFloor(); last.WmemMax < need && last.Status == "" {
		if d, ok := r.lossyDir(last); ok {
			next := at(last)
			next.W = need
			return next, map[string]string{keyWmem: fmt.Sprintf("%s: loss holds the window (so a step gains less than the model of a flow its buffer alone holds predicts), but a lossy sender's buffer holds what it keeps in flight plus about a BDP sent beyond the holes until they are filled: the window model's lossy need, %s (at most %d × BDP)", d, r.multiple(need), maxChange)}, paying
		}
	}
	if len(path) < 2 {
		return at(last), nil, nil
	}
	p, q := at(path[len(path)-2]), at(last)
	var key string
	var cur int64
	switch {
	case q.W > p.W && q.R == p.R:
		key, cur = keyWmem, q.W
	case q.R > p.R && q.W == p.W:
		key, cur = keyRmem, q.R
	default:
		return q, nil, nil
	}
	for _, d := range r.res.Controllable {
		g, ok := gain(path[len(path)-2], last, d)
		t, measured := medianTrial(last, d)
		if !ok || !measured || t.Retransmits == 0 || g <= max(r.tol, minGain) || r.good(last, d) {
			continue
		}
		up := min(r.atLeast(1.05*float64(cur)), r.lossyCap())
		if up <= cur {
			return q, nil, nil
		}
		next := q
		if key == keyWmem {
			next.W = up
		} else {
			next.R = up
		}
		for i := range paying {
			paying[i].key = key
		}
		return next, map[string]string{key: fmt.Sprintf("%s gained %+.0f%% with the last raise, although loss holds its window (%d retransmits) and its trial names no buffer: the buffer also keeps what was sent beyond each hole; one more ladder step, to %s (at most %d × BDP)",
			d, 100*g, t.Retransmits, r.multiple(up), maxChange)}, paying
	}
	return q, nil, nil
}

// lossyFloor is the ladder value of the send buffer a lossy flow needs
// (0 when unknown, or no trial showed such a flow): what it keeps in flight at the goodput (BBR: twice
// the BDP, its congestion window gain; a control that cuts its window
// at each loss: the BDP) plus one BDP sent beyond the holes and held
// until they are filled (about an RTT), at the send buffer's payload
// share. On the lossy 300 Mbit/s × 150 ms path (BBR) that is 3.6 × BDP,
// the ladder's 4: the choices at 3 × BDP verified 243–251 Mbit/s, 7–14%
// under their single screening, those at 4 × 263–270, within 3%.
func (r *runner) lossyFloor() int64 {
	// Only where a trial showed the send buffer holding a flow that
	// recovered from loss: a flow whose retransmits came from
	// overfilling a queue (BBR's overshoot, a shallow router queue) gains
	// nothing from a buffer that holds more.
	if !r.recovering || r.res.Goodput <= 0 || r.res.RTT <= 0 {
		return 0
	}
	return r.lossySend(r.congestion())
}

// lossySend is lossyFloor's send buffer for a lossy flow of congestion
// control cc, whatever the trials showed (0 when the path is unknown).
func (r *runner) lossySend(cc string) int64 {
	if r.res.Goodput <= 0 || r.res.RTT <= 0 {
		return 0
	}
	m := r.model.ForMSS(int64(max(r.mss, 536)))
	bdp := window.BDP(r.res.Goodput, r.res.RTT)
	held := 1.0
	if paced(cc) {
		held = 2
	}
	return min(r.atLeast(float64(m.SendBuffer(int64((held+1)*float64(bdp))))), r.lossyCap())
}

// lossyCap is the most a lossy climb or a reopened one sets: maxChange
// × BDP, rounded down to 64 KiB (the ladder's 4 rounds up, a few KB
// above it).
func (r *runner) lossyCap() int64 {
	return int64(maxChange*float64(r.res.BDP)) / 65536 * 65536
}

// lossyDir is a judged direction of c held by loss (its median trial
// retransmitted, short of the path).
func (r *runner) lossyDir(c *Candidate) (Direction, bool) {
	for _, d := range r.res.Controllable {
		if t, ok := medianTrial(c, d); ok && t.Retransmits > 0 && !r.good(c, d) {
			return d, true
		}
	}
	return "", false
}

// atLeast is the smallest ladder value of at least v (0 = none).
func (r *runner) atLeast(v float64) int64 {
	for _, m := range ladder {
		if x := roundUp(m * float64(r.res.BDP)); float64(x) >= v {
			return x
		}
	}
	return 0
}

// tolerance is how close to the best a setting must come to count as on
// the plateau: 3%, or the baseline's own spread (its trials' range over
// their median) where that is wider, at most 10%.
func (r *runner) tolerance(base *Candidate) float64 {
	t := plateau
	for _, d := range r.res.Controllable {
		if s := base.Summary[d]; s.N > 1 && s.Median > 0 {
			t = max(t, (s.Max-s.Min)/s.Median)
		}
	}
	return min(t, 0.10)
}

// onPlateau reports whether c is within the tolerance of the best in
// every judged direction it was measured in, and its diagnosis does not
// name a knob it has lowered from ref: a setting whose own trials say
// "this buffer limits" is not the plateau.
//
// Against a peer, a knob acts in one direction only (this host's rmem
// where it receives, its wmem where it sends): c is judged in the
// directions whose knob differs from ref, so another direction's noise
// cannot keep a needless maximum.
func (r *runner) onPlateau(c, ref *Candidate) bool {
	if c.Status != "" || r.share(c, r.affected(c, ref)...) < 1-r.tol {
		return false
	}
	p, q := at(c), at(ref)
	for _, d := range r.res.Controllable {
		t, ok := medianTrial(c, d)
		if !ok {
			continue
		}
		if k, ok := r.lever(d, t.Limit); ok && !k.peer && attrib.Limit(t.Limit) != attrib.Unknown {
			if (k.key == keyRmem && p.R < q.R) || (k.key == keyWmem && p.W < q.W) {
				return false
			}
		}
	}
	return true
}

func (r *runner) retransmits(c *Candidate) bool {
	for _, t := range c.Trials {
		if t.Retransmits > 0 {
			return true
		}
	}
	return false
}

// affected are the directions in which c and ref differ: every judged
// one in the lab (both ends carry both knobs) or when they sit at the
// same point; against a peer, reverse for rmem and forward for wmem.
func (r *runner) affected(c, ref *Candidate) []Direction {
	p, q := at(c), at(ref)
	if r.env.BothEnds() || p == q || c.Congestion != ref.Congestion {
		return nil
	}
	var out []Direction
	if p.R != q.R {
		out = append(out, Reverse)
	}
	if p.W != q.W {
		out = append(out, Forward)
	}
	return out
}

// smallestGood is the cheapest screened candidate on the plateau; when
// none is (the directions peaked at different points), the one closest
// to the best in its worst direction.
func (r *runner) smallestGood(path []*Candidate, base *Candidate, lossy bool) *Candidate {
	var choice *Candidate
	// Below the lossy floor a screening's spread hides what the smaller
	// buffer loses (lossyFloor): a point there is chosen only when none
	// at or above it is on the plateau.
	floor := int64(0)
	if f := r.lossyFloor(); lossy && f > 0 && slices.ContainsFunc(path, func(c *Candidate) bool { return c.WmemMax >= f && r.onPlateau(c, c) }) {
		floor = f
	}
	for _, c := range path {
		if c.WmemMax >= floor && r.onPlateau(c, c) && (choice == nil || c.Cost < choice.Cost) {
			choice = c
		}
	}
	if choice != nil {
		return choice
	}
	choice = base
	for _, c := range path {
		if c.Status == "" && r.share(c) > r.share(choice) {
			choice = c
		}
	}
	return choice
}

// bisect tries once the midpoint between the choice and the largest
// cheaper point that fell short, when they differ by more than 15%.
func (r *runner) bisect(ctx context.Context, path []*Candidate, choice *Candidate, lossy bool) (*Candidate, error) {
	var lo *Candidate
	for _, c := range path {
		p, q := at(c), at(choice)
		if c != choice && p.R <= q.R && p.W <= q.W && !r.onPlateau(c, choice) {
			if lo == nil || c.Cost > lo.Cost {
				lo = c
			}
		}
	}
	if lo == nil {
		return choice, nil
	}
	p, q := at(lo), at(choice)
	// Never below the window model's need with headroom: there one
	// screening trial cannot tell the plateau from noise (a send buffer
	// of 1.03 × BDP screened at the link's rate once at 600 ms, then
	// verified 76–95 Mbit/s of 96).
	floor := point{min(q.R, roundUp(r.modelNeed(keyRmem))), min(q.W, roundUp(r.modelNeed(keyWmem)))}
	if lossy {
		floor.W = min(q.W, max(floor.W, r.lossyFloor()))
	}
	mid := point{max(floor.R, midpoint(p.R, q.R)), max(floor.W, midpoint(p.W, q.W))}
	if mid == q || (float64(q.R) < 1.15*float64(mid.R) && float64(q.W) < 1.15*float64(mid.W)) {
		return choice, nil
	}
	why := reasons(choice, q, mid, func(key string, hi int64) string {
		lo := map[string]int64{keyRmem: p.R, keyWmem: p.W}[key]
		return fmt.Sprintf("bisected between %s (short of the plateau) and %s (on it), no lower than the window model's need", r.multiple(lo), r.multiple(hi))
	})
	return r.tryLower(ctx, "bisect", mid, why, choice)
}

// reasons carries c's reasons over to a candidate that moves from p to
// q; a knob that moves gets say(its key, its value at p).
func reasons(c *Candidate, p, q point, say func(key string, from int64) string) map[string]string {
	why := map[string]string{}
	for _, st := range c.Settings {
		why[st.Key] = st.Reason
	}
	if q.R != p.R {
		why[keyRmem] = say(keyRmem, p.R)
	}
	if q.W != p.W {
		why[keyWmem] = say(keyWmem, p.W)
	}
	return why
}

func midpoint(a, b int64) int64 {
	if a >= b {
		return b
	}
	return roundUp(float64(a+b) / 2)
}

// trim lowers the maxima that did not earn their size to what the model
// says the path needs (2 × BDP, with headroom), if the plateau holds and
// the trial does not name that buffer: a maximum the search never raised
// (the baseline's own), and one it raised without a gain in the
// direction that asked (back to where it was, at most the need). The
// smallest settings, not only the ones that were raised.
func (r *runner) trim(ctx context.Context, base, choice *Candidate) (*Candidate, error) {
	need := roundUp(2 * headroom * float64(r.res.BDP))
	p, b := at(choice), at(base)
	q := p
	// In --peer mode this host's rmem serves only reverse and its wmem
	// only forward: lower only what a judged direction can check.
	if (p.R == b.R || !r.paid[keyRmem]) && (r.env.BothEnds() || r.res.controls(Reverse)) {
		q.R = min(p.R, need)
		if p.R > b.R {
			q.R = min(b.R, need)
		}
	}
	if (p.W == b.W || !r.paid[keyWmem]) && (r.env.BothEnds() || r.res.controls(Forward)) {
		q.W = min(p.W, need)
		if p.W > b.W {
			q.W = min(b.W, need)
		}
	}
	if q == p {
		return choice, nil
	}
	why := reasons(choice, p, q, func(key string, from int64) string {
		to := map[string]int64{keyRmem: q.R, keyWmem: q.W}[key]
		if from > map[string]int64{keyRmem: b.R, keyWmem: b.W}[key] {
			return fmt.Sprintf("lowered from %s back to %s: raising it gained nothing in the direction that asked", r.multiple(from), r.multiple(to))
		}
		return fmt.Sprintf("lowered from %s to %s, the model's need with headroom: the plateau held", r.multiple(from), r.multiple(to))
	})
	return r.tryLower(ctx, "trim", q, why, choice)
}

// tryLower screens the point q below the choice and returns it if it
// stays on the plateau, else the choice.
func (r *runner) tryLower(ctx context.Context, what string, q point, why map[string]string, choice *Candidate) (*Candidate, error) {
	c := r.candidate(q, why)
	r.res.Candidates = append(r.res.Candidates, c)
	r.res.Steps = append(r.res.Steps, what+": "+c.Name)
	if err := r.screen(ctx, c, false, TrialSpec{}); err != nil {
		return nil, err
	}
	r.note(c)
	if r.onPlateau(c, choice) {
		return c, nil
	}
	return choice, nil
}

// retrim gives a congestion control that the levers chose its own
// buffers: cubic's climb raised the maxima, where BBR paces at the
// bottleneck and needs about the model's share (and a larger buffer
// lets it overfill a shallow queue). Maxima above the model's need (2 ×
// BDP with headroom) are lowered to it, then to 1.5 × BDP, with the same
// control, each kept if every judged direction does as well, in trials
// of the levers' length.
func (r *runner) retrim(ctx context.Context, choice *Candidate) (*Candidate, error) {
	if choice.Congestion == "" {
		return choice, nil
	}
	// Trials as long as the levers' (half the time), so that each level
	// is held to the lever's trial like for like.
	saved := r.o.Time
	r.o.Time = max(saved/2, time.Second)
	defer func() { r.o.Time = saved }()
	for _, m := range []float64{2 * headroom, 1.5} {
		to := roundUp(m * float64(r.res.BDP))
		if p := at(choice); p.R <= to && p.W <= to {
			continue // already there: the next level down
		}
		lower, err := r.lowerWith(ctx, choice, to)
		if err != nil {
			return nil, err
		}
		if lower == choice {
			// Not monotonic: BBR behind a shallow queue can lose at
			// 2.3 × BDP (more in flight overfills the queue) and fill
			// the path at 1.5; the next level is tried too.
			continue
		}
		// A lever's note (a default the namespace refused: -C per
		// socket) holds for its lowered buffers too.
		lower.Origin, lower.Status = choice.Origin, choice.Status
		choice = lower
	}
	return choice, nil
}

// lowerWith screens choice's maxima lowered to at most to, with its
// congestion control, and returns it if no judged direction falls below
// the tolerance, else choice.
func (r *runner) lowerWith(ctx context.Context, choice *Candidate, to int64) (*Candidate, error) {
	p := at(choice)
	q := point{min(p.R, to), min(p.W, to)}
	if q == p {
		return choice, nil
	}
	why := reasons(choice, p, q, func(_ string, from int64) string {
		return fmt.Sprintf("lowered from %s to %s for %s, which needs no more: the plateau held", r.multiple(from), r.multiple(to), choice.Congestion)
	})
	c := r.candidateWith(q, why, choice)
	r.res.Steps = append(r.res.Steps, "trim for "+choice.Congestion+": "+c.Name)
	if err := r.screen(ctx, c, false, TrialSpec{Congestion: c.Congestion}); err != nil {
		return nil, err
	}
	for _, d := range r.res.Controllable {
		if x, y := c.Summary[d], choice.Summary[d]; x.N > 0 && y.N > 0 && x.Median < (1-r.tol)*y.Median {
			c.Status = fmt.Sprintf("%s %.0f%% of %s", d, 100*x.Median/y.Median, choice.Name)
			return choice, nil
		}
		// A rate that held in one trial while the flow lost ten times
		// more is not the plateau: BBR at 2.3 × BDP behind a shallow
		// queue read 960 Mbit/s once and 834 the next, with 6–80
		// thousand retransmits where 4 × lost tens.
		tc, ok1 := medianTrial(c, d)
		tv, ok2 := medianTrial(choice, d)
		if lc, lv := lossShare(tc), lossShare(tv); ok1 && ok2 && lc > manyLost && lc > 10*lv {
			c.Status = fmt.Sprintf("%s lost %.1f%% of its packets (%s: %.2f%%)", d, 100*lc, choice.Name, 100*lv)
			return choice, nil
		}
	}
	return c, nil
}

// manyLost is the share of a trial's packets retransmitted beyond which
// a lowered buffer's trial counts as losing (with ten times its
// choice's share).
const manyLost = 0.005

// lossShare is the share of t's packets retransmitted in its measured
// period (0 when unknown).
func lossShare(t Trial) float64 {
	if t.Retransmits <= 0 || t.MSS <= 0 || t.BitsPerSecond <= 0 || t.Seconds <= 0 {
		return 0
	}
	return float64(t.Retransmits) * float64(t.MSS) * 8 / (t.BitsPerSecond * t.Seconds)
}

// lossy reports whether a judged direction of c was held by the
// congestion window with retransmits.
func (r *runner) lossy(c *Candidate) bool {
	return r.heldBy(c, true)
}

// heldBy reports whether a judged direction of c, short of the path,
// was held by the congestion window (with retransmits when lossy).
func (r *runner) heldBy(c *Candidate, lossy bool) bool {
	for _, d := range r.res.Controllable {
		if t, ok := medianTrial(c, d); ok && attrib.Limit(t.Limit) == attrib.Network && (!lossy || t.Retransmits > 0) && !r.good(c, d) {
			return true
		}
	}
	return false
}

// lossHolds is windowHeld's reason when loss holds the window.
const lossHolds = "loss holds the congestion window"

// paced reports whether a congestion control paces at the bottleneck
// it measures rather than cutting its window at each loss (BBR).
func paced(cc string) bool { return strings.HasPrefix(cc, "bbr") }

// windowHeld says why the levers beyond buffers are worth a try: loss
// holds the congestion window, or the window holds the flow short of
// the path after the buffers stopped paying (cubic behind a shallow
// queue grows slowly where BBR paces at the bottleneck); "" when
// neither.
func (r *runner) windowHeld(c *Candidate, lossy bool) string {
	switch {
	case lossy || r.lossy(c):
		return lossHolds
	case r.heldBy(c, false):
		return "the congestion window holds the flow short of the path with the buffers raised"
	}
	return ""
}

// cpuHeld says why the levers that cut CPU per byte are worth a try: in
// a direction the flow falls short of the path while a core of this
// host ran flat out in most of its trials ("" when not).
func (r *runner) cpuHeld(c *Candidate) string {
	for _, d := range r.res.Controllable {
		n, hot := 0, 0
		var core *cores.Load
		for _, t := range c.Trials {
			if t.Direction != d {
				continue
			}
			n++
			if t.Core != nil {
				hot++
				core = t.Core
			}
		}
		if n > 0 && 2*hot > n && r.res.Goodput > 0 && !r.good(c, d) {
			return fmt.Sprintf("%s: a core ran flat out in %d of %d trials (%s) short of the path", d, hot, n, core)
		}
	}
	return ""
}

// cpuLevers tries, with the choice's buffers, the application settings
// that cut CPU per byte or spread it over cores: 4 parallel streams and
// zero-copy sends (-Z). They are reported, not applied (the application
// sets them); a larger MTU, the other lever, is tune's jumbo step.
func (r *runner) cpuLevers(ctx context.Context, choice *Candidate, why string) error {
	res := r.res
	r.pr.Stage("%s: trying parallel streams and zero-copy sends (trials of half the time)", why)
	res.Steps = append(res.Steps, why+": trying -P 4 and -Z")
	saved := r.o.Time
	r.o.Time = max(saved/2, time.Second)
	defer func() { r.o.Time = saved }()
	for _, l := range []struct {
		id, name, lever string
		spec            TrialSpec
	}{
		{"parallel-4", "with -P 4", "4 parallel streams (-P 4)", TrialSpec{Parallel: 4}},
		{"zerocopy", "with -Z", "zero-copy sends (-Z)", TrialSpec{ZeroCopy: true}},
	} {
		if slices.ContainsFunc(res.Candidates, func(c *Candidate) bool { return c.ID == l.id }) {
			continue // tried with the loss levers
		}
		c := &Candidate{ID: l.id, Origin: OriginLever, Name: shortName(choice) + " " + l.name, Source: "CPU per byte (an application setting)", Settings: choice.Settings, App: true}
		c.resolve(r.current)
		res.Candidates = append(res.Candidates, c)
		if err := r.screen(ctx, c, false, l.spec); err != nil {
			return err
		}
		g, helped := r.helps(c, choice, r.res.Controllable)
		res.Levers = append(res.Levers, Lever{Name: l.lever, Median: c.Score, Gain: g, Helped: helped})
		c.Status = fmt.Sprintf("%.2f× the buffers' choice (an application setting: not applied)", g)
	}
	return nil
}

// levers tries what helps where the congestion window holds the flow
// (loss, or slow growth), with the choice's buffers:
// each other congestion control per socket, and 4 parallel streams. A
// congestion control that gains at least 5% becomes part of the choice
// (as a setting where this namespace accepts it as its default, else
// per socket, reported as -C).
func (r *runner) levers(ctx context.Context, choice *Candidate, why string) (*Candidate, error) {
	res := r.res
	r.leversRan = true
	r.pr.Stage("%s: trying the congestion control and parallel streams (trials of half the time)", why)
	saved := r.o.Time
	r.o.Time = max(saved/2, time.Second)
	defer func() { r.o.Time = saved }()
	avail, _ := r.env.Read([]string{"net.ipv4.tcp_available_congestion_control"})
	cur := r.congestion()
	out := choice
	var lossBased []string
	for _, cc := range strings.Fields(avail["net.ipv4.tcp_available_congestion_control"]) {
		// Where loss holds the window and the current control is BBR,
		// which does not cut its window at a random loss, a control
		// that does (reno halves it, cubic cuts 30%) cannot do better:
		// not tried (two screenings, 11 s on a lossy 150 ms path).
		if strings.Contains(why, lossHolds) && paced(cur) && !paced(cc) {
			lossBased = append(lossBased, cc)
			continue
		}
		// A pacing control (BBR) that did not help with the choice's
		// buffers gets one more trial with exactly leverFloor × BDP:
		// behind a shallow queue it overfills it with more (cubic's
		// choice of 2 × BDP made BBR read 1.04×, where 1.5 × BDP fills
		// the path). Others grow their window by loss; the second trial
		// would only cost time (4 screenings, 18 s on a lossy long path).
		exactToo := paced(cc)
		if cc == cur {
			continue
		}
		var tried point // the first trial's buffers
		for _, exact := range []bool{false, true} {
			settings, name, _ := r.leverBuffers(choice, cc, exact)
			id := "cc-" + cc
			if exact {
				if !exactToo {
					break
				}
				id += "-floor"
			}
			c := &Candidate{ID: id, Origin: OriginLever, Name: fmt.Sprintf("%s with -C %s", name, cc), Source: "congestion control per socket", Settings: settings, Congestion: cc}
			c.resolve(r.current)
			if exact && at(c) == tried {
				break // the first trial had these buffers
			}
			tried = at(c)
			res.Candidates = append(res.Candidates, c)
			if err := r.screen(ctx, c, false, TrialSpec{Congestion: cc}); err != nil {
				return nil, err
			}
			record := func(name string) bool {
				gain, helped := r.helps(c, choice, r.sends())
				res.Levers = append(res.Levers, Lever{Name: "congestion control " + cc + " (" + name + ")", Median: c.Score, Gain: gain, Helped: helped})
				c.Status = fmt.Sprintf("%.2f× the buffers' choice", gain)
				return helped
			}
			helped := record(name)
			if !exact && paced(cc) {
				u, err := r.pacedSend(ctx, c, cc)
				if err != nil {
					return nil, err
				}
				if u != c {
					c = u
					helped = record(shortName(c))
				}
			}
			if g, _ := r.helps(c, out, r.sends()); helped && (out == choice || g > 1) {
				out = c
			}
			if helped {
				break
			}
		}
	}
	if len(lossBased) > 0 {
		res.Steps = append(res.Steps, fmt.Sprintf("congestion control: %s not tried: loss holds the window, and they cut it at every loss, which %s does not", strings.Join(lossBased, ", "), cur))
	}
	p := &Candidate{ID: "parallel-4", Origin: OriginLever, Name: shortName(choice) + " with -P 4", Source: "parallel streams (an application setting)", Settings: choice.Settings, App: true}
	p.resolve(r.current)
	res.Candidates = append(res.Candidates, p)
	if err := r.screen(ctx, p, false, TrialSpec{Parallel: 4}); err != nil {
		return nil, err
	}
	g, helped := r.helps(p, choice, r.res.Controllable)
	res.Levers = append(res.Levers, Lever{Name: "4 parallel streams (-P 4)", Median: p.Score, Gain: g, Helped: helped})
	p.Status = fmt.Sprintf("%.2f× the buffers' choice (an application setting: not applied)", g)
	if out.Congestion != "" {
		kv := []apply.KV{{Key: keyCC, Value: out.Congestion}}
		if ok, _, err := r.env.Split(kv); err == nil && len(ok) == 1 {
			if undo, err := r.env.Set(kv); err == nil {
				undo()
				out.Settings = append(slices.Clone(out.Settings), Setting{Key: keyCC, Value: out.Congestion, Reason: fmt.Sprintf("on this path %s gained %.2f× over %s per socket", out.Congestion, first(r.helps(out, choice, r.sends())), cur)})
				out.resolve(r.current)
			} else {
				out.Status = fmt.Sprintf("helped, but this namespace refuses %s as its default (%v): use it per socket (-C %s)", out.Congestion, err, out.Congestion)
			}
		}
	}
	return out, nil
}

// leverFloor is the least buffer, in BDPs, a congestion control lever
// is tried with: the choice's buffers were trimmed for the current
// control, and one that paces at the bottleneck (BBR) needs the BDP
// with headroom, or it reads as no help where it is the best (cubic
// behind a shallow queue trimmed to 0.84 × BDP made BBR look 0.89×).
// The re-trim lowers them again when the lever is chosen.
const leverFloor = 1.5

// leverBuffers is the settings, name and point a congestion control
// lever is tried with: the choice's, with tcp_rmem and tcp_wmem maxima
// raised to leverFloor × BDP where they are below it; exact: both at
// leverFloor × BDP.
func (r *runner) leverBuffers(choice *Candidate, cc string, exact bool) ([]Setting, string, point) {
	floor := roundUp(leverFloor * float64(r.res.BDP))
	p := at(choice)
	q := point{max(p.R, floor), max(p.W, floor)}
	if exact {
		q = point{floor, floor}
	}
	if q == p || r.res.BDP <= 0 {
		return choice.Settings, shortName(choice), p
	}
	settings, name := r.leverAt(choice, q, func(string, int64) string {
		return fmt.Sprintf("raised to %s for %s, which needs the path's BDP with headroom", r.multiple(floor), cc)
	})
	return settings, name, q
}

// pacedSend tries a pacing control (BBR) lever c once more when it lost
// packets (a shallow queue it overfills) with a send buffer below what a
// lossy paced flow needs (lossySend: twice the BDP in flight, its window
// gain, plus one BDP sent beyond the holes, at the buffer's payload
// share): the send buffer then holds the retransmissions too, and BBR
// read 754–902 Mbit/s with 6–80 thousand retransmits at 2 × BDP, 961–964
// with tens at 4 × (1 Gbit/s × 40 ms, queue 0.3 × BDP, against a stock
// iperf3; cubic's choice was 2 ×). It returns the raised lever when it did
// better than c in a direction this host's control sends (by more than
// minGain), or as well within the noise and with fewer retransmits in
// every such direction; else c.
func (r *runner) pacedSend(ctx context.Context, c *Candidate, cc string) (*Candidate, error) {
	w := r.lossySend(cc)
	if w <= c.WmemMax || !r.lost(c) {
		return c, nil
	}
	p := at(c)
	q := point{p.R, w}
	settings, name := r.leverAt(c, q, func(string, int64) string {
		return fmt.Sprintf("raised to %s for %s, which lost packets with less: a paced flow keeps twice the BDP in flight and holds what it sent beyond each hole", r.multiple(w), cc)
	})
	u := &Candidate{ID: c.ID + "-send", Origin: OriginLever, Name: fmt.Sprintf("%s with -C %s", name, cc), Source: c.Source, Settings: settings, Congestion: cc}
	u.resolve(r.current)
	r.res.Candidates = append(r.res.Candidates, u)
	if err := r.screen(ctx, u, false, TrialSpec{Congestion: cc}); err != nil {
		return nil, err
	}
	better, asGood, fewer := false, true, true
	for _, d := range r.sends() {
		x, y := u.Summary[d], c.Summary[d]
		if !r.res.controls(d) || x.N == 0 || y.N == 0 {
			continue
		}
		better = better || x.Median > (1+minGain)*y.Median
		asGood = asGood && x.Median >= (1-r.tol)*y.Median
		if tu, ok := medianTrial(u, d); ok {
			if tc, ok := medianTrial(c, d); ok && tu.Retransmits >= tc.Retransmits {
				fewer = false
			}
		}
	}
	if asGood && (better || fewer) {
		c.Status = "lost packets: tried again with more send buffer (" + u.ID + ")"
		return u, nil
	}
	u.Status = fmt.Sprintf("no better than %s", c.Name)
	return c, nil
}

// lost reports whether a direction c's control sends in, as this host
// judges it, retransmitted in c's median trial.
func (r *runner) lost(c *Candidate) bool {
	for _, d := range r.sends() {
		if t, ok := medianTrial(c, d); ok && r.res.controls(d) && t.Retransmits > 0 {
			return true
		}
	}
	return false
}

// leverAt is choice's settings with its buffer maxima moved to q (why
// says why, per key), and their name.
func (r *runner) leverAt(choice *Candidate, q point, why func(string, int64) string) ([]Setting, string) {
	p := at(choice)
	seq := r.seq
	lc := r.candidate(q, reasons(choice, p, q, why))
	r.seq = seq // only its settings are wanted
	var out []Setting
	for _, st := range choice.Settings {
		// The buffers move to q; what the search adds to every candidate
		// (the host queues) lc carries already: no key twice.
		if st.Key != keyRmem && st.Key != keyWmem && !slices.ContainsFunc(lc.Settings, func(x Setting) bool { return x.Key == st.Key }) {
			out = append(out, st)
		}
	}
	return append(out, lc.Settings...), lc.Name
}

// helps is a lever's gain over ref: its best ratio of medians over the
// directions dirs (judged ones, measured in both), and whether it helped
// there: a gain of 5% in one, and no loss beyond 5% in another.
func (r *runner) helps(c, ref *Candidate, dirs []Direction) (float64, bool) {
	up, down := 0.0, math.Inf(1)
	for _, d := range dirs {
		if x, y := c.Summary[d], ref.Summary[d]; r.res.controls(d) && x.N > 0 && y.N > 0 && y.Median > 0 {
			up, down = max(up, x.Median/y.Median), min(down, x.Median/y.Median)
		}
	}
	if up == 0 {
		return 1, false
	}
	return up, up >= 1.05 && down >= 1-worse
}

// sends are the directions in which this host's congestion control
// sends: every direction in the lab (both ends set alike), forward
// against a peer, whose own sends in reverse.
func (r *runner) sends() []Direction {
	if r.env.BothEnds() {
		return r.res.Controllable
	}
	return []Direction{Forward}
}

func first(x float64, _ bool) float64 { return x }

func shortName(c *Candidate) string {
	if c.Baseline {
		return "current settings"
	}
	return c.Name
}

func limitName(l string) string {
	switch attrib.Limit(l) {
	case attrib.ReceiverWindow:
		return "the receiver's window"
	case attrib.SendBuffer:
		return "the send buffer"
	case attrib.Network:
		return "the congestion window"
	case attrib.Unknown, "":
		return "an unattributed limit"
	}
	return l
}

func trimVerdict(v string) string {
	if i := strings.Index(v, ": raise"); i > 0 {
		return v[:i]
	}
	return v
}

func values(m map[string]string) []string {
	var out []string
	for _, k := range []string{keyRmem, keyWmem} {
		if v := m[k]; v != "" {
			out = append(out, strings.TrimPrefix(k, "net.ipv4.")+": "+v)
		}
	}
	return out
}
