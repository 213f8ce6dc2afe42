package tune

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/units"
)

// compare measures the reference profiles: what each would set, and
// one short trial each in the first judged direction (CompareFull: full
// trials in every direction; CompareNone: none). They are never chosen;
// their trials are the search's first observations (profilePoints), and
// rank describes them once the search is done. It returns those it
// measured.
func (r *runner) compare(ctx context.Context) ([]*Candidate, error) {
	res := r.res
	cands, err := Profiles(GenInput{Rate: res.Rate, RTT: res.RTT, Kernel: r.current[keyRelease]})
	if err != nil {
		return nil, err
	}
	active, err := r.prepare(cands)
	if err != nil {
		return nil, err
	}
	if len(active) == 0 {
		return nil, nil
	}
	// Each trial costs its omitted start (10 × RTT) and five or six round
	// trips of iperf3's protocol: at a satellite's RTT the comparison
	// would add minutes.
	pol := r.policy()
	long := res.RTT >= pol.LongRTT && r.o.Compare == CompareShort
	if r.o.Compare == CompareNone || long {
		why := "--compare none"
		if long {
			why = fmt.Sprintf("at an RTT of %s each trial costs %s (--compare full measures them)", units.FormatDuration(res.RTT), secs(r.omit+time.Second+6*res.RTT))
		}
		// Listed with what they would set, unmeasured.
		for _, c := range active {
			c.Status = "not measured: " + why
		}
		res.Steps = append(res.Steps, "reference profiles not measured: "+why)
		return nil, nil
	}
	dirs, n, what, spec := r.profileDirs(), 1, "one short trial each", TrialSpec{Time: pol.ShortTime}
	if r.o.Compare == CompareFull {
		n, what, spec = r.o.Trials, "full trials", TrialSpec{}
	}
	if r.o.Compare == CompareShort {
		// Short trials are the search's observations, within its
		// budget: as many as leave a full set's time.
		each := pol.CostOf(spec.Time, res.RTT)
		full := pol.SetsCost(len(res.Controllable), res.RTT)
		fit := max(0, min(len(active), int((pol.Budget-r.spent()-full)/each)))
		for _, c := range active[fit:] {
			c.Status = fmt.Sprintf("not measured: its short trial (%s) would not leave the search's final full set its time in the budget (--budget %s)", secs(each), secs(pol.Budget))
		}
		if fit < len(active) {
			res.Steps = append(res.Steps, fmt.Sprintf("reference profiles: %d of %d measured within the budget (--budget %s)", fit, len(active), secs(pol.Budget)))
		}
		active = active[:fit]
		if fit == 0 {
			return nil, nil
		}
	}
	r.pr.Stage("reference profiles (%s): %d to measure; their trials are the search's first observations", what, len(active))
	for _, c := range active {
		if err := r.trials(ctx, c, n, dirs, spec); err != nil {
			return nil, err
		}
	}
	return active, nil
}

// rank says, of each measured profile, its share of the best the
// search's points (and the baseline) reached in the direction it was
// measured in, and what keeps a cautioned one from being chosen.
func (r *runner) rank(active []*Candidate) {
	res := r.res
	if len(active) == 0 {
		return
	}
	dirs := res.Controllable[:1]
	best := 0.0
	for _, c := range res.Candidates {
		if c.Origin == OriginSearch || c.Baseline {
			best = max(best, c.Summary[dirs[0]].Median)
		}
	}
	for _, c := range active {
		c.Status = fmt.Sprintf("reference: %.0f%% of the search's best in %s", 100*c.Summary[dirs[0]].Median/max(best, 1), dirs[0])
		if r.o.Compare == CompareShort {
			c.Status += " (short trial)"
		}
		var cautioned []string
		for _, st := range c.Settings {
			if cautionOf(st) != "" {
				cautioned = append(cautioned, st.Key+" = "+norm(st.Value))
			}
		}
		if len(cautioned) > 0 {
			c.Status += "; never chosen: sets " + strings.Join(cautioned, ", ")
		}
	}
}

// sampled is a candidate whose trials observe a point of the grid's
// knobs, as kind.
type sampled struct {
	p    plan.Point
	c    *Candidate
	kind plan.Kind
}

