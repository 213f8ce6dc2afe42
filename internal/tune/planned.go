package tune

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/view"
)

// planned is the model-driven search: internal/plan decides each trial
// from a model every trial updates (Next) and the point to keep
// (Choose); this carries the trials out. The baseline's full set is the
// first observation, and seed are candidates measured before (the
// reference profiles). It returns the choice (the baseline where no
// point has a full set) and its full set, which is its verification:
// per direction the full sets at its key, its own or, where the choice
// changes no knob that acts on a direction, another point's (nil: none);
// and why the search stopped.
func (r *runner) planned(ctx context.Context, base *Candidate, seed []sampled) (*Candidate, *Candidate, plan.Stop, error) {
	res, pol := r.res, r.policy()
	avail, _ := r.env.Read([]string{"net.ipv4.tcp_available_congestion_control"})
	grid := plan.NewGrid(res.BDP, base.RmemMax, base.WmemMax, r.congestion(), strings.Fields(avail["net.ipv4.tcp_available_congestion_control"]), pol)
	grid.Idle, grid.Queue, grid.QueueCost = base.Idle, r.queues.knob, r.queues.cost
	// A maximum that acts on a measured direction the search does not
	// judge (the peer's side holds it) is not lowered: no trial would
	// say what that costs there.
	for _, k := range []struct {
		knob  plan.Knob
		rungs *[]int64
		host  int64
	}{{plan.Rmem, &grid.Rmem, base.RmemMax}, {plan.Wmem, &grid.Wmem, base.WmemMax}} {
		if d := r.unjudged(k.knob); pol.AllowLower && d != "" {
			*k.rungs = slices.DeleteFunc(*k.rungs, func(v int64) bool { return v < k.host })
			res.Steps = append(res.Steps, fmt.Sprintf("%s is not lowered (--allow-lower): it acts on %s, which the peer's side holds and the search does not judge", k.knob, d))
		}
	}
	if r.jumbo.larger > 0 {
		grid.MTUs = []int{r.jumbo.larger}
	}
	r.pr.Stage("searching: a model of the path predicts where each setting gets (%s × %s = %s; rungs %.2f× apart up to %g × BDP; congestion controls %s); every trial updates it",
		rate(res.Rate), units.FormatDuration(res.RTT), size(res.BDP), pol.Rung, pol.TopBDP, strings.Join(grid.CCs, ", "))
	sp := plan.Point{Rmem: base.RmemMax, Wmem: base.WmemMax, CC: grid.Default}
	cands := map[plan.Point]*Candidate{sp: base}
	all := append([]sampled{{sp, base, plan.Full}}, seed...)
	var ob observed
	for _, a := range all {
		ob.add(a.c, a.p, a.kind, 0)
	}
	var m plan.Model
	var stop plan.Stop
	for {
		obs := ob.at(res.Goodput)
		m = plan.Fit(r.prior(), obs, pol)
		st := plan.State{Grid: grid, Model: m, Obs: obs, Spent: r.spent()}
		act := plan.Next(st, pol)
		if act.Done {
			res.Steps, stop = append(res.Steps, stopLine(act, m)), act.Why
			break
		}
		c := cands[act.Point]
		if c == nil {
			c = r.pointCandidate(act.Point, grid, m)
			cands[act.Point], all = c, append(all, sampled{act.Point, c, plan.Full})
		}
		n, what, dirs := 1, "screen", act.Dirs
		switch {
		case act.Confirm:
			n, what = r.o.Trials, "full set (confirming its screening's limit)"
		case act.Kind == plan.Full:
			// A full set runs the directions whose key lacks one: also
			// one this host does not control, for the report (its
			// drift), never judged.
			n, what = r.o.Trials, "full set"
			dirs = append(dirs, slices.DeleteFunc(r.uncontrolled(), func(d Direction) bool { return st.FullAt(act.Point, d) })...)
		}
		res.Steps = append(res.Steps, fmt.Sprintf("%s: %s — %s", what, c.Name, predicted(act, m)))
		if act.Kind == plan.Full && !act.Confirm {
			r.pr.Stage("full set of %s: %d trials per direction (the verification, if it is chosen)", c.Name, n)
		}
		from := len(c.Trials)
		for _, d := range dirs {
			if err := r.trials(ctx, c, n, []Direction{d}, TrialSpec{Congestion: c.Congestion}); err != nil {
				return nil, nil, stop, err
			}
		}
		ob.add(c, act.Point, act.Kind, from)
	}
	st := plan.State{Grid: grid, Model: m, Obs: ob.at(res.Goodput), Spent: r.spent()}
	pick, ok := plan.Choose(st, pol)
	if !ok {
		pick = sp
	}
	choice := cands[pick]
	if choice == nil { // its directions' full sets ran at points with the same knobs acting
		choice = r.pointCandidate(pick, grid, m)
		cands[pick] = choice
	}
	r.describe(cands, choice, st, pol)
	if choice.Congestion != "" {
		r.defaultCC(choice)
	}
	v := r.fullSet(choice, pick, all, m)
	r.mtuOutcome(v)
	if !r.o.AllowLower {
		r.res.NotLowered = r.aboveNeed(base, choice, m, pol)
	}
	peer, err := r.peerLever(ctx, v)
	if err != nil {
		return nil, nil, stop, err
	}
	r.explain(v, pol.TopBDP, peer)
	return choice, v, stop, nil
}

