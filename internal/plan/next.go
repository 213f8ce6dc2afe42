package plan

import (
	"math"
	"slices"
	"time"

	"github.com/tcptune/tcptune/internal/stats"
)

// rating is a point's standing per direction: the share of its target it
// reaches (observed, else predicted with the noise as headroom), and how.
type rating struct {
	value    map[Direction]float64
	observed map[Direction]Kind // 0 = predicted
	n        map[Direction]int  // the trials behind an observed value
	all      bool               // measured in every direction
	whole    bool               // a full set at the point's key, every direction
}

// measured is the rate at p in d: the mean of the full sets' trials at
// p's key in d, else the median of its screenings (in the lab, where one
// direction screens for both, the other's alike), and how many. kind 0: none.
func (s State) measured(p Point, d Direction) (float64, Kind, int) {
	switch xs, k := s.trials(p, d); k {
	case Full:
		return s.Model.mix(p, d, xs), Full, len(xs)
	case Screen:
		return stats.Median(xs), Screen, 1
	}
	return 0, 0, 0
}

// trials is the rates measured sees: of the full set at p's key in d,
// else of its screenings, else the lab's mirror's alike, and their kind.
func (s State) trials(p Point, d Direction) ([]float64, Kind) {
	for _, dir := range []Direction{d, s.Model.mirror(d)} { // the lab's ends are alike
		for _, kind := range []Kind{Full, Screen} {
			var xs []float64
			for _, o := range s.Obs {
				if o.Dir == dir && o.Kind == kind && o.Point.key(dir, s.Model.BothEnds) == p.key(dir, s.Model.BothEnds) {
					xs = append(xs, o.Rate)
				}
			}
			if len(xs) > 0 {
				return xs, kind
			}
		}
	}
	return nil, 0
}

func (s State) rate(p Point, pol Policy) rating {
	r := rating{value: map[Direction]float64{}, observed: map[Direction]Kind{}, n: map[Direction]int{}, all: true, whole: true}
	for _, d := range s.Model.Dirs {
		t := s.Model.Target(d)
		x, k, n := s.measured(p, d)
		r.observed[d], r.n[d] = k, n
		switch {
		case t <= 0:
		case k == 0:
			w, c := s.Model.predict(p, d)
			r.value[d] = min(1, w/(t*(1+s.Model.TolN(d, 1, 0, pol))), c/t)
		default:
			r.value[d] = min(1, x/t)
		}
		r.all, r.whole = r.all && k != 0, r.whole && s.FullAt(p, d)
	}
	return r
}

// atAim reports whether p's rating is at the aim in every direction (a
// measured value within the noise, a predicted one at it) and its MTU's
// goodput, known without noise, reaches it. The aim is each direction's
// best rating × best, the share one point reaches at once (under 1 in the
// lab, where one setting serves both directions).
func (s State) atAim(p Point, r rating, aim map[Direction]float64, best float64, pol Policy) bool {
	for _, d := range s.Model.Dirs {
		a := aim[d] * best
		if s.Model.goodput(p.MTU)*(1+pol.Slack) < a*s.Model.Target(d) {
			return false
		}
		v := r.value[d]
		switch r.observed[d] {
		case Full: // the noise lifts its fast mode, not its slow one
			v = s.lifted(p, d, s.Model.TolN(d, r.n[d], 0, pol), pol) / s.Model.Target(d)
		case Screen:
			a -= s.Model.TolN(d, r.n[d], 0, pol)
		default:
			a *= 1 - 1e-9
		}
		if v < a || aim[d] <= 0 || r.observed[d] == Full && s.outranked(p, d, pol) {
			return false
		}
	}
	return true
}

// lifted is the most p's full set in d may carry, its mean within tol of the truth: its
// fast mode lifted by the noise up to its MTU's goodput, less its slow mode's cost (modes).
func (s State) lifted(p Point, d Direction, tol float64, pol Policy) float64 {
	xs, _ := s.trials(p, d)
	fast, cost := s.Model.modes(p, d, xs)
	return min(fast*(1+tol), s.Model.goodput(p.MTU)*(1+pol.Slack)) - cost
}

// FullAt reports whether p's key in d has a full set: points with the same
// knobs acting on d sample one thing (against a peer, reverse at the
// host's tcp_rmem is the baseline's whatever it sends).
func (s State) FullAt(p Point, d Direction) bool { return fullAt(s.Obs, p, d, s.Model.BothEnds) }

