package plan

import (
	"math"
	"slices"
	"time"
)

// Action is what Next says to do.
type Action struct {
	Done  bool
	Point Point
	Kind  Kind
	Dirs  []Direction // the directions to run, in order
	// Predicted is the model's rate per direction at Point (what a
	// screening is held to); Aim the share of each direction's target
	// the plan aims at now.
	Predicted map[Direction]float64
	Aim       float64
	// Why says why it stops: nothing left worth a trial, or the budget.
	Why Stop
	// Untried counts the points the model still rated at the aim when
	// the budget ran out.
	Untried int
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

// rating is a point's standing: the worst share of a direction's target
// it reaches (observed where measured, else predicted with the noise as
// headroom), and how it was measured in each direction.
type rating struct {
	value    float64
	observed map[Direction]Kind // 0 = predicted
	whole    bool               // a full set at the point itself, every direction
}

// measured is the median rate at p in d: of the full sets at p's key in
// d where there are any, else of its screenings (and in the lab, where
// one direction screens for both, of the other direction's). kind 0:
// none.
func (s State) measured(p Point, d Direction) (float64, Kind) {
	both := s.Model.BothEnds
	pick := func(dir Direction, kind Kind) []float64 {
		var xs []float64
		for _, o := range s.Obs {
			if o.Dir == dir && o.Kind == kind && o.Point.key(dir, both) == p.key(dir, both) {
				xs = append(xs, o.Rate)
			}
		}
		return xs
	}
	for _, k := range []Kind{Full, Screen} {
		if xs := pick(d, k); len(xs) > 0 {
			return median(xs), k
		}
	}
	if both {
		for _, o := range s.Model.Dirs {
			if xs := pick(o, Screen); o != d && len(xs) > 0 {
				return median(xs), Screen
			}
		}
	}
	return 0, 0
}

func (s State) rate(p Point, pol Policy) rating {
	r := rating{value: math.Inf(1), observed: map[Direction]Kind{}, whole: true}
	for _, d := range s.Model.Dirs {
		t := s.Model.Target(d)
		if t <= 0 {
			continue
		}
		x, k := s.measured(p, d)
		r.observed[d] = k
		v := x / t
		if k == 0 {
			v = s.Model.Predict(p, d) / (t * (1 + s.Model.Tol(d, pol)))
		}
		r.value = min(r.value, min(v, 1))
		r.whole = r.whole && s.fullAt(p, d)
	}
	if math.IsInf(r.value, 1) {
		r.value = 0
	}
	return r
}

// fullAt reports whether the point itself (not only its key) has a full
// set in d.
func (s State) fullAt(p Point, d Direction) bool {
	for _, o := range s.Obs {
		if o.Point == p && o.Dir == d && o.Kind == Full {
			return true
		}
	}
	return false
}

// Next is what to measure next: the cheapest point not yet refuted that
// the model rates at the aim (the best rating of any point: every
// direction's target, or as near as the grid gets), screened where it
// is only predicted, given its full set where its screenings (or, with
// knobs acting apart, other points' trials in each direction) reach the
// aim; done when that point has its full set, or when the budget would
// not leave the time of the final full set.
func Next(s State, pol Policy) Action {
	tol := 0.0
	for _, d := range s.Model.Dirs {
		tol = max(tol, s.Model.Tol(d, pol))
	}
	pts := s.Grid.Points()
	ratings := make([]rating, len(pts))
	aim := 0.0
	for i, p := range pts {
		ratings[i] = s.rate(p, pol)
		aim = max(aim, ratings[i].value)
	}
	act := Action{Aim: aim}
	pick := -1
	for i := range pts {
		if ratings[i].atAim(aim, tol, s.Model.Dirs) {
			pick = i
			break
		}
	}
	if pick < 0 || aim <= 0 {
		act.Done, act.Why = true, StopNothing
		return act
	}
	// A screening short of the aim whose limit only a full set can
	// judge gets its full set first: a congestion window or the peer's
	// side is the model's ceiling only from a set's median.
	if q, ok := s.toConfirm(pts, ratings, aim, tol); ok {
		pick = q
	}
	p, r := pts[pick], ratings[pick]
	act.Point, act.Predicted = p, map[Direction]float64{}
	for _, d := range s.Model.Dirs {
		act.Predicted[d] = min(s.Model.Predict(p, d), s.Model.Goodput)
	}
	full := time.Duration(len(s.Model.Dirs)*pol.Trials) * pol.TrialCost(s.Model.IdleRTT)
	switch {
	case r.whole:
		act.Done, act.Why = true, StopChosen
		return act
	case allObserved(r, s.Model.Dirs) || pick >= 0 && s.confirming(p):
		act.Kind, act.Dirs = Full, slices.Clone(s.Model.Dirs)
		if s.Spent+full > pol.Budget {
			act = Action{Done: true, Why: StopBudget, Aim: aim}
		}
	default:
		act.Kind = Screen
		for _, d := range s.Model.Dirs {
			if r.observed[d] == 0 {
				act.Dirs = append(act.Dirs, d)
				if s.Model.BothEnds {
					break // the lab's ends are alike: one direction screens for both
				}
			}
		}
		screen := time.Duration(len(act.Dirs)) * pol.TrialCost(s.Model.IdleRTT)
		if s.Spent+screen+full > pol.Budget {
			return s.outOfTime(pol, pts, ratings, aim, tol, full)
		}
	}
	return act
}

// toConfirm is the cheapest point with a screening short of the aim
// whose limit only a full set teaches, and no full set of its own.
func (s State) toConfirm(pts []Point, ratings []rating, aim, tol float64) (int, bool) {
	for i, p := range pts {
		if ratings[i].value < aim-tol && s.confirming(p) {
			return i, true
		}
	}
	return 0, false
}

// confirming reports whether p was screened in a direction where its
// limit is one only a full set teaches, and has no full set there.
func (s State) confirming(p Point) bool {
	for _, o := range s.Obs {
		if o.Point == p && o.Kind == Screen && s.Model.fullSetLearns(o) && !s.fullAt(p, o.Dir) {
			return true
		}
	}
	return false
}

// outOfTime is Next's action when another screening would not leave
// the full set's time: the full set of the cheapest point measured in
// every direction at the aim, if it fits and has none; else done.
func (s State) outOfTime(pol Policy, pts []Point, ratings []rating, aim, tol float64, full time.Duration) Action {
	act := Action{Done: true, Why: StopBudget, Aim: aim}
	for i, p := range pts {
		r := ratings[i]
		if !r.atAim(aim, tol, s.Model.Dirs) {
			continue
		}
		if !allObserved(r, s.Model.Dirs) {
			act.Untried++
			continue
		}
		if !r.whole && s.Spent+full <= pol.Budget && act.Done {
			act = Action{Point: p, Kind: Full, Dirs: slices.Clone(s.Model.Dirs), Aim: aim, Untried: act.Untried}
		}
	}
	return act
}

// atAim reports whether a rating is at the aim: a measured one within
// the noise of it, a predicted one at it (its prediction already carries
// the noise as headroom).
func (r rating) atAim(aim, tol float64, dirs []Direction) bool {
	if allObserved(r, dirs) {
		return r.value >= aim-tol
	}
	return r.value >= aim*(1-1e-9)
}

func allObserved(r rating, dirs []Direction) bool {
	for _, d := range dirs {
		if r.observed[d] == 0 {
			return false
		}
	}
	return true
}

// Choose is the point to keep: among the points with a full set of
// their own in every direction (the baseline's included), the cheapest
// whose median in each direction, over the full sets at its key, is
// within the noise of the best such median there; where none is, the
// one nearest the best in its worst direction. ok is false when no
// point has a full set.
func Choose(s State, pol Policy) (Point, bool) {
	var whole []Point
	for _, p := range s.Grid.Points() {
		if s.rate(p, pol).whole {
			whole = append(whole, p)
		}
	}
	if len(whole) == 0 {
		return Point{}, false
	}
	best := map[Direction]float64{}
	med := func(p Point, d Direction) float64 { x, _ := s.measured(p, d); return x }
	for _, p := range whole {
		for _, d := range s.Model.Dirs {
			best[d] = max(best[d], med(p, d))
		}
	}
	worst := func(p Point) float64 {
		w := math.Inf(1)
		for _, d := range s.Model.Dirs {
			if best[d] > 0 {
				w = min(w, med(p, d)/best[d]/(1-s.Model.Tol(d, pol)))
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

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
