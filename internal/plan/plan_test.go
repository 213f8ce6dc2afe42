package plan

import (
	"go/parser"
	"go/token"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/testutil"
)

const mib = 1 << 20

// A path of 1 Gbit/s goodput × 50 ms: BDP 6.25 MB.
const (
	gp  = 1e9
	rtt = 50 * time.Millisecond
)

var bdp = int64(gp / 8 * rtt.Seconds())

func pol() Policy { return DefaultPolicy(3, 5*time.Second, time.Second, rtt) }

func prior(both bool) Prior {
	return Prior{Goodput: gp, Source: SourceLink, IdleRTT: rtt, BothEnds: both, Dirs: []Direction{Forward, Reverse},
		Default: "cubic", RecvShare: 0.65, SendShare: 0.8}
}

func grid(p Policy) Grid {
	return NewGrid(bdp, 6*mib, 4*mib, "cubic", []string{"reno", "cubic", "bbr"}, p)
}

// held is a trial at p in d held by limit l at rate x.
func held(p Point, d Direction, k Kind, l attrib.Limit, x float64) Obs {
	return Obs{Point: p, Dir: d, Kind: k, Rate: x, Limit: l, SenderView: true, RTT: rtt, MinRTT: rtt, MSS: 1448, Seconds: 5}
}

// ratesAt is trials of kind k at p in d held by l, with inflight bytes
// in flight, at the shares xs of the goodput.
func ratesAt(p Point, d Direction, l attrib.Limit, k Kind, inflight int64, xs ...float64) []Obs {
	var out []Obs
	for _, x := range xs {
		o := held(p, d, k, l, x*gp)
		o.Inflight = inflight
		out = append(out, o)
	}
	return out
}

// full is a full set of three trials at p in d around x.
func full(p Point, d Direction, l attrib.Limit, x float64) []Obs {
	return []Obs{held(p, d, Full, l, 0.99*x), held(p, d, Full, l, x), held(p, d, Full, l, 1.01*x)}
}

func TestActs(t *testing.T) {
	for _, c := range []struct {
		k    Knob
		both bool
		want []Direction
	}{
		{Wmem, false, []Direction{Forward}},
		{CC, false, []Direction{Forward}},
		{TxQueue, false, []Direction{Forward}},
		{Rmem, false, []Direction{Reverse}},
		{Backlog, false, []Direction{Reverse}},
		{MTU, false, []Direction{Forward, Reverse}},
		{Queues, false, []Direction{Forward, Reverse}},
		{Wmem, true, []Direction{Forward, Reverse}},
		{Rmem, true, []Direction{Forward, Reverse}},
	} {
		if got := Acts(c.k, c.both); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s (both ends %v): %v, want %v", c.k, c.both, got, c.want)
		}
	}
	// A side that acts on no transfer (a cap on explicit requests) acts
	// on none, in the lab too.
	if got := On(knobs.SideNone, true); got != nil {
		t.Errorf("a side that acts on no transfer acts on %v in the lab", got)
	}
}

// The grid's controls are the host's own and those available that no
// other available one dominates: Reno, where CUBIC is there to try.
func TestGridLeavesDominatedControls(t *testing.T) {
	for _, c := range []struct {
		def   string
		avail string
		want  []string
	}{
		{"bbr", "reno cubic bbr", []string{"bbr", "cubic"}},
		{"cubic", "reno cubic bbr", []string{"cubic", "bbr"}},
		{"reno", "reno cubic bbr", []string{"reno", "cubic", "bbr"}},
		{"bbr", "reno bbr", []string{"bbr", "reno"}},
		{"bbr", "reno cubic htcp bbr", []string{"bbr", "cubic", "htcp"}},
	} {
		g := NewGrid(1<<20, 6<<20, 4<<20, c.def, strings.Fields(c.avail), DefaultPolicy(3, 5*time.Second, time.Second, 50*time.Millisecond))
		if !reflect.DeepEqual(g.CCs, c.want) {
			t.Errorf("default %s, available %q: %v, want %v", c.def, c.avail, g.CCs, c.want)
		}
	}
}

// The rungs are 1.15× apart in bytes, from the host's maxima (or half
// a BDP with AllowLower) to 4 × BDP, and the host's own value is one.
func TestRungs(t *testing.T) {
	for _, c := range []struct {
		name       string
		host       int64
		lower      bool
		least, top int64
	}{
		{"from the host's", 4 * mib, false, 4 * mib, RoundUp(4 * float64(bdp))},
		{"lower allowed", 4 * mib, true, RoundUp(0.5 * float64(bdp)), RoundUp(4 * float64(bdp))},
		{"host above the top", 64 * mib, false, 64 * mib, 64 * mib},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pol()
			p.AllowLower = c.lower
			r := rungs(bdp, c.host, p)
			if !slices.Contains(r, c.host) || r[len(r)-1] > c.top || r[0] < c.least-65536 || r[0] > c.least+65536 {
				t.Fatalf("rungs %v: want from about %d to at most %d, with %d", r, c.least, c.top, c.host)
			}
			for i := 2; i < len(r); i++ {
				if f := float64(r[i]) / float64(r[i-1]); (r[i-1] != c.host && r[i] != c.host) && (f < 1.1 || f > 1.2) {
					t.Errorf("rungs %d → %d: %.2f× apart", r[i-1], r[i], f)
				}
			}
		})
	}
}

// The shares are learned where a buffer held; the ceiling of a
// direction only from a full set, by its median trial.
func TestFit(t *testing.T) {
	base := Point{Rmem: 6 * mib, Wmem: 4 * mib, CC: "cubic"}
	m := Fit(prior(false), []Obs{
		held(base, Forward, Screen, attrib.SendBuffer, 450e6),
		held(base, Reverse, Screen, attrib.SendBuffer, 500e6), // the peer's: no share
	}, pol())
	if want := 450e6 * rtt.Seconds() / 8 / (4 * mib); math.Abs(m.Send["cubic"]-want) > 1e-9 {
		t.Errorf("send share %.3f, want %.3f", m.Send["cubic"], want)
	}
	if m.Recv != 0 || m.Ceiling[At{Dir: Reverse}] != 0 {
		t.Errorf("a screening of the peer's buffer taught recv %.2f ceiling %.0f", m.Recv, m.Ceiling[At{Dir: Reverse}])
	}
	m = Fit(prior(false), full(base, Reverse, attrib.SendBuffer, 500e6), pol())
	if c := m.Ceiling[At{Dir: Reverse}]; math.Abs(c-500e6) > 1e6 || m.Target(Reverse) != c {
		t.Errorf("the peer's buffer in a full set: ceiling %.0f, target %.0f", c, m.Target(Reverse))
	}
	m = Fit(prior(true), full(base, Forward, attrib.ReceiverWindow, 600e6), pol())
	if want := 600e6 * rtt.Seconds() / 8 / (6 * mib); math.Abs(m.Recv-want) > 0.01 || m.Ceiling[At{Dir: Forward}] != 0 {
		t.Errorf("lab: recv share %.3f (want %.3f), ceiling %.0f", m.Recv, want, m.Ceiling[At{Dir: Forward}])
	}
	// A window held short of the path in a full set limits its class,
	// not a pacing control.
	m = Fit(prior(true), full(base, Forward, attrib.Network, 700e6), pol())
	if p := m.Predict(Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "reno"}, Forward); p > 701e6 {
		t.Errorf("reno after cubic's window held: %.0f", p)
	}
	if p := m.Predict(Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "bbr"}, Forward); p < gp {
		t.Errorf("bbr after cubic's window held: %.0f", p)
	}
}

// What no buffer lifts is one figure per direction and MTU, whatever the
// buffers: a full set's count of screenings it held there, at any points,
// teaches it as a full set does; fewer, or held by this host's own
// buffer, or at another MTU, do not.
func TestScreeningsTeachACeiling(t *testing.T) {
	at := func(r, w int64, mtu int) Point { return Point{Rmem: r * mib, Wmem: w * mib, CC: "cubic", MTU: mtu} }
	core := func(p Point, x float64) Obs { return held(p, Forward, Screen, attrib.CPU, x) }
	for _, c := range []struct {
		name string
		obs  []Obs
		want map[At]float64
	}{
		{"three held by a core at three points", []Obs{core(at(8, 6, 0), 0.49*gp), core(at(10, 8, 0), 0.5*gp), core(at(12, 8, 0), 0.51*gp)}, map[At]float64{{Forward, 0}: 0.5 * gp}},
		{"two", []Obs{core(at(8, 6, 0), 0.49*gp), core(at(10, 8, 0), 0.5*gp)}, map[At]float64{}},
		{"one at another MTU", []Obs{core(at(8, 6, 0), 0.49*gp), core(at(10, 8, 0), 0.5*gp), core(at(12, 8, 9000), 0.8*gp)}, map[At]float64{}},
		{"one held by this host's send buffer", []Obs{core(at(8, 6, 0), 0.49*gp), core(at(10, 8, 0), 0.5*gp), held(at(1, 1, 0), Forward, Screen, attrib.SendBuffer, 0.2*gp)}, map[At]float64{}},
		{"a full set's better figure there", append([]Obs{core(at(8, 6, 0), 0.49*gp), core(at(10, 8, 0), 0.5*gp), core(at(12, 8, 0), 0.51*gp)}, full(at(16, 16, 0), Forward, attrib.Network, 0.6*gp)...), map[At]float64{{Forward, 0}: 0.6 * gp}},
	} {
		m := Fit(prior(false), c.obs, pol())
		if len(m.Ceiling) != len(c.want) {
			t.Errorf("%s: ceilings %v, want %v", c.name, m.Ceiling, c.want)
		}
		for a, w := range c.want {
			if math.Abs(m.Ceiling[a]-w) > 1e-6*gp {
				t.Errorf("%s: ceiling at %v %.4g, want %.4g", c.name, a, m.Ceiling[a], w)
			}
		}
	}
}