// Next is what to measure next: the cheapest point the model rates at the
// aim in every direction this host controls, screened where only predicted,
// given its full set where measured at it (a screening short of it whose
// limit only a full set judges gets its full set first); done when it has
// its full set, or when the budget would not leave the final one's time.
func Next(s State, pol Policy) Action {
	pts := s.Grid.Points()
	ratings := make([]rating, len(pts))
	aim := map[Direction]float64{}
	for i, p := range pts {
		ratings[i] = s.rate(p, pol)
		for d, v := range ratings[i].value {
			aim[d] = max(aim[d], v)
		}
	}
	best := 0.0 // the share of each direction's aim one rating reaches in all
	for _, r := range ratings {
		best = max(best, r.joint(aim, s.Model.Dirs))
	}
	act, pick, surprise := Action{Aim: aim}, -1, false
	for i, p := range pts { // a screening's surprise gets its full set first
		if at := s.atAim(p, ratings[i], aim, best, pol); !at && s.confirming(p, pol) != nil {
			pick, surprise = i, true
			break
		} else if at && pick < 0 {
			pick = i
		}
	}
	if pick < 0 {
		return Action{Aim: aim, Done: true, Why: StopNothing}
	}
	p, r := pts[pick], ratings[pick]
	act.Point, act.Predicted = p, s.predicted(p)
	full, conf := pol.SetsCost(len(s.Model.Dirs), s.Model.IdleRTT), s.confirming(p, pol)
	switch {
	case r.whole:
		act.Done, act.Why = true, StopChosen
	case surprise:
		act.Kind, act.Confirm, act.Dirs = Full, true, conf
		if s.Spent+pol.SetsCost(len(act.Dirs), s.Model.IdleRTT)+full > pol.Budget {
			return s.outOfTime(pol, pts, ratings, aim, best, full)
		}
	case r.all || conf != nil:
		act.Kind, act.Dirs = Full, s.lacking(p)
		if s.Spent+pol.SetsCost(len(act.Dirs), s.Model.IdleRTT) > pol.Budget {
			act = Action{Done: true, Why: StopBudget, Aim: aim}
		}
	default:
		act.Kind, act.Dirs = Screen, slices.DeleteFunc(slices.Clone(s.Model.Dirs), func(d Direction) bool { return r.observed[d] != 0 })
		if s.Model.BothEnds {
			act.Dirs = act.Dirs[:1] // the lab's ends are alike: one direction screens for both
		}
		screen := time.Duration(len(act.Dirs)) * pol.TrialCost(s.Model.IdleRTT)
		if s.Spent+screen+full > pol.Budget {
			return s.outOfTime(pol, pts, ratings, aim, best, full)
		}
	}
	return act
}

// confirming is the directions in which p, with no full set, was screened
// short of the prediction with a limit only a full set teaches (nil: none).
func (s State) confirming(p Point, pol Policy) []Direction {
	var out []Direction
	for _, o := range s.Obs {
		if o.Point == p && o.Kind == Screen && s.Model.fullSetLearns(o) && !s.Model.ambiguous(o, s.Obs, pol) && !s.FullAt(p, o.Dir) && !slices.Contains(out, o.Dir) &&
			s.Model.Predict(p, o.Dir) > o.Rate*(1+s.Model.TolN(o.Dir, 1, 0, pol)) {
			out = append(out, o.Dir)
		}
	}
	return out
}

// outOfTime is Next's action when another screening would not leave the
// final full set's time: that full set, if it fits, for the cheapest point
// measured at the aim, else the one nearest it, if nearer than any with a
// full set (a short screening may still beat what has one).
func (s State) outOfTime(pol Policy, pts []Point, ratings []rating, aim map[Direction]float64, best float64, full time.Duration) Action {
	act, pick, at, top := Action{Done: true, Why: StopBudget, Aim: aim}, -1, false, 0.0
	for _, r := range ratings {
		if r.whole {
			top = max(top, r.joint(aim, s.Model.Dirs))
		}
	}
	for i, p := range pts {
		r, ok := ratings[i], s.atAim(p, ratings[i], aim, best, pol)
		switch j := r.joint(aim, s.Model.Dirs); {
		case !r.all:
			if ok {
				act.Untried++
			}
		case r.whole || at || s.Spent+full > pol.Budget:
		case ok || j > top:
			pick, at, top = i, ok, j
		}
	}
	if pick >= 0 {
		act = Action{Point: pts[pick], Kind: Full, Dirs: s.lacking(pts[pick]), Aim: aim, Untried: act.Untried, Predicted: s.predicted(pts[pick])}
	}
	return act
}

// predicted is the model's rate at p in every direction it judges.
func (s State) predicted(p Point) map[Direction]float64 {
	out := map[Direction]float64{}
	for _, d := range s.Model.Dirs {
		out[d] = s.Model.Predict(p, d)
	}
	return out
}

// joint is the share of each direction's aim r reaches in all of dirs.
func (r rating) joint(aim map[Direction]float64, dirs []Direction) float64 {
	j := 1.0
	for _, d := range dirs {
		if aim[d] > 0 {
			j = min(j, r.value[d]/aim[d])
		}
	}
	return j
}

// lacking is the controlled directions where p's key has no full set.
func (s State) lacking(p Point) []Direction {
	return slices.DeleteFunc(slices.Clone(s.Model.Dirs), func(d Direction) bool { return s.FullAt(p, d) })
}

// Choose is the point to keep: of the points with a full set at their key
// in every direction (the baseline's included), the cheapest within the
// noise of the best mean in each direction (and not outranked), else the
// one nearest it in its worst; ok is false when no point has a full set.
func Choose(s State, pol Policy) (Point, bool) {
	whole := slices.DeleteFunc(s.Grid.Points(), func(p Point) bool { return !s.rate(p, pol).whole })
	if len(whole) == 0 {
		return Point{}, false
	}
	best, bestN := map[Direction]float64{}, map[Direction]int{}
	for _, p := range whole {
		for _, d := range s.Model.Dirs {
			if x, _, n := s.measured(p, d); x > best[d] {
				best[d], bestN[d] = x, n
			}
		}
	}
	worst := func(p Point) float64 { // what p's MTU carries at most is no noise (lifted)
		w := math.Inf(1)
		for _, d := range s.Model.Dirs {
			if _, _, n := s.measured(p, d); best[d] > 0 {
				tol := s.Model.TolN(d, n, bestN[d], pol)
				if s.outranked(p, d, pol) {
					tol = pol.MinTol
				}
				w = min(w, s.lifted(p, d, tol/(1-tol), pol)/best[d])
			}
		}
		return w
	}
	top := whole[0]
	for _, p := range whole { // cheapest first
		if worst(p) >= 1 {
			return p, true
		}
		if worst(p) > worst(top) {
			top = p
		}
	}
	return top, true
}