// profilePoints is the measured profiles as observations of the grid's
// knobs: a profile that sets nothing beyond the buffers and the
// congestion control is a point (off the grid's rungs, screened); a gain
// from any other key is reported, not chased.
func (r *runner) profilePoints(active []*Candidate) []sampled {
	var out []sampled
	for _, c := range active {
		cc, onGrid := r.congestion(), true
		for _, s := range c.Settings {
			switch s.Key {
			case keyRmem, keyWmem, "net.core.rmem_max", "net.core.wmem_max":
			case keyCC:
				cc = norm(s.Value)
			default:
				onGrid = false
			}
		}
		kind := plan.Screen
		if r.o.Compare == CompareFull {
			kind = plan.Full
		}
		if onGrid && len(c.Trials) > 0 {
			out = append(out, sampled{plan.Point{Rmem: c.RmemMax, Wmem: c.WmemMax, CC: cc}, c, kind})
		}
	}
	return out
}

// prepare resolves, filters and de-duplicates the profiles, appending
// them all to the result; it returns those to run.
func (r *runner) prepare(cands []*Candidate) ([]*Candidate, error) {
	var active []*Candidate
	// seen: a whole signature's candidate; seenThere: that of the
	// settings acting where the trials run ("" none differs: the
	// baseline's trials measure it).
	seen, seenThere := map[string]string{}, map[string]string{"": "baseline"}
	for _, c := range r.res.Candidates {
		seen[c.signature(r.current)] = c.ID
	}
	dirs := r.profileDirs()
	there := func(key string) bool {
		return slices.ContainsFunc(actsOn(key, r.env.BothEnds()), func(d Direction) bool { return slices.Contains(dirs, d) })
	}
	for _, c := range cands {
		ok, skipped, err := r.env.Split(c.KVs())
		if err != nil {
			return nil, err
		}
		c.Skipped = skipped
		var keep []Setting
		for _, s := range c.Settings {
			for _, kv := range ok {
				if kv.Key == s.Key {
					keep = append(keep, s)
				}
			}
		}
		c.Settings = keep
		c.resolve(r.current)
		r.res.Candidates = append(r.res.Candidates, c)
		sig, e := c.signature(r.current), r.everySocket(c)
		sigThere := c.signatureOf(r.current, there)
		switch {
		case len(c.Settings) == 0:
			c.Status = "nothing applicable here"
		case c.sameAs(r.current):
			c.SameAs, c.Status = "baseline", "identical to the current settings"
		case seen[sig] != "":
			c.SameAs, c.Status = seen[sig], "identical to "+seen[sig]
		case seenThere[sigThere] != "":
			// Its trials would measure what another's measure: what it
			// sets beyond acts elsewhere, or on no TCP transfer.
			c.SameAs = seenThere[sigThere]
			same := c.SameAs + " sets"
			if c.SameAs == "baseline" {
				same = "the current settings set"
			}
			c.Status = fmt.Sprintf("not measured: where its trials would run (%s) it sets what %s: %s", joinDirs(dirs), same, r.elsewhere(c, there))
		case !r.env.BothEnds() && e.n > 0:
			c.Status = fmt.Sprintf("not measured on a live host: %s = %s gives every socket %s, more than one busy connection may reach here now (%s max %s)",
				e.key, norm(e.value), size(e.n), strings.TrimPrefix(e.buf, "net.ipv4."), size(e.limit))
		default:
			seen[sig], seenThere[sigThere] = c.ID, c.ID
			active = append(active, c)
		}
	}
	return active, nil
}

// profileDirs is where the profiles' trials run: the first direction
// this host controls, or every direction with --compare full.
func (r *runner) profileDirs() []Direction {
	if r.o.Compare == CompareFull {
		return r.o.Directions
	}
	return r.res.Controllable[:1]
}

// actsOn is where a setting acts, from its knob's side in the catalogue
// (a link key by its pattern, link.*.mtu), as plan.On reads it: this
// host's send side (tcp_wmem, its default congestion control, an
// interface's transmit queue) on what it sends, forward; its receive
// side (tcp_rmem, the receive backlog) on what it receives, reverse; the
// MTU and negotiated options on both; a cap on explicit buffer requests
// on none. In the lab both ends take every setting. A key the catalogue
// does not have acts on both.
func actsOn(key string, bothEnds bool) []Direction {
	name := key
	if linkset.Is(key) {
		name = linkset.Pattern(key)
	}
	k, _ := knobs.Lookup("linux", name)
	return plan.On(k.Acts, bothEnds)
}