// Next screens the cheapest point the model predicts reaches the target
// (in the lab one direction screens for both), gives a point that
// reached it its full set, and is done when that set is on the aim.
func TestNext(t *testing.T) {
	p, g := pol(), grid(pol())
	obs := append(full(g.Base, Forward, attrib.SendBuffer, 430e6), full(g.Base, Reverse, attrib.SendBuffer, 430e6)...)
	st := State{Grid: g, Model: Fit(prior(true), obs, pol()), Obs: obs}
	a := Next(st, p)
	if a.Done || a.Kind != Screen || len(a.Dirs) != 1 {
		t.Fatalf("first action %+v, want one screening", a)
	}
	share := 430e6 * rtt.Seconds() / 8 / (4 * mib)
	need := gp * rtt.Seconds() / 8 / share * (1 + st.Model.TolN(Forward, 1, 0, p))
	if w := float64(a.Point.Wmem); w < need || w > 1.16*need {
		t.Errorf("wmem %.0f, want the least rung ≥ %.0f", w, need)
	}
	if a.Point.Rmem < g.Base.Rmem || a.Point.CC != "cubic" {
		t.Errorf("point %+v", a.Point)
	}
	obs = append(obs, held(a.Point, Forward, Screen, attrib.PathFull, 0.99*gp))
	st = State{Grid: g, Model: Fit(prior(true), obs, pol()), Obs: obs}
	b := Next(st, p)
	if b.Done || b.Kind != Full || b.Point != a.Point || len(b.Dirs) != 2 {
		t.Fatalf("after a full screening: %+v, want its full set", b)
	}
	obs = append(obs, full(a.Point, Forward, attrib.PathFull, 0.99*gp)...)
	obs = append(obs, full(a.Point, Reverse, attrib.PathFull, 0.99*gp)...)
	st = State{Grid: g, Model: Fit(prior(true), obs, pol()), Obs: obs}
	if c := Next(st, p); !c.Done || c.Why != StopChosen || c.Point != a.Point {
		t.Fatalf("after its full set: %+v", c)
	}
	if ch, ok := Choose(st, p); !ok || ch != a.Point {
		t.Errorf("chose %+v, want %+v", ch, a.Point)
	}
}

// Against a peer a full set runs only the directions whose key has
// none: reverse at the host's tcp_rmem is the baseline's, whatever this
// host sends with, and the choice's full set there is the baseline's.
func TestFullSetWhereItsKeyLacksOne(t *testing.T) {
	p, g := pol(), grid(pol())
	obs := append(full(g.Base, Forward, attrib.SendBuffer, 430e6), full(g.Base, Reverse, attrib.PathFull, 0.99*gp)...)
	st := State{Grid: g, Model: Fit(prior(false), obs, p), Obs: obs}
	a := Next(st, p)
	if a.Kind != Screen || !slices.Equal(a.Dirs, []Direction{Forward}) || a.Point.Rmem != g.Base.Rmem {
		t.Fatalf("first action %+v, want a screening of forward at the host's tcp_rmem", a)
	}
	obs = append(obs, held(a.Point, Forward, Screen, attrib.PathFull, 0.99*gp))
	st = State{Grid: g, Model: Fit(prior(false), obs, p), Obs: obs}
	b := Next(st, p)
	if b.Kind != Full || b.Point != a.Point || !slices.Equal(b.Dirs, []Direction{Forward}) {
		t.Fatalf("after a full screening: %+v, want its full set in forward only", b)
	}
	obs = append(obs, full(a.Point, Forward, attrib.PathFull, 0.99*gp)...)
	st = State{Grid: g, Model: Fit(prior(false), obs, p), Obs: obs}
	if c := Next(st, p); !c.Done || c.Why != StopChosen {
		t.Fatalf("after forward's full set: %+v, want done", c)
	}
	if ch, ok := Choose(st, p); !ok || ch != a.Point {
		t.Errorf("chose %+v, want %+v", ch, a.Point)
	}
}

// Out of time with a screening short of the aim whose confirmation does
// not fit, the final full set goes to the point measured nearest the aim
// where it is nearer than what has a full set: at 600 ms one BBR
// screening at 1.6 × the baseline ended the search with nothing kept.
func TestOutOfTimeVerifiesTheNearest(t *testing.T) {
	p, g := pol(), grid(pol())
	obs := append(full(g.Base, Forward, attrib.SendBuffer, 430e6), full(g.Base, Reverse, attrib.SendBuffer, 430e6)...)
	a := Next(State{Grid: g, Model: Fit(prior(true), obs, p), Obs: obs}, p)
	for _, c := range []struct {
		rate float64
		want bool
	}{{0.8 * gp, true}, {0.3 * gp, false}} {
		o := append(slices.Clone(obs), held(a.Point, Forward, Screen, attrib.Network, c.rate))
		b := Next(State{Grid: g, Model: Fit(prior(true), o, p), Obs: o, Spent: p.Budget - 40*time.Second}, p)
		if got := !b.Done && b.Kind == Full && b.Point == a.Point && !b.Confirm; got != c.want {
			t.Errorf("screened at %.0f of the baseline's 430e6, out of time: %+v, want its full set %v", c.rate, b, c.want)
		}
		for _, d := range b.Dirs { // the report prints what the model expects of it
			if b.Predicted[d] <= 0 {
				t.Errorf("out of time, the full set of %+v has no prediction in %s: %v", b.Point, d, b.Predicted)
			}
		}
	}
}

// Choose takes the cheapest point on the plateau, never one measured
// only by screenings, and a screening added never changes it.
func TestChoose(t *testing.T) {
	p, g := pol(), grid(pol())
	pts := g.Points()
	hi, lo := pts[len(pts)/2], pts[len(pts)/4]
	var obs []Obs
	for _, d := range []Direction{Forward, Reverse} {
		obs = append(obs, full(g.Base, d, attrib.SendBuffer, 500e6)...)
		obs = append(obs, full(hi, d, attrib.PathFull, 0.99*gp)...)
		obs = append(obs, full(lo, d, attrib.PathFull, 0.975*gp)...) // within the noise
	}
	st := State{Grid: g, Model: Fit(prior(true), obs, pol()), Obs: obs}
	ch, ok := Choose(st, p)
	if !ok || ch != lo {
		t.Fatalf("chose %+v, want the cheaper point on the plateau %+v", ch, lo)
	}
	cheaper := pts[1]
	obs2 := append(slices.Clone(obs), held(cheaper, Forward, Screen, attrib.PathFull, gp))
	st2 := State{Grid: g, Model: Fit(prior(true), obs2, pol()), Obs: obs2}
	if ch2, _ := Choose(st2, p); ch2 != ch {
		t.Errorf("a screening moved the choice to %+v", ch2)
	}
}

// Knobs judged where they act: against a peer, what reverse shows never
// changes what the model predicts forward, nor the other way round.
func TestDirectionsApart(t *testing.T) {
	g := grid(pol())
	rng := rand.New(rand.NewPCG(1, 2))
	t.Logf("seed 1")
	limits := []attrib.Limit{attrib.SendBuffer, attrib.ReceiverWindow, attrib.Network, attrib.PathFull, attrib.Unknown, attrib.CPU}
	pts := g.Points()
	for i := 0; i < 200; i++ {
		var obs []Obs
		for j := 0; j < 6; j++ {
			p := pts[rng.IntN(len(pts))]
			d := []Direction{Forward, Reverse}[rng.IntN(2)]
			obs = append(obs, full(p, d, limits[rng.IntN(len(limits))], gp*(0.3+0.7*rng.Float64()))...)
		}
		base := Fit(prior(false), obs, pol())
		for _, d := range []Direction{Forward, Reverse} {
			other := map[Direction]Direction{Forward: Reverse, Reverse: Forward}[d]
			more := append(slices.Clone(obs), full(pts[rng.IntN(len(pts))], other, limits[rng.IntN(len(limits))], gp*rng.Float64())...)
			m := Fit(prior(false), more, pol())
			for _, p := range pts {
				if a, b := base.Predict(p, d), m.Predict(p, d); a != b {
					t.Fatalf("a %s observation moved %s's prediction at %+v: %.0f → %.0f", other, d, p, a, b)
				}
			}
			if base.Target(d) != m.Target(d) {
				t.Fatalf("a %s observation moved %s's target", other, d)
			}
		}
		// And the plan: a reverse observation never moves tcp_wmem or
		// the congestion control of the point Next picks.
		st := State{Grid: g, Model: base, Obs: obs}
		a := Next(st, pol())
		more := append(slices.Clone(obs), held(pts[rng.IntN(len(pts))], Reverse, Screen, attrib.PathFull, gp))
		b := Next(State{Grid: g, Model: Fit(prior(false), more, pol()), Obs: more}, pol())
		if a.Kind == Screen && b.Kind == Screen && !a.Done && !b.Done && (a.Point.Wmem != b.Point.Wmem || a.Point.CC != b.Point.CC) {
			t.Fatalf("a reverse screening moved forward's knobs: %+v → %+v", a.Point, b.Point)
		}
	}
}

