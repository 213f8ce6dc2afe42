// Package tune is the closed loop from measurement to settings: it
// measures a baseline, generates candidate settings (tcptune's advice and
// the reference profiles), runs repeated trials of each in both
// directions, chooses the candidate with the least buffer memory whose
// throughput is within 5% of the best, verifies the choice against the
// baseline with fresh trials, and keeps it only if it beats the baseline
// by more than the noise. Where the trials run and how settings are
// applied is an Env: a lab link, or this host against a peer.
package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/stats"
)

// Direction of a trial: forward is this end sending (iperf3's default),
// reverse is the peer sending (-R).
type Direction string

const (
	Forward Direction = "forward"
	Reverse Direction = "reverse"
)

// TrialSpec is one test to run.
type TrialSpec struct {
	Direction Direction
	Time      time.Duration // measured part
	Omit      time.Duration // slow start, not counted
	Parallel  int
}

// Trial is one test's outcome.
type Trial struct {
	Direction     Direction `json:"direction"`
	BitsPerSecond float64   `json:"bits_per_second"`
	// Intervals are the per-interval rates (bit/s) after the omitted
	// start.
	Intervals   []float64 `json:"intervals,omitempty"`
	RTTus       float64   `json:"rtt_us,omitempty"`
	Window      int64     `json:"window,omitempty"` // largest window the receiver advertised
	SndBuf      int64     `json:"sndbuf,omitempty"` // sender's send buffer
	Retransmits int64     `json:"retransmits"`
	Limit       string    `json:"limit,omitempty"`   // receiver-window, send-buffer, network, cpu...
	Verdict     string    `json:"verdict,omitempty"` // the attribution in words
	Advice      string    `json:"advice,omitempty"`
}

// Env is where tune measures and what it changes.
type Env interface {
	// Describe names the environment ("lab 1 Gbit/s × 50 ms", "peer …").
	Describe() string
	// RTT measures the round-trip time to the peer.
	RTT(ctx context.Context) (time.Duration, error)
	// LinkRate is the path's known rate (bit/s), 0 when unknown.
	LinkRate() float64
	// Goodput is the most TCP payload the path can carry (bit/s), 0
	// when unknown.
	Goodput() float64
	// Trial runs one test.
	Trial(ctx context.Context, spec TrialSpec) (Trial, error)
	// Read returns the current values of keys (where settings apply).
	Read(keys []string) (map[string]string, error)
	// Split separates what can be applied here from what cannot.
	Split(kvs []apply.KV) (ok []apply.KV, skipped []string, err error)
	// Set applies kvs everywhere settings apply, all or nothing; undo
	// restores the previous values.
	Set(kvs []apply.KV) (undo func() error, err error)
	// Keep applies kvs for good (tune --apply), returning the backup ID.
	Keep(kvs []apply.KV, persist bool) (string, error)
}

// Options are tune's settings.
type Options struct {
	Trials     int           // per candidate and direction (default 3)
	Time       time.Duration // per trial (default 5 s)
	Omit       time.Duration // 0 = automatic: max(1 s, 10 × RTT)
	Directions []Direction   // default both
	Rate       float64       // bit/s; 0 = the Env's link rate, else measured
	Apply      bool          // keep the result
	Persist    bool          // with Apply: also to sysctl.d
	Within     float64       // choice: within this fraction of the best (0.05)
}

func (o *Options) defaults() {
	if o.Trials == 0 {
		o.Trials = 3
	}
	if o.Time == 0 {
		o.Time = 5 * time.Second
	}
	if len(o.Directions) == 0 {
		o.Directions = []Direction{Forward, Reverse}
	}
	if o.Within == 0 {
		o.Within = 0.05
	}
}

// screenWithin is how close to the best one screening trial must come
// for a candidate to get its full trials: wider than Within, because one
// sample is noisy.
const screenWithin = 0.10