// fullSet is the verification of choice, at point p: per direction, the
// full sets' trials at p's key there (trials at points with the same
// knobs acting on a direction sample one thing: Choose judged p by
// them).
func (r *runner) fullSet(choice *Candidate, p plan.Point, all []sampled, m plan.Model) *Candidate {
	v := &Candidate{ID: "verify", Name: "verification (the choice's full set)", Source: choice.Name, Settings: choice.Settings, Origin: OriginVerify, Congestion: choice.Congestion}
	for _, d := range r.o.Directions {
		for _, a := range all {
			if a.kind == plan.Full && m.Alike(a.p, p, d) {
				v.Trials = append(v.Trials, slices.DeleteFunc(slices.Clone(a.c.Trials), func(t Trial) bool { return t.Direction != d || t.Screening })...)
			}
		}
	}
	v.RmemMax, v.WmemMax, v.RmemDefault, v.WmemDefault, v.Memory, v.Idle, v.Cost = choice.RmemMax, choice.WmemMax, choice.RmemDefault, choice.WmemDefault, choice.Memory, choice.Idle, choice.Cost
	v.summarize(directionsOf(v.Trials), nil)
	return v
}

// policy is the search's numbers for this run: its trials, their omit
// and the RTT, --budget and --allow-lower.
func (r *runner) policy() plan.Policy {
	pol := plan.DefaultPolicy(r.o.Trials, r.o.Time, r.omit, r.res.RTT)
	if r.o.Budget > 0 {
		pol.Budget = r.o.Budget
	}
	pol.AllowLower = r.o.AllowLower
	return pol
}

// aboveNeed lists the buffer maxima the choice keeps at the host's
// value although the model needs less of them (by more than a rung):
// the grid's floor is the host's maxima, so the search never lowers
// them, and the report says what the path needed.
func (r *runner) aboveNeed(base, choice *Candidate, m plan.Model, pol plan.Policy) []NotLowered {
	var out []NotLowered
	for _, k := range []struct {
		key       string
		knob      plan.Knob
		host, now int64
	}{{keyRmem, plan.Rmem, base.RmemMax, choice.RmemMax}, {keyWmem, plan.Wmem, base.WmemMax, choice.WmemMax}} {
		need := m.Need(k.knob, cmp.Or(choice.Congestion, r.congestion()), r.res.BDP, pol)
		if need > 0 && k.now == k.host && float64(need)*pol.Rung < float64(k.host) {
			out = append(out, NotLowered{Key: k.key, Current: k.host, Chosen: need})
		}
	}
	return out
}