// Scaling the rate by k and the RTT by 1/k gives the same plan in BDP
// units; swapping the directions in the lab, the same plan; the same
// inputs, the same plan.
func TestPlanInvariants(t *testing.T) {
	plan := func(rate float64, r time.Duration, dir Direction) (Action, int64) {
		b := int64(rate / 8 * r.Seconds())
		p := DefaultPolicy(3, 5*time.Second, time.Second, r)
		g := NewGrid(b, b/2, b/3, "cubic", []string{"cubic", "bbr"}, p)
		pr := Prior{Goodput: rate, Source: SourceLink, IdleRTT: r, BothEnds: true, Dirs: []Direction{Forward, Reverse}, Default: "cubic", RecvShare: 0.65, SendShare: 0.8}
		x := 0.8 * float64(b/3) * 8 / r.Seconds()
		obs := full(g.Base, dir, attrib.SendBuffer, x)
		for i := range obs {
			obs[i].RTT, obs[i].MinRTT = r, r
		}
		return Next(State{Grid: g, Model: Fit(pr, obs, pol()), Obs: obs}, p), b
	}
	a, ba := plan(1e9, 40*time.Millisecond, Forward)
	b, bb := plan(4e9, 10*time.Millisecond, Forward)
	ra, rb := float64(a.Point.Wmem)/float64(ba), float64(b.Point.Wmem)/float64(bb)
	if math.Abs(ra-rb) > 0.02 || a.Kind != b.Kind {
		t.Errorf("scaled: wmem %.3f vs %.3f × BDP (%v, %v)", ra, rb, a.Kind, b.Kind)
	}
	c, _ := plan(1e9, 40*time.Millisecond, Reverse)
	if c.Point != a.Point || c.Kind != a.Kind {
		t.Errorf("mirrored: %+v vs %+v", c.Point, a.Point)
	}
	if d, _ := plan(1e9, 40*time.Millisecond, Forward); !reflect.DeepEqual(d, a) {
		t.Errorf("the same inputs planned %+v then %+v", a, d)
	}
}

// A whole search against a made-up truth stays within its budget, ends
// with a choice that has a full set, and reaches the truth's best.
func TestSearchWithinBudget(t *testing.T) {
	for _, lab := range []bool{true, false} {
		p, g := pol(), grid(pol())
		p.Budget = 2 * time.Minute
		truth := func(q Point, d Direction) (float64, attrib.Limit) {
			r, l := gp, attrib.PathFull
			if acts(Rmem, d, lab) && 0.6*float64(q.Rmem)*8/rtt.Seconds() < r {
				r, l = 0.6*float64(q.Rmem)*8/rtt.Seconds(), attrib.ReceiverWindow
			}
			if acts(Wmem, d, lab) && 0.75*float64(q.Wmem)*8/rtt.Seconds() < r {
				r, l = 0.75*float64(q.Wmem)*8/rtt.Seconds(), attrib.SendBuffer
			}
			return r, l
		}
		var obs []Obs
		spent := time.Duration(0)
		cost := p.TrialCost(rtt)
		for _, d := range []Direction{Forward, Reverse} {
			x, l := truth(g.Base, d)
			obs = append(obs, full(g.Base, d, l, x)...)
			spent += 3 * cost
		}
		for i := 0; ; i++ {
			st := State{Grid: g, Model: Fit(prior(lab), obs, pol()), Obs: obs, Spent: spent}
			a := Next(st, p)
			if a.Done {
				break
			}
			if i > 100 {
				t.Fatal("no end")
			}
			for _, d := range a.Dirs {
				x, l := truth(a.Point, d)
				if a.Kind == Screen {
					obs = append(obs, held(a.Point, d, Screen, l, x))
					spent += cost
				} else {
					obs = append(obs, full(a.Point, d, l, x)...)
					spent += 3 * cost
				}
			}
		}
		if spent > p.Budget {
			t.Errorf("lab %v: spent %s of %s", lab, spent, p.Budget)
		}
		st := State{Grid: g, Model: Fit(prior(lab), obs, pol()), Obs: obs}
		ch, ok := Choose(st, p)
		if !ok {
			t.Fatalf("lab %v: nothing chosen", lab)
		}
		for _, d := range []Direction{Forward, Reverse} {
			if x, _ := truth(ch, d); x < 0.97*gp {
				t.Errorf("lab %v: %s at the choice %+v reaches %.0f", lab, d, ch, x)
			}
		}
		if ch.Rmem > RoundUp(4*float64(bdp)) || ch.Wmem > RoundUp(4*float64(bdp)) {
			t.Errorf("lab %v: choice %+v above 4 × BDP", lab, ch)
		}
	}
}

// The planner decides; it measures nothing: no context, no os, no
// clock, nothing that applies settings or runs a client.
func TestPlannerIsPure(t *testing.T) {
	lines := 0
	for f, src := range testutil.Sources(t) {
		if f == "model.go" || f == "next.go" {
			lines += strings.Count(src, "\n")
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if path == "context" || path == "os" || strings.HasSuffix(path, "/apply") || strings.HasSuffix(path, "/client") || strings.HasPrefix(path, "os/") {
				t.Errorf("%s imports %s", f, path)
			}
		}
		for _, clock := range []string{"time.Now", "time.Since", "time.Sleep", "time.After"} {
			if strings.Contains(src, clock) {
				t.Errorf("%s reads the clock (%s)", f, clock)
			}
		}
	}
	if lines > 700 {
		t.Errorf("the planner is %d lines; model, Next and Choose are to fit in 700", lines)
	}
}

// Needs is the first point a search on an unmeasured path proposes.
func TestNeedsIsTheFirstProposal(t *testing.T) {
	p := pol()
	r, w := Needs(bdp, gp, rtt, 0.65, 0.8, p)
	g := NewGrid(bdp, 4*mib, 4*mib, "cubic", nil, p)
	pr := prior(true)
	obs := append(full(g.Base, Forward, attrib.Unknown, 0.5*gp), full(g.Base, Reverse, attrib.Unknown, 0.5*gp)...)
	a := Next(State{Grid: g, Model: Fit(pr, obs, pol()), Obs: obs}, p)
	if a.Point.Rmem != r || a.Point.Wmem != w {
		t.Errorf("needs rmem %d wmem %d; the search proposed %+v", r, w, a.Point)
	}
	if f := float64(r) / float64(bdp); f < 1.03/0.65 || f > 1.15*1.03/0.65 {
		t.Errorf("rmem need %.2f × BDP", f)
	}
}

// In the lab one setting serves both directions: where the best of one
// direction costs the other, the aim is what one point reaches in both
// (before, no point was at both directions' bests and the search
// stopped with nothing). A direction's lessons stand for the other's.
func TestLabAimIsJoint(t *testing.T) {
	p, g := pol(), grid(pol())
	bbr := Point{Rmem: g.Base.Rmem, Wmem: g.Base.Wmem, CC: "bbr"}
	var obs []Obs
	obs = append(obs, full(g.Base, Forward, attrib.Network, 0.1*gp)...) // a short transmit ring: cubic collapses forward
	obs = append(obs, full(g.Base, Reverse, attrib.PathFull, gp)...)
	obs = append(obs, full(bbr, Forward, attrib.Network, 0.93*gp)...) // bbr gets 93% both ways
	obs = append(obs, full(bbr, Reverse, attrib.Network, 0.93*gp)...)
	for i := range obs {
		obs[i].Lost = 40
	}
	st := State{Grid: g, Model: Fit(prior(true), obs, pol()), Obs: obs}
	a := Next(st, p)
	if a.Why == StopNothing {
		t.Fatalf("no point at the aim: %+v", a)
	}
	if ch, _ := Choose(st, p); ch.CC != "bbr" {
		t.Errorf("chose %+v, want bbr", ch)
	}
	m := Fit(prior(true), full(g.Base, Forward, attrib.CPU, 0.5*gp), pol())
	if m.Target(Reverse) != m.Target(Forward) || m.Target(Reverse) > 0.52*gp {
		t.Errorf("lab: forward's ceiling does not stand for reverse: %.0f, %.0f", m.Target(Forward), m.Target(Reverse))
	}
}

// Random loss, the least any trial lost, bounds a control that cuts its
// window at each loss, not a pacing one; none without loss.
func TestRandomLossBoundsLossBased(t *testing.T) {
	big := Point{Rmem: 40 * mib, Wmem: 40 * mib}
	for _, c := range []struct {
		retrans    int64
		cubicBelow float64
	}{{0, gp}, {1000, 0.2 * gp}} {
		o := held(Point{Rmem: 6 * mib, Wmem: 4 * mib, CC: "bbr"}, Forward, Screen, attrib.SendBuffer, 400e6)
		o.Lost = c.retrans
		m := Fit(prior(true), []Obs{o}, pol())
		big.CC = "cubic"
		cu := m.Predict(big, Forward)
		big.CC = "bbr"
		bb := m.Predict(big, Forward)
		if c.retrans == 0 && (cu < gp || bb < gp) || c.retrans > 0 && (cu > c.cubicBelow || bb < gp) {
			t.Errorf("%d retransmits: cubic %.0f, bbr %.0f", c.retrans, cu, bb)
		}
	}
}