// elsewhere says where c's settings that differ from the current ones
// but do not act there (where its trials run) act instead.
func (r *runner) elsewhere(c *Candidate, there func(string) bool) string {
	var parts []string
	for _, s := range c.Settings {
		if there(s.Key) || norm(r.current[s.Key]) == norm(s.Value) {
			continue
		}
		where := "on no TCP transfer whose buffers autotune"
		if ds := actsOn(s.Key, r.env.BothEnds()); len(ds) > 0 {
			where = "only on " + joinDirs(ds)
		}
		parts = append(parts, s.Key+" acts "+where)
	}
	return strings.Join(parts, ", ")
}

func joinDirs(ds []Direction) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = string(d)
	}
	return strings.Join(s, " and ")
}

// perSocket is a buffer every socket takes (a minimum or a default):
// the setting, its size n, and the maximum limit of the host's buffer buf
// it exceeds (n 0: none does).
type perSocket struct {
	key, value, buf string
	n, limit        int64
}

// everySocket is c's first minimum or default buffer, which every socket
// made during its trial takes, above what one busy connection may reach
// on the host now: such a trial is not for a live host (the search moves
// maxima only; a lab's namespaces are thrown away).
func (r *runner) everySocket(c *Candidate) perSocket {
	for _, s := range c.Settings {
		f, buf := strings.Fields(s.Value), keyRmem
		switch s.Key {
		case keyRmem, keyWmem:
			buf, f = s.Key, f[:min(2, len(f))]
		case "net.core.wmem_default":
			buf = keyWmem
		case "net.core.rmem_default":
		default:
			continue
		}
		limit := maxOf(r.current[buf])
		for _, v := range f {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && limit > 0 && n > limit {
				return perSocket{key: s.Key, value: s.Value, buf: buf, n: n, limit: limit}
			}
		}
	}
	return perSocket{}
}

// judge is the last safety net over the choice's verification v (its
// full set) against the baseline base. The search already chose v's
// point over the baseline by plan's one noise rule (the baseline fell
// short of the best full set beyond the noise), on these same trials:
// judge does not ask again whether v beat the baseline, which a second
// rule would answer otherwise whenever the two disagree on the noise. It
// rolls the choice back only where a measured direction a changed
// setting acts on (acts; nil: every direction) is worse by more than pol.Worse
// with the trials apart: a cost the change can cause. A direction no
// changed setting acts on never rejects a choice: what it moved is
// drift, and the reason says so.
func judge(base, v *Candidate, dirs []Direction, acts map[Direction]bool, pol plan.Policy) (bool, string) {
	moved, worseIn, drift := "", "", ""
	for _, d := range dirs {
		b, x := base.Summary[d], v.Summary[d]
		if b.N == 0 || x.N == 0 {
			continue
		}
		r := x.Median / b.Median
		if acts != nil && !acts[d] {
			if r < 1-pol.Worse || r > 1+pol.Drift {
				drift += fmt.Sprintf(" %s %.2f×", d, r)
			}
			continue
		}
		moved += fmt.Sprintf(" %s %.2f×", d, r)
		if r < 1-pol.Worse && !stats.Overlaps(rangeOf(b), rangeOf(x)) {
			worseIn += fmt.Sprintf(" %s %.2f×", d, r)
		}
	}
	if drift != "" {
		drift = "; drift where no changed setting acts:" + drift
	}
	if worseIn != "" {
		return false, "rolled back: the choice was worse than the baseline in" + worseIn + drift
	}
	return true, "kept: the search chose it over the current settings, which fell short of its best full set beyond the noise; worse in no direction it acts on:" + moved + drift
}

// acts are the directions some setting that differs between base and v
// acts on (a per-socket congestion control acts on both).
func acts(base, v *Candidate, bothEnds bool) map[Direction]bool {
	was := map[string]string{}
	for _, s := range base.Settings {
		was[s.Key] = s.Value
	}
	out := map[Direction]bool{}
	for _, s := range v.Settings {
		if old, ok := was[s.Key]; ok && norm(old) == norm(s.Value) {
			continue
		}
		for _, d := range actsOn(s.Key, bothEnds) {
			out[d] = true
		}
	}
	if v.Congestion != base.Congestion {
		// Per socket, where this host's control sends (trials run it
		// nowhere else).
		for _, d := range plan.Acts(plan.CC, bothEnds) {
			out[d] = true
		}
	}
	return out
}

// rangeOf widens a summary's interval to its sample range.
func rangeOf(s stats.Summary) stats.Summary {
	s.CILow, s.CIHigh = s.Min, s.Max
	return s
}