// prior is what the model knows before the search's trials: the path
// (its goodput as it stands now: an estimated one rises with the
// trials), the directions this host controls, and the window model's
// shares at the trials' MSS.
func (r *runner) prior() plan.Prior {
	m := r.model.ForMSS(int64(r.mss))
	var mtus []int
	if r.jumbo.larger > 0 {
		mtus = []int{r.jumbo.larger}
	}
	return plan.Prior{Goodput: r.res.Goodput, Source: r.source, IdleRTT: r.res.RTT, BothEnds: r.env.BothEnds(), MTU: r.jumbo.found, MTUs: mtus,
		Dirs: slices.Clone(r.res.Controllable), Default: r.congestion(), RecvShare: m.Recv, SendShare: m.Send}
}

// spent is the trial time so far: each trial's omit, its own time and
// set-up round trips, as the policy counts them, the rate probes'
// included. The reference profiles' short trials are the search's
// observations and count; the full ones --compare=full asks for are the
// report's, outside it.
func (r *runner) spent() time.Duration {
	pol := r.policy()
	d := r.probes
	for _, c := range r.res.Candidates {
		if c.Origin == OriginProfile && r.o.Compare == CompareFull {
			continue
		}
		for _, t := range c.Trials {
			d += pol.CostOf(cmp.Or(t.planned, time.Duration(t.Seconds*float64(time.Second)), pol.Time), r.res.RTT)
		}
	}
	return d
}

// unjudged is a measured direction knob k acts on that the search does
// not judge ("": none).
func (r *runner) unjudged(k plan.Knob) Direction {
	for _, d := range r.uncontrolled() {
		if slices.Contains(plan.Acts(k, r.env.BothEnds()), d) {
			return d
		}
	}
	return ""
}

// observed is the search's observations, each with the trial it is
// of: an estimated goodput rises with the trials, and every trial is
// judged at the goodput the model holds (a trial judged full at a lower
// estimate may be short of the path).
type observed struct {
	obs []plan.Obs
	of  []trialAt
}

type trialAt struct {
	c *Candidate
	i int
}

// add observes c's trials from index from on at point p, as kind k.
func (o *observed) add(c *Candidate, p plan.Point, k plan.Kind, from int) {
	for i := from; i < len(c.Trials); i++ {
		o.obs, o.of = append(o.obs, observation(c.Trials[i], p, k)), append(o.of, trialAt{c, i})
	}
}

// at is the observations with every trial judged at goodput g.
func (o *observed) at(g float64) []plan.Obs {
	for i, w := range o.of {
		t := &w.c.Trials[w.i]
		if a := t.judgedAt(); a >= 0 && a != g {
			t.rejudge(g)
			o.obs[i] = observation(*t, o.obs[i].Point, o.obs[i].Kind)
		}
	}
	return o.obs
}

// observation is trial t at point p, as kind k.
func observation(t Trial, p plan.Point, k plan.Kind) plan.Obs {
	o := plan.Obs{Point: p, Dir: t.Direction, Kind: k, Rate: t.BitsPerSecond, Limit: attrib.Limit(t.Limit),
		Capped: attrib.Limit(t.Capped), Recovering: t.Recovering, SenderView: view.Counter(t.CountedBy) == view.Sender,
		Lost: t.lost(), RTT: time.Duration(t.RTTus) * time.Microsecond, MinRTT: time.Duration(t.MinRTTus) * time.Microsecond,
		MSS: t.MSS, Seconds: t.Seconds, Core: t.Core != nil, Drops: t.Drops != nil, Inflight: t.Inflight, Window: t.Window}
	for _, l := range t.RuledOut {
		o.RuledOut = append(o.RuledOut, attrib.Limit(l))
	}
	return o
}