// A lossy flow's window held with its send buffer full is the buffer's
// when a trial with more of it did better (the buffer also holds what
// was sent beyond each hole): its share is learned, and the next point
// has more send buffer. Without loss the same two trials say nothing of
// the buffer (a window with two modes differs by as much).
func TestLossyWindowHeldByItsBuffer(t *testing.T) {
	for _, lossy := range []bool{true, false} {
		lo := Point{Rmem: 40 * mib, Wmem: 12 * mib, CC: "bbr"}
		hi := Point{Rmem: 40 * mib, Wmem: 18 * mib, CC: "bbr"}
		a := held(lo, Forward, Full, attrib.Network, 0.75*gp)
		a.Capped = attrib.SendBuffer
		b := held(hi, Forward, Screen, attrib.Network, 0.9*gp)
		b.Capped = attrib.SendBuffer
		if lossy {
			a.Lost, b.Lost = 200, 200
		}
		m := Fit(prior(false), []Obs{a, a, a, b}, pol())
		learned := m.Send["bbr"] > 0
		if learned != lossy {
			t.Errorf("lossy %v: send share %.2f learned %v", lossy, m.Send["bbr"], learned)
		}
		if lossy && m.Predict(Point{Rmem: 40 * mib, Wmem: 14 * mib, CC: "bbr"}, Forward) > 0.9*gp {
			t.Errorf("lossy: 14 MiB predicted at %.0f, above what 18 MiB did", m.Predict(Point{Rmem: 40 * mib, Wmem: 14 * mib, CC: "bbr"}, Forward))
		}
	}
}

// The host's send buffer is for its applications: a trial whose writer
// kept the buffer fuller than an application's (tcptune's engine: 0.95)
// never lowers the need below the prior's share; a lower share is
// learned.
func TestSendShareNeverAboveThePrior(t *testing.T) {
	base := Point{Rmem: 6 * mib, Wmem: 4 * mib, CC: "cubic"}
	for _, c := range []struct{ share, want float64 }{{0.95, 0.8}, {0.6, 0.6}} {
		x := c.share * float64(4*mib) * 8 / rtt.Seconds()
		m := Fit(prior(true), []Obs{held(base, Forward, Screen, attrib.SendBuffer, x)}, pol())
		if got := m.sendShare("cubic"); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("a trial at share %.2f: the model's %.3f, want %.2f", c.share, got, c.want)
		}
	}
}

// A trial that lost nothing says the random loss is below about 3 ÷ its
// segments: it drops the floor only where the floor would have cost it
// three losses; a short, slow one (a reference profile's) is consistent
// with the floor and leaves it.
func TestLosslessTrialRuleOfThree(t *testing.T) {
	lossy := held(Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "bbr"}, Forward, Full, attrib.Network, 400e6)
	lossy.Lost = 170 // of ~172,700 segments: 0.1%
	for _, c := range []struct {
		name    string
		rate    float64
		seconds float64
		floor   bool
	}{
		{"short and slow: 20 Mbit/s × 1.25 s, ~2,160 segments (2 expected)", 20e6, 1.25, true},
		{"long: 200 Mbit/s × 5 s, ~86,000 segments (86 expected)", 200e6, 5, false},
	} {
		clean := held(Point{Rmem: 4 * mib, Wmem: 4 * mib, CC: "bbr"}, Forward, Screen, attrib.SendBuffer, c.rate)
		clean.Seconds = c.seconds
		m := Fit(prior(true), []Obs{lossy, clean}, pol())
		if (m.Loss > 0) != c.floor {
			t.Errorf("%s: loss floor %.2g", c.name, m.Loss)
		}
	}
}

// A screening held by a congestion window gets a confirming full set
// only where the model expected more of it: cubic held by the 0.1% loss
// that a BBR full set showed is what the loss bound predicted, and
// teaches nothing a full set would add.
func TestConfirmOnlyASurprise(t *testing.T) {
	p := Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "cubic"}
	for _, c := range []struct {
		retrans int64
		confirm bool
	}{{0, true}, {170, false}} {
		bbr := full(Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "bbr"}, Forward, attrib.PathFull, gp)
		for i := range bbr {
			bbr[i].Lost = c.retrans * 5 / 2 // the same share at 2.5 × the rate
		}
		cu := held(p, Forward, Screen, attrib.Network, 0.3*gp)
		cu.Lost = c.retrans
		obs := append(bbr, cu)
		st := State{Grid: grid(pol()), Model: Fit(prior(false), obs, pol()), Obs: obs}
		if got := st.confirming(p, pol()) != nil; got != c.confirm {
			t.Errorf("%d retransmits: confirm %v, want %v (predicted %.0f)", c.retrans, got, c.confirm, st.Model.Predict(p, Forward))
		}
	}
}

// A trial this host's own queue dropped packets in is held by those
// drops whatever its verdict names: it teaches no buffer share (a short
// transmit ring collapsed cubic to a tenth of the path, and a profile's
// trial read "send buffer" there, which made every point look short);
// they hold every point without the queue raised, whatever its buffers.
// Nor are the losses they cause the path's random loss, which would hold
// a loss-based control with the queue raised too (in a CI run that sent
// tune to BBR without measuring the raise).
func TestHostDropsTeachNoShare(t *testing.T) {
	o := held(Point{Rmem: 4 * mib, Wmem: 4 * mib}, Forward, Screen, attrib.SendBuffer, 0.1*gp)
	o.Inflight = int64(0.1 * gp / 8 * rtt.Seconds()) // the buffer had room
	o.Lost = 300                                     // of ~43,000 segments
	if m := Fit(prior(true), []Obs{o}, pol()); m.Send["cubic"] == 0 {
		t.Fatalf("without drops the send share is learned")
	}
	o.Drops = true
	m := Fit(prior(true), []Obs{o}, pol())
	same, raised := Point{Rmem: 40 * mib, Wmem: 40 * mib}, Point{Rmem: 40 * mib, Wmem: 40 * mib, Queue: TxQueue}
	if m.Send["cubic"] != 0 || m.Predict(same, Forward) > 0.1*gp || m.Predict(raised, Forward) < gp || m.Loss != 0 {
		t.Errorf("with drops: send share %.3f; more buffer predicted %.0f, the queue raised %.0f; random loss %.2g", m.Send["cubic"], m.Predict(same, Forward), m.Predict(raised, Forward), m.Loss)
	}
}

// A pacing control that overfills a shallow queue (it lost where a
// lossless trial ruled random loss out) is held by its send buffer
// until the buffer holds Gain BDPs in flight and a BDP beyond the
// holes: more buffer is then predicted to lift it, less than the BDP
// and the queue not to overfill. The same trial losing only what the
// path loses at random says nothing of the rungs between.
func TestPacingOverfillNeedsGainAndABDP(t *testing.T) {
	q := int64(0.2 * float64(bdp))
	at := func(bdps float64) Point {
		return Point{Rmem: 40 * mib, Wmem: RoundUp(bdps * float64(bdp)), CC: "bbr"}
	}
	for _, c := range []struct {
		name             string
		cubicRetransmits int64 // a cubic full set's, 0 = lossless
		over             bool
	}{{"overflow", 0, true}, {"random loss", 300, false}} {
		obs := full(Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "cubic"}, Forward, attrib.Network, 0.9*gp)
		for i := range obs {
			obs[i].Lost = c.cubicRetransmits
		}
		for i := range 3 {
			o := held(at(1.33), Forward, Full, attrib.Network, 0.63*gp)
			o.Capped, o.Lost, o.RTT = attrib.SendBuffer, 300+int64(i), rtt+time.Duration(float64(q)*8/o.Rate*float64(time.Second))
			if c.over {
				o.Lost = 60000
			}
			obs = append(obs, o)
		}
		m := Fit(prior(false), obs, pol())
		top, mid, low := m.Predict(at(4), Forward), m.Predict(at(2), Forward), m.Predict(at(1.15), Forward)
		if c.over && (top < gp || mid > 0.64*gp || low < 0.9*gp) {
			t.Errorf("%s: 4 × BDP %.0f, 2 × %.0f, 1.15 × %.0f", c.name, top, mid, low)
		}
		if !c.over && mid < gp {
			t.Errorf("%s: 2 × BDP predicted %.0f, as if it overfilled", c.name, mid)
		}
	}
}

// A pacing control that overfilled is held until both buffers hold its
// flight at gain and a BDP beyond the holes, in bytes: the receive
// buffer at the window model's share, not at one learned from a window
// whose flow stood in a queue (its rate at the idle RTT folds the queue's
// delay in), or a host whose tcp_rmem already holds that flight would
// look held at every send buffer (the lab's lossy 300 Mbit/s × 150 ms
// path: 32 MiB of tcp_rmem, a receive share of 0.47 learned at an RTT of
// 210 ms, and the search kept the send buffer BBR overfilled at).
func TestOverfillEscapeReadsTheBuffersBytes(t *testing.T) {
	at := func(r, w float64) Point {
		return Point{Rmem: RoundUp(r * float64(bdp)), Wmem: RoundUp(w * float64(bdp)), CC: "bbr"}
	}
	win := held(at(2.7, 2.7), Forward, Screen, attrib.ReceiverWindow, 0)
	win.Window, win.RTT = int64(0.65*float64(at(2.7, 2.7).Rmem)), 7*rtt/5
	win.Rate = float64(win.Window) * 8 / win.RTT.Seconds()
	over := held(at(5, 2.67), Forward, Screen, attrib.SendBuffer, 0.91*gp)
	over.Recovering, over.Lost, over.RTT = true, 60000, rtt+10*time.Millisecond
	m := Fit(prior(true), []Obs{win, over}, pol())
	if got, _ := m.ShareOf(Rmem, "bbr"); got > 0.5 {
		t.Fatalf("learned receive share %.2f: the queue's delay should fold in", got)
	}
	if x := m.Predict(at(5, 2.67), Forward); x > 0.92*gp {
		t.Errorf("the send buffer it overfilled at predicted %.0f", x)
	}
	if x := m.Predict(at(5, 4), Forward); x < gp {
		t.Errorf("4 × BDP of tcp_wmem with 5 × BDP of tcp_rmem predicted %.0f: both hold gain 2 and a BDP at their byte shares", x)
	}
}