// Result is everything tune found.
type Result struct {
	Env        string        `json:"env"`
	Rate       float64       `json:"rate_bits_per_second"`
	RateSource string        `json:"rate_source"`
	RTT        time.Duration `json:"-"`
	RTTms      float64       `json:"rtt_ms"`
	BDP        int64         `json:"bdp_bytes"`
	Goodput    float64       `json:"link_goodput_bits_per_second,omitempty"`
	Options    struct {
		Trials     int         `json:"trials"`
		TimeS      float64     `json:"time_s"`
		OmitS      float64     `json:"omit_s"`
		Directions []Direction `json:"directions"`
	} `json:"options"`
	Candidates []*Candidate `json:"candidates"`
	ChoiceID   string       `json:"choice"`
	// Verify holds the fresh trials of the choice.
	Verify *Candidate `json:"verify,omitempty"`
	// Kept is true when the choice beat the baseline by more than the
	// noise; Why says how it was judged.
	Kept     bool      `json:"kept"`
	Why      string    `json:"why"`
	Applied  bool      `json:"applied"`
	BackupID string    `json:"backup_id,omitempty"`
	Started  time.Time `json:"started"`
	Elapsed  float64   `json:"elapsed_s"`
}

// Baseline is the settings found at the start.
func (r *Result) Baseline() *Candidate { return r.Candidates[0] }

// Choice is the chosen candidate (the baseline when nothing beat it).
func (r *Result) Choice() *Candidate { return r.find(r.ChoiceID) }