// pointCandidate is the candidate at grid point p: its maxima (with the
// current min and default), its congestion control per socket where it
// is not the default, and the host queues' raise where p has it; each
// raised maximum's reason is the model's need.
func (r *runner) pointCandidate(p plan.Point, g plan.Grid, m plan.Model) *Candidate {
	why := map[string]string{}
	for _, k := range []struct {
		key     string
		knob    plan.Knob
		v, base int64
	}{{keyRmem, plan.Rmem, p.Rmem, g.Base.Rmem}, {keyWmem, plan.Wmem, p.Wmem, g.Base.Wmem}} {
		if k.v == k.base {
			continue
		}
		share, learned := m.ShareOf(k.knob, p.CC)
		src := "learned from the trials a buffer held"
		if !learned {
			src = "the window model's, for an application's writer"
		}
		var dirs []string
		for _, d := range plan.Acts(k.knob, m.BothEnds) {
			if slices.Contains(m.Dirs, d) {
				dirs = append(dirs, fmt.Sprintf("%s %s", d, rate(m.Target(d))))
			}
		}
		why[k.key] = fmt.Sprintf("%s: the cheapest rung at which the model (buffer share %.2f, %s) carries the target (%s) with the noise as headroom",
			r.multiple(k.v), share, src, strings.Join(dirs, ", "))
	}
	c := r.candidate(p.Rmem, p.Wmem, why)
	if p.CC != g.Default {
		c.Congestion, c.Name = p.CC, c.Name+" with "+p.CC
	}
	if p.Queue != "" {
		c.Settings, c.Name = append(c.Settings, r.queues.settings...), c.Name+", host queues raised"
	}
	if p.MTU != 0 {
		c.Settings, c.Name = append(c.Settings, r.mtuSettings()...), fmt.Sprintf("%s, MTU %d", c.Name, p.MTU)
	}
	c.resolve(r.current)
	r.res.Candidates = append(r.res.Candidates, c)
	return c
}

// describe gives each of the search's candidates its status, for the
// report: what its trials reached against the best full set.
func (r *runner) describe(cands map[plan.Point]*Candidate, choice *Candidate, st plan.State, pol plan.Policy) {
	for _, c := range cands {
		if c.Baseline || len(c.Trials) == 0 && c != choice {
			continue
		}
		switch {
		case c == choice:
			c.Status = "chosen: the cheapest point whose full set is within the noise of the best in every direction this host controls"
		case slices.ContainsFunc(c.Trials, func(t Trial) bool { return !t.Screening }):
			c.Status = fmt.Sprintf("full set: %.0f%% of the target", 100*r.targetShare(c, st.Model))
		default:
			c.Status = fmt.Sprintf("screened: %.0f%% of the target", 100*r.targetShare(c, st.Model))
		}
	}
}

// targetShare is c's worst median over the controlled directions it was
// measured in, as a share of the model's target there.
func (r *runner) targetShare(c *Candidate, m plan.Model) float64 {
	f := 1.0
	for _, d := range r.res.Controllable {
		if s := c.Summary[d]; s.N > 0 && m.Target(d) > 0 {
			f = min(f, s.Median/m.Target(d))
		}
	}
	return f
}

// defaultCC makes a congestion control the choice runs per socket its
// setting where this host accepts it as its default (else -C stays
// per socket, and its status says so).
func (r *runner) defaultCC(c *Candidate) {
	kv := []apply.KV{{Key: keyCC, Value: c.Congestion}}
	ok, _, err := r.env.Split(kv)
	if err != nil || len(ok) != 1 {
		return
	}
	undo, err := r.env.Set(kv)
	if err != nil {
		c.Status += fmt.Sprintf("; this host refuses %s as its default (%v): use it per socket (-C %s)", c.Congestion, err, c.Congestion)
		return
	}
	if err := undo(); err != nil {
		c.Status += fmt.Sprintf("; restoring the default congestion control failed: %v", err)
		return
	}
	c.Settings = append(slices.Clone(c.Settings), Setting{Key: keyCC, Value: c.Congestion, Reason: fmt.Sprintf("its full set with %s per socket was the cheapest on the plateau", c.Congestion)})
	c.resolve(r.current)
}