// A window held with room left in its send buffer (in flight well below
// the buffer's share) was not the buffer's, whatever a trial with more
// of it did: cubic's good mode at a larger buffer does not make its
// early exit at a smaller one look buffer-bound. With the buffer full it
// may have been.
func TestWindowWithRoomIsNotTheBuffers(t *testing.T) {
	lo := Point{Rmem: 40 * mib, Wmem: 8 * mib, CC: "cubic"}
	hi := Point{Rmem: 40 * mib, Wmem: 10 * mib, CC: "cubic"}
	for _, c := range []struct {
		share     float64 // in flight ÷ wmem
		ambiguous bool
	}{{0.47, false}, {0.85, true}} {
		o := held(lo, Forward, Full, attrib.Network, 0.6*gp)
		o.Capped, o.Inflight = attrib.SendBuffer, int64(c.share*float64(lo.Wmem))
		obs := []Obs{o, held(hi, Forward, Screen, attrib.PathFull, gp)}
		m := Fit(prior(false), obs, pol())
		if got := m.ambiguous(o, obs, pol()); got != c.ambiguous {
			t.Errorf("in flight %.2f of the buffer: ambiguous %v, want %v", c.share, got, c.ambiguous)
		}
	}
}

// Noise is what a figure moves when nothing changes: a set whose trials
// one limit held spreads by their noise; a set with a trial another
// limit held (a control's second mode) adds no spread for it.
func TestSpreadIsWithinOneLimit(t *testing.T) {
	p := Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "cubic"}
	set := full(p, Forward, attrib.PathFull, gp)
	set[0] = held(p, Forward, Full, attrib.Network, 0.6*gp)
	s := spreads(set, Prior{})[Forward]
	if want := math.Log(1.01) / math.Sqrt2; math.Abs(s-want) > 0.0005 {
		t.Errorf("spread %.4f, want %.4f (the two path-full trials' alone)", s, want)
	}
}

// A lossy flow's send share (its buffer also holds what was sent beyond
// each hole) is its control's own; a control with none of its own takes
// the writer's, learned where nothing was lost.
func TestLossyShareIsItsControlsOwn(t *testing.T) {
	base := Point{Rmem: 6 * mib, Wmem: 4 * mib, CC: "cubic"}
	rate := func(share float64) float64 { return share * float64(4*mib) * 8 / rtt.Seconds() }
	lossy := held(base, Forward, Screen, attrib.SendBuffer, rate(0.5))
	lossy.Lost = 500
	clean := held(base, Forward, Screen, attrib.SendBuffer, rate(0.75))
	m := Fit(prior(false), []Obs{lossy, clean}, pol())
	if c, b := m.sendShare("cubic"), m.sendShare("bbr"); math.Abs(c-0.5) > 1e-6 || math.Abs(b-0.75) > 1e-6 {
		t.Errorf("cubic's share %.3f (want its lossy 0.50), bbr's %.3f (want the writer's 0.75)", c, b)
	}
}

// A set whose trials this host's queues dropped in (a collapsed flow at
// 12–16 Mbit/s) says nothing of the path's noise: it leaves the
// tolerance to the trials that ran clean.
func TestDroppedTrialsAreNoNoise(t *testing.T) {
	p := Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "cubic"}
	obs := full(p, Forward, attrib.PathFull, gp)
	for _, x := range []float64{12e6, 16e6, 12e6} {
		o := held(Point{Rmem: 6 * mib, Wmem: 4 * mib, CC: "cubic"}, Forward, Full, attrib.Network, x)
		o.Drops = true
		obs = append(obs, o)
	}
	if tol := Fit(prior(false), obs, pol()).TolN(Forward, 1, 0, pol()); tol > pol().MinTol {
		t.Errorf("tolerance %.3f, want the clean sets' %.2f", tol, pol().MinTol)
	}
}

// One comparator: the mean of n trials held to the mean of k is apart by
// Spreads standard errors of their difference, within [MinTol, MaxTol].
func TestTolNIsTheStandardErrorOfTheDifference(t *testing.T) {
	m := Model{Spread: map[Direction]float64{Forward: 0.03}}
	for _, c := range []struct {
		n, k int
		want float64
	}{
		{1, 0, 0.06},                        // one trial held to a figure
		{4, 0, 0.03},                        // a set of four: half the spread
		{3, 3, 2 * 0.03 * math.Sqrt(2.0/3)}, // two sets of three
		{9, 0, 0.03},                        // never below MinTol
	} {
		if got := m.TolN(Forward, c.n, c.k, pol()); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%d against %d: %.4f, want %.4f", c.n, c.k, got, c.want)
		}
	}
	m.Spread[Forward] = 0.2
	if got := m.TolN(Forward, 1, 0, pol()); got != pol().MaxTol {
		t.Errorf("a wide spread: %.3f, want MaxTol", got)
	}
}

// A receive buffer's share is the window it advertised over the RTT it
// met, where both are known: a short trial whose rate had not reached
// its window (eight RTTs at 150 ms) does not make the buffer look small;
// an RTT the held flow added still folds in.
func TestReceiveShareFromTheAdvertisedWindow(t *testing.T) {
	p := Point{Rmem: 16 * mib, Wmem: 16 * mib, CC: "bbr"}
	for _, c := range []struct {
		name string
		rtt  time.Duration
		want float64
	}{{"a short trial, the window not reached", rtt, 0.66}, {"an RTT twice the idle", 2 * rtt, 0.33}} {
		o := held(p, Reverse, Screen, attrib.ReceiverWindow, 0.3*gp)
		o.Window, o.RTT = 66*16*mib/100, c.rtt
		if got := Fit(prior(false), []Obs{o}, pol()).Recv; math.Abs(got-c.want) > 0.001 {
			t.Errorf("%s: share %.3f, want %.2f", c.name, got, c.want)
		}
	}
}

// A larger MTU the path carries is a dimension of the grid. What a
// point's MTU carries at most is known without noise: a full path at
// 1500 (within MinTol of the 9000-byte goodput) does not stop the
// search, and a full set at 9000 above what 1500 can carry is kept over
// it; where the connection's MSS stays (a peer at 1500) the MTU gains
// nothing and the cheaper point stays. A core's ceiling at one MTU says
// nothing of another's.
func TestMTUIsADimension(t *testing.T) {
	g9 := gp * 1500 / 1448 * 8948 / 9000
	for _, c := range []struct {
		name    string
		limit   attrib.Limit
		at1500  float64 // the baseline's rate
		mss9000 int     // the MSS the 9000-byte trials had (0: none ran)
		at9000  float64
		mtus    []int
		want    int // the MTU Next screens (0: done), and then Choose keeps
		keep    int
	}{
		{"full at 1500: 9000 is screened", attrib.PathFull, gp, 0, 0, []int{9000}, 9000, 0},
		{"no larger MTU: done", attrib.PathFull, gp, 0, 0, nil, 0, 0},
		{"a core at 1500: 9000 is screened", attrib.CPU, 0.5 * gp, 0, 0, []int{9000}, 9000, 0},
		{"9000 carries more than 1500 can", attrib.PathFull, gp, 8948, 0.995 * g9, []int{9000}, 0, 9000},
		{"the peer keeps the MSS at 1448", attrib.PathFull, gp, 1448, gp, []int{9000}, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pol()
			g := NewGrid(bdp, 32*mib, 32*mib, "cubic", []string{"cubic"}, p)
			g.MTUs = c.mtus
			pr := prior(false)
			pr.MTU, pr.MTUs = 1500, c.mtus
			base := g.Base
			var obs []Obs
			for _, d := range []Direction{Forward, Reverse} {
				obs = append(obs, full(base, d, c.limit, c.at1500)...)
				if c.mss9000 > 0 {
					p9 := base
					p9.MTU = 9000
					for _, o := range full(p9, d, attrib.PathFull, c.at9000) {
						o.MSS = c.mss9000
						obs = append(obs, o)
					}
				}
			}
			st := State{Grid: g, Model: Fit(pr, obs, p), Obs: obs}
			act := Next(st, p)
			if got := act.Point.MTU; c.want != 0 && (act.Done || act.Kind != Screen || got != c.want) || c.want == 0 && !act.Done {
				t.Fatalf("Next: %+v, want a screening at MTU %d (0: done)", act, c.want)
			}
			if pick, ok := Choose(st, p); !ok || pick.MTU != c.keep || pick.Rmem != base.Rmem || pick.Wmem != base.Wmem {
				t.Fatalf("Choose: %+v, want the host's buffers at MTU %d", pick, c.keep)
			}
		})
	}
}