func (r *Result) find(id string) *Candidate {
	for _, c := range r.Candidates {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// Progress receives what tune is doing.
type Progress interface {
	Stage(format string, args ...any)
	TrialStart(label string, expected time.Duration)
	TrialEnd(t Trial, err error)
}

type runner struct {
	env  Env
	o    Options
	pr   Progress
	res  *Result
	omit time.Duration
}

// Run performs the whole loop. Settings are always restored before it
// returns, unless the result is kept with Options.Apply.
func Run(ctx context.Context, env Env, o Options, pr Progress) (*Result, error) {
	o.defaults()
	r := &runner{env: env, o: o, pr: pr, res: &Result{Env: env.Describe(), Started: time.Now()}}
	res := r.res
	defer func() { res.Elapsed = time.Since(res.Started).Seconds() }()

	pr.Stage("measuring the RTT to the peer")
	rtt, err := env.RTT(ctx)
	if err != nil {
		return nil, fmt.Errorf("RTT: %w", err)
	}
	res.RTT, res.RTTms = rtt, float64(rtt)/1e6
	r.omit = o.Omit
	if r.omit == 0 {
		r.omit = max(time.Second, 10*rtt).Round(100 * time.Millisecond)
	}
	res.Goodput = env.Goodput()
	res.Options.Trials, res.Options.TimeS, res.Options.OmitS, res.Options.Directions = o.Trials, o.Time.Seconds(), r.omit.Seconds(), o.Directions

	base := &Candidate{ID: "baseline", Name: "current settings", Source: "the values found at the start", Baseline: true}
	res.Candidates = []*Candidate{base}
	pr.Stage("baseline: %d trials of %v per direction with the current settings", o.Trials, o.Time)
	if err := r.trials(ctx, base, nil, o.Trials, o.Directions); err != nil {
		return res, err
	}

	switch {
	case o.Rate > 0:
		res.Rate, res.RateSource = o.Rate, "given (--rate)"
	case env.LinkRate() > 0:
		res.Rate, res.RateSource = env.LinkRate(), "the lab link's rate"
	default:
		pr.Stage("estimating the path's rate with 8 parallel streams")
		t, err := r.one(ctx, TrialSpec{Direction: Forward, Time: o.Time, Omit: r.omit, Parallel: 8}, "rate probe (-P 8)")
		if err != nil {
			return res, err
		}
		res.Rate, res.RateSource = max(t.BitsPerSecond, base.Score), "measured with 8 parallel streams"
	}
	res.BDP = int64(res.Rate * rtt.Seconds() / 8)

	cands, err := Generate(GenInput{Rate: res.Rate, RTT: rtt})
	if err != nil {
		return res, err
	}
	current, err := env.Read(Keys(cands))
	if err != nil {
		return res, err
	}
	base.resolve(current)
	for k, v := range current {
		if k == keyRmem || k == keyWmem {
			base.Settings = append(base.Settings, Setting{Key: k, Value: v, Reason: "as found"})
		}
	}
	slices.SortFunc(base.Settings, func(a, b Setting) int { return cmp.Compare(a.Key, b.Key) })
	active, err := r.prepare(cands, current)
	if err != nil {
		return res, err
	}

	pr.Stage("screening %d candidates: one trial per direction each", len(active))
	for _, c := range active {
		if err := r.trials(ctx, c, c.KVs(), 1, o.Directions); err != nil {
			return res, err
		}
	}
	choice, err := r.choose(ctx, active)
	if err != nil {
		return res, err
	}
	res.ChoiceID = choice.ID
	if choice.Baseline {
		res.Why = fmt.Sprintf("the current settings are within %.0f%% of the best candidate and use the least memory: nothing to change", 100*o.Within)
		return res, nil
	}
	pr.Stage("verifying %s with %d fresh trials per direction", choice.Name, o.Trials)
	v := &Candidate{ID: "verify", Name: "verification of the choice", Source: choice.ID, Settings: choice.Settings, RmemMax: choice.RmemMax, WmemMax: choice.WmemMax, Memory: choice.Memory}
	res.Verify = v
	if err := r.trials(ctx, v, choice.KVs(), o.Trials, o.Directions); err != nil {
		return res, err
	}
	res.Kept, res.Why = judge(base, v, o.Directions)
	if res.Kept && o.Apply {
		id, err := env.Keep(choice.KVs(), o.Persist)
		if err != nil {
			return res, fmt.Errorf("keeping %s: %w", choice.Name, err)
		}
		res.Applied, res.BackupID = true, id
	}
	return res, nil
}

// prepare resolves, filters and de-duplicates the candidates, appending
// them all to the result; it returns those to run.
func (r *runner) prepare(cands []*Candidate, current map[string]string) ([]*Candidate, error) {
	var active []*Candidate
	seen := map[string]string{}
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
		c.resolve(current)
		r.res.Candidates = append(r.res.Candidates, c)
		sig := c.signature(current)
		switch {
		case len(c.Settings) == 0:
			c.Status = "nothing applicable here"
		case c.sameAs(current):
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

// choose completes the trials of the best eligible candidate, then of
// eligible candidates in order of increasing memory until one is within
// Within of the best. Candidates with cautions are measured, not chosen.
func (r *runner) choose(ctx context.Context, active []*Candidate) (*Candidate, error) {
	var pool []*Candidate
	for _, c := range append([]*Candidate{r.res.Baseline()}, active...) {
		if len(c.Cautions) > 0 {
			var keys []string
			for _, x := range c.Cautions {
				keys = append(keys, x[:strings.Index(x, ":")])
			}
			c.Status = "measured, never chosen: sets " + strings.Join(keys, ", ")
			continue
		}
		pool = append(pool, c)
	}
	best := func() *Candidate {
		var b *Candidate
		for _, c := range pool {
			if b == nil || c.Score > b.Score {
				b = c
			}
		}
		return b
	}
	complete := func(c *Candidate) error {
		for _, d := range r.o.Directions {
			if n := r.o.Trials - c.Runs(d); n > 0 {
				if err := r.trials(ctx, c, c.KVs(), n, []Direction{d}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	b := best()
	r.pr.Stage("completing the trials of the best so far (%s) and of smaller candidates near it", b.Name)
	if err := complete(b); err != nil {
		return nil, err
	}
	order := slices.Clone(pool)
	slices.SortStableFunc(order, func(x, y *Candidate) int { return cmp.Compare(x.Memory, y.Memory) })
	var choice *Candidate
	for _, c := range order {
		b = best()
		if c.Score < (1-screenWithin)*b.Score {
			continue
		}
		if err := complete(c); err != nil {
			return nil, err
		}
		if b = best(); c.Score >= (1-r.o.Within)*b.Score {
			choice = c
			break
		}
	}
	if choice == nil { // unreachable: the best is within reach of itself
		return nil, errors.New("no candidate completed its trials")
	}
	for _, c := range pool {
		pct := fmt.Sprintf("%.0f%% of the best", 100*c.Score/max(b.Score, 1))
		switch {
		case c == choice && c == b:
			c.Status = "chosen: the best, and the least memory within reach of it"
		case c == choice:
			c.Status = fmt.Sprintf("chosen: %s, the least memory within %.0f%% of it", pct, 100*r.o.Within)
		case c == b:
			c.Status = "the best throughput"
		case c.Score < (1-screenWithin)*b.Score:
			c.Status = pct + ": screened out"
		case c.Memory > choice.Memory:
			c.Status = pct + ": more memory than the choice"
		default:
			c.Status = pct
		}
	}
	return choice, nil
}

// trials applies kvs (nil = none), runs n trials in each direction, and
// restores.
func (r *runner) trials(ctx context.Context, c *Candidate, kvs []apply.KV, n int, dirs []Direction) error {
	undo := func() error { return nil }
	if len(kvs) > 0 {
		u, err := r.env.Set(kvs)
		if err != nil {
			return fmt.Errorf("applying %s: %w", c.Name, err)
		}
		undo = u
	}
	var err error
loop:
	for _, d := range dirs {
		for i := 0; i < n; i++ {
			label := fmt.Sprintf("%s, %s %d/%d", c.Name, d, c.Runs(d)+1, max(r.o.Trials, c.Runs(d)+1))
			var t Trial
			t, err = r.one(ctx, TrialSpec{Direction: d, Time: r.o.Time, Omit: r.omit, Parallel: 1}, label)
			if err != nil {
				break loop
			}
			c.Trials = append(c.Trials, t)
		}
	}
	if uerr := undo(); uerr != nil {
		err = errors.Join(err, fmt.Errorf("restoring after %s: %w", c.Name, uerr))
	}
	c.summarize(r.o.Directions)
	return err
}

// one runs a trial, retrying once (a peer may still be tearing down the
// previous test).
func (r *runner) one(ctx context.Context, spec TrialSpec, label string) (Trial, error) {
	var t Trial
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		r.pr.TrialStart(label, spec.Time+spec.Omit)
		t, err = r.env.Trial(ctx, spec)
		r.pr.TrialEnd(t, err)
		if err == nil || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	t.Direction = spec.Direction
	return t, err
}

// minGain is the smallest improvement worth changing a host for: on a
// lab link the trials can agree to 0.1%, which is beyond the noise but
// not a gain.
const minGain = 0.02

// judge decides whether the verified choice beats the baseline by more
// than the noise: in some direction the ranges of the two samples do not
// overlap (with 3 + 3 trials that happens by chance with probability
// 1/20) and the median gains at least 2%, and in no direction is it more
// than 5% worse.
func judge(base, v *Candidate, dirs []Direction) (bool, string) {
	better, worse := "", ""
	for _, d := range dirs {
		b, x := base.Summary[d], v.Summary[d]
		if x.Median > (1+minGain)*b.Median && !stats.Overlaps(rangeOf(b), rangeOf(x)) {
			better += fmt.Sprintf(" %s %.2f×", d, x.Median/b.Median)
		}
		if x.Median < 0.95*b.Median {
			worse += fmt.Sprintf(" %s %.2f×", d, x.Median/b.Median)
		}
	}
	switch {
	case worse != "":
		return false, "rolled back: the choice was worse than the baseline in" + worse
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
