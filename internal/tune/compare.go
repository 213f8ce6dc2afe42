package tune

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/units"
)

// longRTT is the RTT from which the reference profiles are listed but
// not measured unless asked for (--compare).
const longRTT = 300 * time.Millisecond

// compare measures the reference profiles for comparison: what each
// would set, and one short trial each in the first judged direction
// (full trials in every direction with Options.Compare). They are never
// chosen.
func (r *runner) compare(ctx context.Context) error {
	res := r.res
	cands, err := Profiles(GenInput{Rate: res.Rate, RTT: res.RTT})
	if err != nil {
		return err
	}
	active, err := r.prepare(cands)
	if err != nil {
		return err
	}
	if len(active) == 0 {
		return nil
	}
	if res.RTT >= longRTT && !r.o.Compare {
		// Each trial costs its omitted start (10 × RTT) and five or six
		// round trips of iperf3's protocol: at a satellite's RTT the
		// comparison would add minutes. The profiles are listed with what
		// they would set, unmeasured.
		for _, c := range active {
			c.Status = fmt.Sprintf("not measured: at an RTT of %s each trial costs %s (--compare measures them)", units.FormatDuration(res.RTT), secs(r.omit+time.Second+6*res.RTT))
		}
		res.Steps = append(res.Steps, fmt.Sprintf("reference profiles not measured at an RTT of %s, to keep the run within minutes (--compare measures them)", units.FormatDuration(res.RTT)))
		return nil
	}
	dirs, n, what := res.Controllable[:1], 1, "one short trial each"
	saved := r.o.Time
	if r.o.Compare {
		dirs, n, what = r.o.Directions, r.o.Trials, "full trials"
	} else {
		r.o.Time = max(saved/4, time.Second)
		defer func() { r.o.Time = saved }()
	}
	r.pr.Stage("reference profiles for comparison (%s): %d to measure", what, len(active))
	for _, c := range active {
		if err := r.trials(ctx, c, n, dirs, TrialSpec{}); err != nil {
			return err
		}
	}
	best := 0.0
	for _, c := range res.Candidates {
		if c.Origin == OriginSearch || c.Baseline {
			best = max(best, c.Summary[dirs[0]].Median)
		}
	}
	for _, c := range active {
		c.Status = fmt.Sprintf("reference: %.0f%% of the search's best in %s", 100*c.Summary[dirs[0]].Median/max(best, 1), dirs[0])
		if !r.o.Compare {
			c.Status += " (short trial)"
		}
		if len(c.Cautions) > 0 {
			var keys []string
			for _, x := range c.Cautions {
				keys = append(keys, x[:strings.Index(x, ":")])
			}
			c.Status += "; never chosen: sets " + strings.Join(keys, ", ")
		}
	}
	return nil
}

// reopen takes up a reference profile whose short trial beat the
// search's best by more than the noise: it and the choice get full
// trials side by side in that direction, and if the profile still beats
// the choice there by more than the plateau's tolerance (and loses in
// no judged direction), it becomes the choice. Either way the search's
// log says what was found, so a table where a reference "beat" tune is
// never left unexplained.
func (r *runner) reopen(ctx context.Context, base, choice *Candidate) (*Candidate, error) {
	res := r.res
	d := res.Controllable[0]
	margin := max(r.tol, 0.05)
	var top *Candidate
	for _, c := range res.Candidates {
		if c.Origin != OriginProfile || len(c.Cautions) > 0 || c.Summary[d].N == 0 {
			continue
		}
		if m := c.Summary[d].Median; m > (1+margin)*r.best[d] && (top == nil || m > top.Summary[d].Median) {
			top = c
		}
	}
	if top == nil {
		return choice, nil
	}
	short := top.Summary[d].Median
	r.pr.Stage("%s reached %s in %s, above the search's best (%s): %d full trials of it and of the choice", top.Name, rate(short), d, rate(r.best[d]), r.o.Trials)
	if err := r.trials(ctx, top, r.o.Trials, []Direction{d}, TrialSpec{}); err != nil {
		return nil, err
	}
	if err := r.trials(ctx, choice, r.o.Trials, []Direction{d}, TrialSpec{Congestion: choice.Congestion}); err != nil {
		return nil, err
	}
	t, c := top.Summary[d], choice.Summary[d]
	if t.Median > (1+margin)*c.Median {
		res.Steps = append(res.Steps, fmt.Sprintf("reopened: the reference %s beat the search in %s (median %s against %s over %d trials each): it becomes the choice", top.Name, d, rate(t.Median), rate(c.Median), r.o.Trials))
		top.Status = "chosen: it beat the search's choice in repeated trials"
		if choice != base {
			choice.Status = fmt.Sprintf("set aside: %s beat it in repeated trials", top.Name)
		}
		return top, nil
	}
	res.Steps = append(res.Steps, fmt.Sprintf("the reference %s reached %s in one short %s trial, above the search's best; in %d full trials it had a median of %s against the choice's %s: within the noise, the choice stands", top.Name, rate(short), d, r.o.Trials, rate(t.Median), rate(c.Median)))
	return choice, nil
}

// prepare resolves, filters and de-duplicates the profiles, appending
// them all to the result; it returns those to run.
func (r *runner) prepare(cands []*Candidate) ([]*Candidate, error) {
	var active []*Candidate
	seen := map[string]string{}
	for _, c := range r.res.Candidates {
		seen[c.signature(r.current)] = c.ID
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
		sig := c.signature(r.current)
		switch {
		case len(c.Settings) == 0:
			c.Status = "nothing applicable here"
		case c.sameAs(r.current):
			c.SameAs, c.Status = "baseline", "identical to the current settings"
		case seen[sig] != "":
			c.SameAs, c.Status = seen[sig], "identical to "+seen[sig]
		default:
			seen[sig] = c.ID
			active = append(active, c)
		}
	}
	return active, nil
}

// judge decides whether the verified choice beats the baseline by more
// than the noise: in some judged direction every verification trial
// beats every baseline trial (with 3 + 3 trials chance does that 1 time
// in 20) and the median gains at least 2%, and in no direction is it
// more than 5% worse. Directions the peer limits are not judged for
// gain: a forward gain is never discarded because the peer holds back
// reverse.
func judge(base, v *Candidate, dirs, judged []Direction) (bool, string) {
	better, worseIn := "", ""
	for _, d := range dirs {
		b, x := base.Summary[d], v.Summary[d]
		if b.N == 0 || x.N == 0 {
			continue
		}
		isJudged := len(judged) == 0
		for _, j := range judged {
			isJudged = isJudged || j == d
		}
		if isJudged && x.Median > (1+minGain)*b.Median && !stats.Overlaps(rangeOf(b), rangeOf(x)) {
			better += fmt.Sprintf(" %s %.2f×", d, x.Median/b.Median)
		}
		if x.Median < (1-worse)*b.Median {
			worseIn += fmt.Sprintf(" %s %.2f×", d, x.Median/b.Median)
		}
	}
	switch {
	case worseIn != "":
		return false, "rolled back: the choice was worse than the baseline in" + worseIn
	case better == "":
		return false, fmt.Sprintf("rolled back: the choice did not beat the baseline by more than the noise (overlapping trials, or a gain under %.0f%%)", 100*minGain)
	}
	return true, "kept: every verification trial beat every baseline trial in" + better
}

// rangeOf widens a summary's interval to its sample range.
func rangeOf(s stats.Summary) stats.Summary {
	s.CILow, s.CIHigh = s.Min, s.Max
	return s
}