// One trial of a set that the window held, where the set's others
// carried more (held by the send buffer), is the control's mode in a
// share of trials, not its limit at every buffer: BBR on the lab's
// 300 Mbit/s × 150 ms, 0.1% loss path once read 75 Mbit/s ("network",
// 41 retransmits) beside 133 and 121 held by the 4 MiB send buffer,
// and a limit at 75 capped every larger point: the search stopped at
// the baseline's 43% of the path. The mix (a third at 75, the rest as
// the buffers allow) sends it to a larger send buffer.
func TestAWindowModeIsAMix(t *testing.T) {
	const g = 289.6e6
	r := 150 * time.Millisecond
	b := int64(300e6 / 8 * r.Seconds())
	p := DefaultPolicy(3, 5*time.Second, 1500*time.Millisecond, r)
	gr := NewGrid(b, 32*mib, 4*mib, "bbr", []string{"bbr"}, p)
	pr := Prior{Goodput: g, Source: SourceLink, IdleRTT: r, BothEnds: true, Dirs: []Direction{Forward, Reverse}, Default: "bbr", RecvShare: 0.65, SendShare: 0.8}
	trial := func(d Direction, l attrib.Limit, x float64, retrans int64) Obs {
		o := held(gr.Base, d, Full, l, x)
		o.RTT, o.MinRTT, o.Lost, o.Capped = r, r, retrans, ""
		return o
	}
	obs := []Obs{
		trial(Forward, attrib.SendBuffer, 126.1e6, 54), trial(Forward, attrib.SendBuffer, 127.6e6, 49), trial(Forward, attrib.SendBuffer, 123.8e6, 60),
		trial(Reverse, attrib.Network, 75.2e6, 41), trial(Reverse, attrib.SendBuffer, 132.8e6, 39), trial(Reverse, attrib.SendBuffer, 121.4e6, 53),
	}
	m := Fit(pr, obs, p)
	act := Next(State{Grid: gr, Model: m, Obs: obs}, p)
	if act.Done || act.Point.Wmem <= gr.Base.Wmem {
		t.Fatalf("Next: %+v (window limits %+v), want a larger send buffer screened", act, m.Window)
	}
	if l := m.Window["bbr"][At{Dir: Reverse}]; math.Abs(l.Share-1.0/3) > 1e-9 || l.Rate != 75.2e6 {
		t.Errorf("the window's mode: %+v, want a third of the trials at 75.2 Mbit/s", l)
	}
}

// on is the grid's point with the given maxima (rungs at or above
// them) and control.
func on(g Grid, rmem, wmem int64, cc string) Point {
	r, w := g.Rmem[slices.IndexFunc(g.Rmem, func(v int64) bool { return v >= rmem })], g.Wmem[slices.IndexFunc(g.Wmem, func(v int64) bool { return v >= wmem })]
	return Point{Rmem: r, Wmem: w, CC: cc}
}

// A control with two modes (cubic leaving slow start early behind a
// shallow queue) is judged by their mix: a full set of three that
// missed the slow mode, where a screening at its key caught it, rates
// below a pacing control's full set at the path, and the choice is
// the pacing one, also where the slow screening ran at a profile's
// larger buffers (an early exit from slow start, which more buffer does
// not cure); without it the cheaper cubic point stays the choice. A lossless trial short of the path with the BDP in
// flight is no slow mode (noise, or a flow sharing the path).
func TestTwoModesAreJudgedByTheirMix(t *testing.T) {
	g := grid(pol())
	cu, bb := on(g, 2*bdp, 3*bdp/2, "cubic"), on(g, 2*bdp, 3*bdp/2, "bbr")
	fast := func(p Point, d Direction) []Obs {
		set := full(p, d, attrib.PathFull, gp)
		for i := range set {
			set[i].Inflight = bdp * 11 / 10
		}
		return set
	}
	slow := held(cu, Forward, Screen, attrib.Network, 0.7*gp)
	slow.Inflight = bdp * 7 / 10
	short := slow
	short.Rate, short.Inflight = 0.75*gp, bdp*11/10
	off := slow // a reference profile's, at buffers off the rungs
	off.Point = Point{Rmem: 8 * bdp, Wmem: 6 * bdp, CC: "cubic"}
	lossy := off
	lossy.Lost = 40
	// The same loss where the buffers held the window under the BDP: no
	// queue stood to overflow, so it tells nothing of the queue.
	heldLossy := lossy
	heldLossy.Point = Point{Rmem: 8 * bdp, Wmem: bdp / 2, CC: "cubic"}
	// A profile's trial that filled the path and overflowed the queue, its
	// payload in flight the BDP and the queue: under 2 BDPs, a queue BBR
	// overfills and behind which cubic's slow start may end early, which
	// cubic's three fast trials have not ruled out; over 2, a deep one.
	overflow := func(inflight int64) Obs {
		o := held(off.Point, Forward, Screen, attrib.PathFull, gp)
		o.Lost, o.Inflight = 400, inflight
		return o
	}
	base := append(append(fast(cu, Forward), fast(bb, Forward)...), fast(cu, Reverse)...)
	for _, c := range []struct {
		name  string
		extra []Obs
		want  Point
	}{
		{"no slow mode seen", nil, cu},
		{"the slow mode seen at the key", []Obs{slow}, bb},
		{"short with the BDP in flight", []Obs{short}, cu},
		// An early exit is the control's wherever its buffers let it
		// fill the path; one cut at a loss holds from where it was seen.
		{"the slow mode seen at a profile's larger buffers", []Obs{off}, bb},
		// Short of the path after losing with buffers for 6 BDPs: behind a
		// queue of a BDP or more the backoff would have kept it full, so
		// the queue is shallow, and cubic's three fast trials have not
		// ruled its slow mode out.
		{"a profile's slow trial with loss", []Obs{lossy}, bb},
		{"a lossy trial its buffers held under the BDP", []Obs{heldLossy}, cu},
		{"no slow mode seen behind a shallow queue", []Obs{overflow(bdp * 3 / 2)}, bb},
		{"no slow mode seen behind a deep queue", []Obs{overflow(bdp * 5 / 2)}, cu},
	} {
		obs := append(slices.Clone(base), c.extra...)
		st := State{Grid: g, Model: Fit(prior(false), obs, pol()), Obs: obs}
		if got, ok := Choose(st, pol()); !ok || got != c.want {
			x, _, _ := st.measured(cu, Forward)
			t.Errorf("%s: chose %+v, want %+v (cubic's rate %.3g, window limits %+v)", c.name, got, c.want, x, st.Model.Window)
		}
	}
	// The slow mode in cubic's own set, on a path whose trials scatter
	// 4% (the simulator's stock peer at 2 Gbit/s × 25 ms behind half a
	// BDP, seed 22: the baseline 0.93, 1.02 and 0.93 Gbit/s; cubic 1.89,
	// 1.93 and 1.42, one slow in five trials; BBR 1.93 and 1.90). The
	// pooled spread's tolerance, 7%,
	// would excuse cubic's mix, 5% under BBR's: but a mode a trial saw
	// is an event, not noise, and the choice is BBR.
	obs := slices.Concat(ratesAt(cu, Forward, attrib.PathFull, Full, bdp*11/10, 0.979, 1), ratesAt(cu, Forward, attrib.Network, Full, bdp*7/10, 0.734),
		ratesAt(cu, Forward, attrib.PathFull, Screen, bdp*11/10, 1, 0.99), ratesAt(bb, Forward, attrib.PathFull, Full, bdp*11/10, 0.999, 0.984),
		ratesAt(cu, Reverse, attrib.PathFull, Full, bdp*11/10, 0.93, 1, 0.97), ratesAt(g.Base, Forward, attrib.SendBuffer, Full, bdp/2, 0.481, 0.527, 0.481))
	st := State{Grid: g, Model: Fit(prior(false), obs, pol()), Obs: obs}
	if got, ok := Choose(st, pol()); !ok || got != bb {
		x, _, n := st.measured(cu, Forward)
		t.Errorf("the slow mode in the set: chose %+v, want BBR's %+v (cubic's mix %.3g, tolerance %.3f)", got, bb, x/gp, st.Model.TolN(Forward, n, 2, pol()))
	}
}