// explain names, for every direction the choice leaves short of the
// path, what holds it (its median trial's verdict) and the command for
// the host that can act: the peer's buffer, or the peer's side where
// this host's receiver view rules its own window out or its buffer
// already allows the goodput; this host's, where its knob is at the
// grid's top.
func (r *runner) explain(choice *Candidate, top float64, peer map[Direction]peerCC) {
	for _, d := range r.o.Directions {
		t, ok := medianTrial(choice, d)
		if !ok || r.res.Goodput <= 0 || attrib.Full(choice.Summary[d].Median, r.res.Goodput) {
			continue
		}
		k, ok := r.leverOf(d, t)
		p, tried := peer[d]
		switch {
		case !ok:
			r.res.Steps = append(r.res.Steps, fmt.Sprintf("%s stays at %s, short of the path (%s): %s", d, rate(choice.Summary[d].Median), rate(r.res.Goodput), t.Verdict))
			if tried {
				r.res.PeerAdvice = append(r.res.PeerAdvice, fmt.Sprintf("%s, sent by the peer: %s", d, p.finding(d, r.env.Peer())))
			}
		case k.peer:
			r.peerAdvice(d, k, t)
		case attrib.Limit(t.Limit) == attrib.Unknown:
			var pp *peerCC
			if tried {
				pp = &p
			}
			r.unseenPeer(d, k, map[string]int64{keyRmem: choice.RmemMax, keyWmem: choice.WmemMax}[k.key], t, pp)
		default:
			r.res.Steps = append(r.res.Steps, fmt.Sprintf("%s stays at %s, short of the path (%s): %s; %s",
				d, rate(choice.Summary[d].Median), rate(r.res.Goodput), t.Verdict, r.whyNotMore(d, k.key, choice, top)))
		}
	}
}

// whyNotMore says why the search left this host's buffer key where it
// holds direction d: at the grid's top; or what the best point measured
// with more of it read there, at more memory (the choice is the
// cheapest point whose full set is within the noise of the best); or
// that none was measured.
func (r *runner) whyNotMore(d Direction, key string, choice *Candidate, top float64) string {
	of := func(c *Candidate) int64 { return map[string]int64{keyRmem: c.RmemMax, keyWmem: c.WmemMax}[key] }
	name := strings.TrimPrefix(key, "net.ipv4.")
	if float64(of(choice)) >= top*float64(r.res.BDP)*(1-1e-3) {
		return fmt.Sprintf("this host's %s max is %s, the grid's top", name, r.multiple(of(choice)))
	}
	var best *Candidate
	for _, c := range r.res.Candidates {
		if c.Origin == OriginSearch && of(c) > of(choice) && c.Summary[d].N > 0 && (best == nil || c.Summary[d].Median > best.Summary[d].Median) {
			best = c
		}
	}
	if best == nil {
		return fmt.Sprintf("no point with more %s than %s was measured: the model rated none higher, or the budget ended first", name, r.multiple(of(choice)))
	}
	return fmt.Sprintf("with more %s the best measured was %s (%s, %d trial(s)), at more memory", name, rate(best.Summary[d].Median), best.Name, best.Summary[d].N)
}

// predicted says what the model expects of an action's point in the
// directions the action measures (another direction's figure there is
// what its own key measured, which the action does not run again).
func predicted(act plan.Action, m plan.Model) string {
	var parts []string
	for _, d := range act.Dirs {
		part := fmt.Sprintf("%s %s of %s", d, rate(act.Predicted[d]), rate(m.Target(d)))
		if l, ok := m.Modes(act.Point, d); ok && l.Share < 1 {
			part += fmt.Sprintf(" (its control's slow mode at %s in %.0f%% of trials)", rate(l.Rate), 100*l.Share)
		}
		parts = append(parts, part)
	}
	return "the model predicts " + strings.Join(parts, ", ")
}

// stopLine says why the search stopped.
func stopLine(act plan.Action, m plan.Model) string {
	switch act.Why {
	case plan.StopChosen:
		return "stop: the cheapest point the model rates at the aim has its full set"
	case plan.StopBudget:
		s := "stop: the budget's time is spent (the final full set's is kept aside)"
		if act.Untried > 0 {
			s += fmt.Sprintf("; %d point(s) the model rated at the aim were left untried", act.Untried)
		}
		return s
	}
	return "stop: no point left that the model rates at the aim"
}