// A control's slow mode that the model holds it to (cubic behind a
// shallow queue, at the rule of succession's share) is an event, not
// noise: the noise lifts a full set's fast trials, at most to the path's
// goodput, and never its slow mode's cost. So a cubic set at the path
// whose mix falls 2% short of BBR's set (itself 4% under the path from
// noise, within the trials' 10% spread) is not on BBR's plateau, and without BBR's trials it is not at
// the aim (the simulator's stock peer at 2 Gbit/s × 25 ms behind half a
// BDP, seeds 5 and 11). The slow mode holds from the least buffers whose
// full set filled the path, also where the send buffer's learned share
// puts them under the BDP (seed 29). A set with no slow mode is within
// the noise of BBR's, and its cheaper cubic point stays the choice, as
// where the overflow's losses were this host's queue's drops.
func TestSlowModeIsNoNoise(t *testing.T) {
	g := grid(pol())
	cu, bb := on(g, 2*bdp, 3*bdp/2, "cubic"), on(g, 2*bdp, 3*bdp/2, "bbr")
	// a profile's trial that filled the path and overflowed the queue
	// with 1.5 BDPs in flight: a shallow queue
	overflow := held(Point{Rmem: 8 * bdp, Wmem: 6 * bdp, CC: "cubic"}, Forward, Screen, attrib.PathFull, gp)
	overflow.Lost, overflow.Inflight = 400, bdp*3/2
	dropped := overflow
	dropped.Drops = true
	base := slices.Concat(ratesAt(g.Base, Forward, attrib.SendBuffer, Full, bdp/2, 0.45, 0.5, 0.55), // a 10% spread
		ratesAt(cu, Forward, attrib.PathFull, Full, bdp*11/10, 0.99, 1, 1), ratesAt(cu, Reverse, attrib.PathFull, Full, bdp*11/10, 0.98, 1, 1))
	bbr := ratesAt(bb, Forward, attrib.PathFull, Full, bdp*11/10, 0.94, 0.95, 0.97, 0.96)
	for _, c := range []struct {
		name string
		obs  []Obs
		want Point
	}{
		{"behind a shallow queue", slices.Concat(base, []Obs{overflow}, bbr), bb},
		{"no sign of a shallow queue", slices.Concat(base, bbr), cu},
		{"the losses were this host's queue's drops", slices.Concat(base, []Obs{dropped}, bbr), cu},
	} {
		st := State{Grid: g, Model: Fit(prior(false), c.obs, pol()), Obs: c.obs}
		if got, ok := Choose(st, pol()); !ok || got != c.want {
			x, _, _ := st.measured(cu, Forward)
			t.Errorf("%s: chose %+v, want %+v (cubic's mix %.3g of the path, window limits %+v)", c.name, got, c.want, x/gp, st.Model.Window)
		}
	}
	obs := append(slices.Clone(base), overflow)
	st := State{Grid: g, Model: Fit(prior(false), obs, pol()), Obs: obs}
	if act := Next(st, pol()); act.Done || act.Point.CC != "bbr" {
		t.Errorf("without BBR's trials: next is %+v, want a BBR point (cubic's full set is short of the aim by its slow mode)", act)
	}
	// The send buffer's share learned from a noisy trial puts cubic's
	// buffers (1.5 BDPs of wmem) under the BDP, yet they filled the path:
	// the slow mode holds there.
	low := slices.Concat(obs, ratesAt(g.Base, Forward, attrib.SendBuffer, Full, bdp/2, 0.4))
	m := Fit(prior(false), low, pol())
	if m.allows(cu, Forward) >= m.bdp() {
		t.Fatalf("the test needs a send share that puts %d bytes of wmem under the BDP: allows %.3g, BDP %.3g", cu.Wmem, m.allows(cu, Forward), m.bdp())
	}
	// ... and its trials count among the n that filled the path without
	// it: one in 4 + 2 (its three and the profile's).
	if w, ok := m.Modes(cu, Forward); !ok || w.Share != 1.0/6 {
		t.Errorf("cubic's point that filled the path, its buffers under the BDP at the learned share: slow mode %+v (held %v), want it held in 1 of 6 trials", w, ok)
	}
}

// Seen from this host as the receiver (a stock peer sends no view of
// its own), a trial the receiver's view could not name once it ruled
// this host's window out is the sender's side's: where some trials of
// the set filled the path, it is a mode (a window limit with its share),
// not a ceiling; where it held every trial, it is a ceiling. The mode
// holds from the least buffer it was seen at: less, and this host's
// window holds the flow under the BDP (no queue built, nothing lost).
func TestTheSendersSideSeenFromTheReceiver(t *testing.T) {
	g := grid(pol())
	p := on(g, 2*bdp, g.Base.Wmem, "")
	unseen := func(x float64) Obs {
		o := held(p, Reverse, Full, attrib.Unknown, x)
		o.SenderView, o.Lost, o.RuledOut = false, -1, []attrib.Limit{attrib.ReceiverWindow}
		return o
	}
	fill := held(p, Reverse, Full, attrib.PathFull, gp)
	fill.SenderView, fill.Lost = false, -1
	two := Fit(prior(false), []Obs{unseen(0.5 * gp), unseen(0.5 * gp), fill}, pol())
	if l := two.Window["loss-based"][At{Dir: Reverse}]; two.Ceiling[At{Dir: Reverse}] != 0 || math.Abs(l.Share-2.0/3) > 1e-9 || l.Rate != 0.5*gp {
		t.Errorf("two modes: ceiling %.3g, window %+v; want none and two thirds at 0.5", two.Ceiling[At{Dir: Reverse}], l)
	}
	under := on(g, bdp, g.Base.Wmem, "")
	if got := two.Predict(p, Reverse); math.Abs(got-2*gp/3) > 1e6 {
		t.Errorf("predicted %.3g at the modes' buffers, want their mix", got)
	}
	if got, want := two.Predict(under, Reverse), 0.65*float64(under.Rmem)*8/rtt.Seconds(); math.Abs(got-want) > 1e6 {
		t.Errorf("predicted %.3g under the BDP, want the window's %.3g without the mode", got, want)
	}
	capped := Fit(prior(false), []Obs{unseen(0.5 * gp), unseen(0.5 * gp), unseen(0.5 * gp)}, pol())
	if c := capped.Ceiling[At{Dir: Reverse}]; c != 0.5*gp {
		t.Errorf("held in every trial: ceiling %.3g, want 0.5 of the path", c)
	}
}

// A full set stops early only where its trials so far measured a
// buffer's figure: a buffer of this host that acts there held them,
// without a loss, and they agree within MinTol.
func TestSettled(t *testing.T) {
	pol := DefaultPolicy(3, 5*time.Second, time.Second, 50*time.Millisecond)
	held := func(d Direction, l attrib.Limit, rate float64) Obs {
		return Obs{Dir: d, Kind: Full, Rate: rate, Limit: l}
	}
	sb, rw := attrib.SendBuffer, attrib.ReceiverWindow
	lossy := held(Forward, sb, 100)
	lossy.Lost = 4
	dropped := held(Forward, sb, 100)
	dropped.Drops = true
	unknown := held(Reverse, rw, 100)
	unknown.Lost = -1 // a stock peer's reverse: the receiver's view
	full := func(cc string, rate float64, retrans int64) Obs {
		o := held(Forward, attrib.PathFull, rate)
		o.Control, o.Lost = cc, retrans
		return o
	}
	recovering := full("bbr", 100, 0)
	recovering.Recovering = true
	for _, c := range []struct {
		name string
		set  []Obs
		both bool
		want bool
	}{
		{"two the send buffer held, 1% apart", []Obs{held(Forward, sb, 100), held(Forward, sb, 101)}, false, true},
		{"one trial", []Obs{held(Forward, sb, 100)}, false, false},
		{"5% apart", []Obs{held(Forward, sb, 100), held(Forward, sb, 105)}, false, false},
		{"one lost", []Obs{held(Forward, sb, 100), lossy}, false, false},
		{"this host's queue dropped", []Obs{held(Forward, sb, 100), dropped}, false, false},
		{"the path filled by an unknown control (a peer's own)", []Obs{held(Forward, attrib.PathFull, 100), held(Forward, attrib.PathFull, 100)}, false, false},
		{"the path filled by cubic (two modes behind a shallow queue)", []Obs{full("cubic", 100, 0), full("cubic", 100, 0)}, false, false},
		{"the path filled by bbr", []Obs{full("bbr", 100, 0), full("bbr", 101, 0)}, false, true},
		{"the path filled by bbr, lossy (overfilling a queue)", []Obs{full("bbr", 100, 4000), full("bbr", 101, 6000)}, false, false},
		{"the path filled by bbr, 4% apart", []Obs{full("bbr", 100, 0), full("bbr", 104, 0)}, false, false},
		{"the path filled by bbr, one in recovery", []Obs{full("bbr", 100, 0), recovering}, false, false},
		{"the buffer, then the path filled by bbr, 2% apart", []Obs{held(Forward, sb, 100), full("bbr", 102, 0)}, false, true},
		{"a congestion window held", []Obs{held(Forward, attrib.Network, 100), held(Forward, attrib.Network, 100)}, false, false},
		{"this host's window, from its receiver's view", []Obs{unknown, held(Reverse, rw, 101)}, false, true},
		{"the peer's send buffer (reverse, against a peer)", []Obs{held(Reverse, sb, 100), held(Reverse, sb, 100)}, false, false},
		{"either buffer, in the lab", []Obs{held(Reverse, sb, 100), held(Reverse, sb, 100)}, true, true},
	} {
		if got := Settled(c.set, c.both, pol); got != c.want {
			t.Errorf("%s: settled %v, want %v", c.name, got, c.want)
		}
	}
}

// A pacing control seen overfilling the queue at one send buffer
// overfills it at any smaller one that still lets more than a BDP and
// that queue in flight: the queue its trials stood in bounds where the
// evidence holds, not the buffer it was seen at.
func TestOverfillHoldsDownToTheQueue(t *testing.T) {
	q := 0.2 * float64(bdp)
	at := func(bdps float64) Point {
		return Point{Rmem: 40 * mib, Wmem: RoundUp(bdps * float64(bdp)), CC: "bbr"}
	}
	// A lossless cubic set: the path has no random loss.
	obs := full(Point{Rmem: 40 * mib, Wmem: 40 * mib, CC: "cubic"}, Forward, attrib.Network, 0.9*gp)
	for i := range 3 { // payload 1.6 BDPs at the prior's share 0.8
		o := held(at(2), Forward, Full, attrib.SendBuffer, 0.7*gp)
		o.Lost, o.Recovering = 60000+int64(i), true
		o.RTT = rtt + time.Duration(q*8/o.Rate*float64(time.Second))
		obs = append(obs, o)
	}
	m := Fit(prior(false), obs, pol())
	if x := m.Predict(at(1.75), Forward); x > 0.71*gp { // 1.4 BDPs in flight: more than a BDP and the queue
		t.Errorf("1.75 × BDP predicted %.0f: as if the queue were deeper than its trials stood in", x)
	}
	if x := m.Predict(at(1.4), Forward); x < 0.95*gp { // 1.12 BDPs: a BDP and part of the queue
		t.Errorf("1.4 × BDP predicted %.0f, held as if it overfilled", x)
	}
	if x := m.Predict(at(4), Forward); x < gp {
		t.Errorf("4 × BDP predicted %.0f: Gain + 1 BDPs hold what was sent beyond the holes", x)
	}
}

// At the edge of where it overfills a pacing control does so at times:
// the lab's BBR at 1.33 × BDP of tcp_wmem against a stock peer at 2
// Gbit/s × 25 ms behind half a BDP carried 1699 and 1557 Mbit/s with
// 20,155 and 38,056 retransmits and 1926 without one. The overfilling is
// its window's limit in the share of the trials there that no buffer of
// this host held (an event, not noise): its set's mix is short of the
// path, so it is not at the aim of a larger send buffer's screening at
// 98% of it, however far the baseline's scatter widens the tolerance.
// Where every trial there overfilled, it holds in all.
func TestOverfillIsAMode(t *testing.T) {
	g := grid(pol())
	edge, top := on(g, 0, bdp*4/3, "bbr"), on(g, 0, bdp*7/2, "bbr")
	over := func(x float64, lost int64) Obs {
		o := held(edge, Forward, Full, attrib.Network, x*gp)
		o.Capped, o.Lost, o.Inflight = attrib.SendBuffer, lost, bdp*21/20
		o.RTT = rtt + rtt/5
		return o
	}
	fast := held(edge, Forward, Full, attrib.PathFull, gp)
	fast.Inflight = bdp
	wide := ratesAt(g.Base, Forward, attrib.SendBuffer, Full, bdp/2, 0.4, 0.5, 0.6) // a 20% spread
	reverse := ratesAt(g.Base, Reverse, attrib.ReceiverWindow, Full, 0, 0.99, 1, 1)
	screen := held(top, Forward, Screen, attrib.PathFull, 0.98*gp) // overfilling too, its buffer holding what it lost
	screen.Inflight, screen.Lost = bdp*3/2, 2296
	for _, c := range []struct {
		name  string
		set   []Obs
		share float64
	}{
		{"two of three overfilled", []Obs{over(0.88, 20155), over(0.81, 38056), fast}, 2.0 / 3},
		{"all three overfilled", []Obs{over(0.88, 20155), over(0.81, 38056), over(0.85, 30000)}, 1},
	} {
		obs := slices.Concat(wide, reverse, c.set, []Obs{screen})
		st := State{Grid: g, Model: Fit(prior(false), obs, pol()), Obs: obs}
		if w, ok := st.Model.Modes(edge, Forward); !ok || math.Abs(w.Share-c.share) > 1e-9 {
			t.Errorf("%s: the overfilling holds %+v (%v), want in %.2f of the trials", c.name, w, ok, c.share)
		}
		aim := map[Direction]float64{Forward: 0.98, Reverse: 1} // the larger buffer's screening
		if st.atAim(edge, st.rate(edge, pol()), aim, 1, pol()) {
			t.Errorf("%s: the edge's set is at the aim of the larger buffer's screening", c.name)
		}
	}
}

// A full set every trial of which another's beat is apart from it
// whatever the pooled spread: a send buffer at the lossy send need
// scatters its own set (one loss costs a second of a trial), which
// widens the tolerance to MaxTol, yet the larger buffer's three trials
// all above its three are one chance in twenty. Where the sets overlap,
// the spread decides, and the cheaper point within it stays the choice.
func TestOutrankedIsApartWhateverTheSpread(t *testing.T) {
	g := grid(pol())
	lo, hi := on(g, 0, bdp*23/20, "bbr"), on(g, 0, bdp*3/2, "bbr") // reverse at the host's tcp_rmem: the baseline's
	set := func(p Point, xs ...float64) []Obs {
		var out []Obs
		for _, x := range xs {
			o := held(p, Forward, Full, attrib.SendBuffer, x*gp)
			o.Lost = 40
			out = append(out, o)
		}
		return out
	}
	base := append(set(g.Base, 0.18, 0.2, 0.22), full(g.Base, Reverse, attrib.PathFull, 0.9*gp)...)
	for _, c := range []struct {
		name string
		hi   []float64
		want Point
	}{
		{"every trial beaten", []float64{0.291, 0.293, 0.295}, hi},
		{"overlapping", []float64{0.26, 0.30, 0.32}, lo},
	} {
		obs := append(append(slices.Clone(base), set(lo, 0.25, 0.27, 0.29)...), set(hi, c.hi...)...)
		st := State{Grid: g, Model: Fit(prior(false), obs, pol()), Obs: obs}
		if got, ok := Choose(st, pol()); !ok || got != c.want {
			t.Errorf("%s: chose %+v, want %+v (spread %.3f, tolerance %.3f)", c.name, got, c.want, st.Model.Spread[Forward], st.Model.TolN(Forward, 3, 3, pol()))
		}
	}
}

// A pacing control has no slow mode: a screening its full set did not
// bear out teaches no window. On a 300 Mbit/s × 150 ms path with 0.1%
// loss (BBR), a reference profile's 1.25-s trial at 1.33 × BDP read 108
// Mbit/s held by the window (a timeout costs a short trial at a long
// RTT half its rate); its full set read 176–187, held by the send
// buffer. Two profiles at 6 and 95 × BDP read 238 and 220. Taken as one
// window limit from 1.33 × BDP up (their mean, 189), they rated every
// point at what 1.33 × BDP carried and the search stopped there; the
// search goes on to more send buffer.
func TestAPacingScreeningItsFullSetRefutedTeachesNoWindow(t *testing.T) {
	idle := 150 * time.Millisecond
	p := DefaultPolicy(3, 5*time.Second, 1500*time.Millisecond, idle)
	pr := Prior{Goodput: 289.6e6, Source: SourceLink, IdleRTT: idle, BothEnds: true, Dirs: []Direction{Forward, Reverse}, Default: "bbr", RecvShare: 0.65, SendShare: 0.8}
	g := NewGrid(5631974, 32*mib, 4*mib, "bbr", []string{"cubic", "bbr"}, p)
	trial := func(pt Point, d Direction, k Kind, rate, secs float64, l attrib.Limit, lost, inflight int64, rtt time.Duration) Obs {
		return Obs{Point: pt, Dir: d, Kind: k, Rate: rate * 1e6, Limit: l, Recovering: l == attrib.SendBuffer, SenderView: true, Lost: lost, Inflight: inflight,
			RTT: rtt, MinRTT: idle, MSS: 1448, Seconds: secs}
	}
	ms := time.Millisecond
	at := Point{Rmem: 32 * mib, Wmem: 7471104, CC: "bbr"}
	var obs []Obs
	for _, d := range []Direction{Forward, Reverse} {
		for _, x := range []float64{118.6, 117.9, 120.9} {
			obs = append(obs, trial(g.Base, d, Full, x, 5, attrib.SendBuffer, 57, 3.9e6, 164*ms))
		}
		for _, x := range []float64{187.3, 175.8, 184.5} {
			obs = append(obs, trial(at, d, Full, x, 5, attrib.SendBuffer, 80, 6.9e6, 189*ms))
		}
	}
	obs = append(obs, trial(at, Forward, Screen, 108.3, 1.25, attrib.Network, 12, 4354239, 155*ms),
		trial(Point{Rmem: 32 * mib, Wmem: 32 * mib, CC: "bbr"}, Forward, Screen, 238, 1.25, attrib.Network, 1513, 13098401, 200*ms),
		trial(Point{Rmem: 512 * mib, Wmem: 512 * mib, CC: "bbr"}, Forward, Screen, 219.8, 1.25, attrib.Network, 3321, 15586478, 220*ms))
	m := Fit(pr, obs, p)
	a := Next(State{Grid: g, Model: m, Obs: obs}, p)
	if a.Done || a.Point.Wmem <= at.Wmem {
		t.Errorf("next %+v (done %v, %v): want a point with more send buffer than %d (window limits %+v)", a.Point, a.Done, a.Why, at.Wmem, m.Window)
	}
}

// A trial carried more than a congestion window's limit, and so shows
// the control's other mode, only where it is above the limit's rate
// beyond the noise: a pacing control held at 0.6 of the path at every
// buffer (a short trial on a long path, a flow sharing it), whose
// trials at a larger send buffer read it a few percent higher and named
// that buffer, has one mode, and a still larger buffer is predicted at
// it, not at a mix with the path.
func TestAModeIsApartFromTheLimitBeyondTheNoise(t *testing.T) {
	g := grid(pol())
	lo, hi, top := on(g, 0, bdp*3/2, "bbr"), on(g, 0, bdp*2, "bbr"), on(g, 0, bdp*3, "bbr")
	obs := slices.Concat(ratesAt(lo, Forward, attrib.Network, Full, bdp*6/10, 0.59, 0.6, 0.61),
		ratesAt(hi, Forward, attrib.SendBuffer, Full, bdp*6/10, 0.6, 0.62, 0.63),
		ratesAt(g.Base, Reverse, attrib.ReceiverWindow, Full, 0, 0.99, 1, 1))
	pr := prior(false)
	pr.Default = "bbr"
	m := Fit(pr, obs, pol())
	w, ok := m.Modes(top, Forward)
	if !ok || w.Share != 1 {
		t.Fatalf("the window's limit at %d of send buffer: %+v (%v), want it in every trial", top.Wmem, w, ok)
	}
	if x := m.Predict(top, Forward); x > 0.61*(1+pol().MinTol)*gp {
		t.Errorf("predicted %.3g at %d of send buffer, want the limit's %.3g", x, top.Wmem, w.Rate)
	}
}
