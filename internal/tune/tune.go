// Package tune is the closed loop from measurement to settings. It
// measures the RTT, a baseline and the path's rate, then carries out the
// search internal/plan decides: each trial updates a model of the path,
// the planner names the cheapest point of its grid (buffer maxima × the
// congestion controls, the host queues and a larger MTU where the
// evidence calls for them) predicted to reach the target, screened, then
// given its full set; the choice is the cheapest point whose full set is
// on the plateau, and that full set is its verification. A last safety
// net rolls back a choice that leaves a direction one of its settings
// acts on worse beyond the noise. Reference profiles are the search's
// first observations; the application's settings (-P, -Z) and the
// peer's are screened and reported, never applied. Where the trials run
// and what can be changed is an Env: a lab link (both ends), or this
// host against a peer (this host's side only).
package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/cores"
	"github.com/tcptune/tcptune/internal/drops"
	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/view"
	"github.com/tcptune/tcptune/internal/window"
)

// Direction of a trial: forward is this end sending (iperf3's default),
// reverse is the peer sending (-R).
type Direction = plan.Direction

const (
	Forward = plan.Forward
	Reverse = plan.Reverse
)

// ParseDirections reads --direction: both, forward or reverse.
func ParseDirections(s string) ([]Direction, error) {
	switch s {
	case "both":
		return []Direction{Forward, Reverse}, nil
	case "forward":
		return []Direction{Forward}, nil
	case "reverse":
		return []Direction{Reverse}, nil
	}
	return nil, fmt.Errorf("--direction: accepts both, forward or reverse (got %q)", s)
}

// ParsePathRate reads --rate in peer mode: the path's rate with its
// unit, "" for one tune measures.
func ParsePathRate(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	r, _, err := units.ParsePathRate(s)
	if err != nil {
		return 0, fmt.Errorf("--rate: accepts a path's rate with its unit, e.g. 100mbit, 1gbit, 125MB/s: %v", err)
	}
	return r, nil
}

// Compare is how the reference profiles are measured (--compare).
type Compare int

const (
	// CompareShort: one short trial each in the first direction this
	// host controls, none from an RTT of 300 ms (the default).
	CompareShort Compare = iota
	// CompareFull: full trials in every direction.
	CompareFull
	// CompareNone: listed with what they would set, unmeasured.
	CompareNone
)

// ParseCompare reads --compare: short, full or none.
func ParseCompare(s string) (Compare, error) {
	switch s {
	case "short":
		return CompareShort, nil
	case "full":
		return CompareFull, nil
	case "none":
		return CompareNone, nil
	}
	return 0, fmt.Errorf("--compare: accepts short, full or none (got %q)", s)
}

// TrialSpec is one test to run.
type TrialSpec struct {
	Direction  Direction
	Time       time.Duration // measured part
	Omit       time.Duration // slow start, not counted
	Parallel   int
	Congestion string // per socket (-C); "" = the default
	// PeerCongestion is the control of the peer's sending sockets where
	// the peer sends (iperf3's -C on a reverse test sets it there, per
	// socket): a lever only the peer can pull, screened, never applied.
	PeerCongestion string
	ZeroCopy       bool // -Z: send with zero copy
	// PathMSS is the MSS the goodput a trial is judged against is
	// counted at (0: the trial's own).
	PathMSS int
}

// Trial is one test's outcome. Its rate is the payload the kernel
// counted as delivered after the omitted start (at the sender when its
// TCP_INFO is reachable, else at the receiver): it cannot exceed the
// path.
type Trial struct {
	Direction     Direction `json:"direction"`
	BitsPerSecond float64   `json:"bits_per_second"`
	// CountedBy says whose kernel counted: "sender" (tcpi_delivered)
	// or "receiver" (tcpi_bytes_received).
	CountedBy string `json:"counted_by"`
	// Intervals are the per-interval rates (bit/s) after the omitted
	// start, counted the same way.
	Intervals   []float64 `json:"intervals,omitempty"`
	RTTus       float64   `json:"rtt_us,omitempty"`     // sender's mean srtt under load
	MinRTTus    float64   `json:"min_rtt_us,omitempty"` // sender's minimum RTT
	Window      int64     `json:"window,omitempty"`     // largest window the receiver advertised
	SndBuf      int64     `json:"sndbuf,omitempty"`     // sender's send buffer
	Inflight    int64     `json:"inflight,omitempty"`   // measured bytes in flight, mean
	Retransmits int64     `json:"retransmits"`          // -1 = unknown
	// Spurious is how many of them the receiver reported as duplicates
	// (DSACK: reordering, not loss).
	Spurious int64  `json:"spurious_retransmits,omitempty"`
	Limit    string `json:"limit,omitempty"`   // receiver-window, send-buffer, network, path-full, cpu...
	Verdict  string `json:"verdict,omitempty"` // the attribution in words
	Advice   string `json:"advice,omitempty"`  // what to change
	// RuledOut names the limits the evidence excluded where it could
	// not name the one that held (the receiver's view of a stock peer).
	RuledOut []string `json:"ruled_out,omitempty"`
	// Recovering: the verdict found the send buffer full while loss was
	// recovered (it also keeps what was sent beyond each hole).
	Recovering bool `json:"recovering,omitempty"`
	// Capped names a buffer that sat at its cap while another limit
	// bound (the congestion window of a flow without loss): worth a try.
	Capped     string  `json:"capped,omitempty"`
	Congestion string  `json:"congestion,omitempty"` // per-socket congestion control, if set
	Parallel   int     `json:"parallel,omitempty"`   // streams, when more than one
	Delivered  int64   `json:"delivered_bytes"`      // payload over the whole test, omit included
	Seconds    float64 `json:"seconds"`              // measured period
	Screening  bool    `json:"screening,omitempty"`  // a single screening trial
	MSS        int     `json:"mss,omitempty"`        // sender's MSS: the goodput depends on it
	// Drops are the packets this host's queues dropped outside TCP
	// during the trial (receive backlog, transmit queue), when any did.
	Drops *drops.Counters `json:"host_drops,omitempty"`
	// Core is the busiest core of this host during the trial, when it
	// ran flat out (/proc/stat: host-wide, in a lab both ends and the
	// link share it).
	Core *cores.Load `json:"saturated_core,omitempty"`
	// ZeroCopy: the trial sent with -Z.
	ZeroCopy bool `json:"zerocopy,omitempty"`
	// From and To bound the measured period (wall clock), so that the
	// rate can be checked against another count (the lab's relay).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// planned is the length the trial was run for, which the budget
	// counts (its measured Seconds run over by a few intervals' ends).
	planned time.Duration
	// judged is the direction the verdict was judged from, to judge it
	// again at a path's rate known later (rejudge).
	judged *view.Direction
}

// lost is t's retransmits that repaired a loss (-1: unknown): those the
// receiver reported as duplicates were not.
func (t Trial) lost() int64 { return attrib.Lost(t.Retransmits, t.Spurious) }

// Env is where tune measures and what it changes.
type Env interface {
	// Describe names the environment ("lab 1 Gbit/s × 50 ms", "peer …").
	Describe() string
	// Peer is the other end's address.
	Peer() string
	// RTT measures the idle round-trip time to the peer.
	RTT(ctx context.Context) (time.Duration, error)
	// LinkRate is the path's known rate (bit/s), 0 when unknown.
	LinkRate() float64
	// Goodput is the most TCP payload the path can carry (bit/s), 0
	// when unknown.
	Goodput() float64
	// Burst is what the path passes above its rate after an idle
	// moment, in wire bytes (a policer's bucket; 0 = nothing).
	Burst() int64
	// Trial runs one test; pathRate and idleRTT inform the attribution.
	Trial(ctx context.Context, spec TrialSpec, pathRate float64, idleRTT time.Duration) (Trial, error)
	// BothEnds reports whether settings apply at both ends (the lab);
	// otherwise only this host's side can change.
	BothEnds() bool
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
	Trials     int           // per direction for the baseline and the verification (default 3)
	Time       time.Duration // per trial (default 5 s)
	Omit       time.Duration // 0 = automatic: max(1 s, 10 × RTT)
	Directions []Direction   // default both
	Rate       float64       // bit/s; 0 = the Env's link rate, else measured
	Apply      bool          // keep the result
	Persist    bool          // with Apply: also at boot (apply.Options.Persist)
	// LabFlag is a flag of the lab link that the command line gave
	// (--rtt, …): refused with --peer.
	LabFlag string
	Force   bool    // search even when the baseline fills the path
	Compare Compare // how the reference profiles are measured
	// Congestion is every trial's congestion control, per socket (-C),
	// unless a lever tries another; "" = the host's default. In the lab
	// it stands for hosts whose default it is: a namespace can default
	// only to one in the host's tcp_allowed_congestion_control.
	Congestion string
	// AllowLower lets the choice lower a buffer maximum below the
	// host's current one. Without it a maximum the host already has
	// stays: the host serves other paths than the one measured.
	AllowLower bool
	// Budget is the trial time the model's search may spend, the
	// baseline's included (0 = 3 minutes, 4 at an RTT of 500 ms or
	// more).
	Budget time.Duration
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
}

// Progress receives what tune is doing.
type Progress interface {
	Stage(format string, args ...any)
	TrialStart(label string, expected time.Duration)
	TrialEnd(t Trial, err error)
}

// Run performs the whole loop. Settings are always restored before it
// returns, unless the result is kept with Options.Apply.
func Run(ctx context.Context, env Env, o Options, pr Progress) (*Result, error) {
	o.defaults()
	r := &runner{env: env, o: o, pr: pr, model: window.Host(), res: &Result{Env: env.Describe(), Peer: env.Peer(), BothEnds: env.BothEnds(), Started: time.Now()}}
	res := r.res
	defer func() {
		res.Elapsed = time.Since(res.Started).Seconds()
		if l, ok := env.(interface {
			Relay() (time.Duration, bool, bool)
		}); ok {
			if b, faithful, ok := l.Relay(); ok {
				res.Relay = &Relay{BehindUS: float64(b.Microseconds()), Faithful: faithful}
			}
		}
	}()

	// Before any test: on a black hole even the RTT's short test stalls.
	if err := r.blackHole(ctx); err != nil {
		return res, err
	}
	pr.Stage("measuring the RTT to the peer (one short test of 256 KB: its connections' minimum RTT)")
	rtt, err := env.RTT(ctx)
	if err != nil {
		return nil, fmt.Errorf("RTT: %w", err)
	}
	res.RTT, res.RTTms = rtt, float64(rtt)/1e6
	r.omit = o.Omit
	if r.omit == 0 {
		r.omit = max(time.Second, 10*rtt).Round(10 * time.Millisecond)
	}
	res.Goodput, res.Burst = env.Goodput(), env.Burst()
	res.Options.Trials, res.Options.TimeS, res.Options.OmitS, res.Options.Directions = o.Trials, o.Time.Seconds(), r.omit.Seconds(), o.Directions
	if err := r.fits(); err != nil {
		return res, err
	}

	current, err := env.Read(append([]string{keyRmem, keyWmem, keyRelease}, profileKeys()...))
	if err != nil {
		return res, err
	}
	r.current = current
	base := &Candidate{ID: "baseline", Name: "current settings", Source: "the values found at the start", Baseline: true, Origin: OriginBaseline}
	for _, k := range []string{keyRmem, keyWmem} {
		if v, ok := current[k]; ok {
			base.Settings = append(base.Settings, Setting{Key: k, Value: v, Reason: "as found"})
		}
	}
	base.resolve(current)
	res.Candidates = []*Candidate{base}
	pr.Stage("baseline: up to %d trials of %s per direction with the current settings (%s of slow start omitted each)", o.Trials, secs(o.Time), secs(r.omit))
	if err := r.trials(ctx, base, o.Trials, o.Directions, TrialSpec{}); err != nil {
		return res, err
	}

	if err := r.rate(ctx, base); err != nil {
		return res, err
	}
	res.BDP = bdp(res.Rate, rtt)
	r.controllable(base)
	if len(res.Controllable) == 0 {
		res.ChoiceID = base.ID
		res.Why = "nothing this host can change limits the transfer: " + r.peerOnly()
		return res, nil
	}
	choice, v, stop := base, (*Candidate)(nil), plan.StopNone
	var profiles []*Candidate
	if r.jumbo, err = r.probeMTU(ctx); err != nil {
		return res, err
	}
	// A path that carries a larger MTU can gain even when the buffers
	// fill it at this one: the headers' share.
	if f := r.fullShare(base); attrib.Full(f, 1) && !o.Force && r.jumbo.larger == 0 {
		res.AlreadyFull = true
		res.Why = fmt.Sprintf("the baseline already reaches %.0f%% of the path's goodput (%s) in every direction this host controls: nothing to tune (--force searches anyway)", 100*f, rate(res.Goodput))
	} else {
		// A host queue that dropped packets in the baseline may be
		// raised at any point of the search.
		if r.queues, err = r.hostQueues(); err != nil {
			return res, err
		}
		// The reference profiles' trials are the search's first
		// observations.
		if profiles, err = r.compare(ctx); err != nil {
			return res, err
		}
		if choice, v, stop, err = r.planned(ctx, base, r.profilePoints(profiles)); err != nil {
			return res, err
		}
	}
	if !res.AlreadyFull {
		// What is reported, not applied, after the search's budget: the
		// application's levers; and how the profiles compare.
		if err := r.reportLevers(ctx, choice, v); err != nil {
			return res, err
		}
		r.rank(profiles)
	}
	if pm := res.PathMTU; pm != nil {
		if t, ok := medianTrial(base, res.Controllable[0]); ok {
			pm.MSSBefore = t.MSS
		}
	}
	res.ChoiceID = choice.ID
	if choice == base {
		switch {
		case res.AlreadyFull:
		case stop == plan.StopBudget:
			// The model still rated a point above the current settings.
			res.Why = fmt.Sprintf("the budget (--budget %s) ended before a point the model rates above the current settings had its full set: nothing changed", secs(r.policy().Budget))
		default:
			res.Why = "no setting beat the current ones by more than the noise: nothing to change"
		}
		return res, nil
	}
	res.AlreadyFull = false
	changed := acts(base, choice, env.BothEnds())
	// Only full sets accept, and Choose picks a point only where its key
	// has one in every controlled direction: the choice's full set is
	// its verification.
	step := "the choice's full set is its verification"
	for _, d := range o.Directions {
		own := len(slices.DeleteFunc(slices.Clone(choice.Trials), func(t Trial) bool { return t.Direction != d || t.Screening }))
		switch {
		case own >= v.Runs(d):
		case !changed[d]:
			step += fmt.Sprintf("; in %s, on which no setting the choice changes acts, the full sets with the current settings there (%d of %d trials its own)", d, own, v.Runs(d))
		default:
			step += fmt.Sprintf("; in %s, the full sets of the points whose settings acting there are the choice's (%d of %d trials its own)", d, own, v.Runs(d))
		}
	}
	res.Steps, res.FullSet = append(res.Steps, step), true
	res.Verify = v
	if pm := res.PathMTU; pm != nil {
		if t, ok := medianTrial(v, res.Controllable[0]); ok {
			pm.MSSAfter = t.MSS
		}
	}
	res.Kept, res.Why = judge(base, v, o.Directions, changed, r.policy())
	if !res.Kept {
		choice.Status = "rolled back after verification"
	}
	if res.Kept && o.Apply && len(choice.Settings) > 0 {
		id, err := env.Keep(choice.KVs(), o.Persist)
		if err != nil {
			return res, fmt.Errorf("keeping %s: %w", choice.Name, err)
		}
		res.Applied, res.BackupID = true, id
	}
	return res, nil
}

// fits refuses a budget that cannot hold the baseline's full set and a
// verification's at this RTT: no choice could be made within it.
func (r *runner) fits() error {
	pol := r.policy()
	sets := 2 * len(r.o.Directions)
	if !r.env.BothEnds() {
		sets = len(r.o.Directions) + 1 // a peer's verification may run forward alone
	}
	need := pol.SetsCost(sets, r.res.RTT)
	if pol.Budget >= need {
		return nil
	}
	return fmt.Errorf("--budget: %s cannot hold the baseline's and a verification's full sets at this RTT (%d trials of %s, %s): give --budget %.0f or more, or fewer --trials or a shorter --time",
		secs(pol.Budget), sets*pol.Trials, secs(pol.TrialCost(r.res.RTT)), secs(need), math.Ceil(need.Seconds()))
}

func directionsOf(ts []Trial) []Direction {
	var out []Direction
	for _, t := range ts {
		if !slices.Contains(out, t.Direction) {
			out = append(out, t.Direction)
		}
	}
	return out
}

// rate fixes the path's rate and goodput: given, the lab's, or
// measured with 8 parallel streams.
func (r *runner) rate(ctx context.Context, base *Candidate) error {
	res := r.res
	switch {
	case r.o.Rate > 0:
		res.Rate, res.RateSource, r.source = r.o.Rate, "given (--rate)", plan.SourceGiven
		if res.Goodput == 0 {
			res.Goodput = r.o.Rate * 1448 / 1500
			res.GoodputSource = "--rate × 1448/1500 (MSS/MTU of a 1500-byte path)"
		}
	case r.env.LinkRate() > 0:
		res.Rate, res.RateSource, r.source = r.env.LinkRate(), "the lab link's rate", plan.SourceLink
	default:
		// Parallel streams overcome one flow's buffer limit but overflow
		// a shallow queue together (cubic backs off); a BBR probe paces
		// at the bottleneck instead of filling the queue. The best of the
		// probes and the baseline is the estimate, and any trial that
		// does better later raises it (see raise).
		probes := []TrialSpec{{Direction: Forward, Time: r.o.Time, Omit: r.omit, Parallel: 8}}
		avail, _ := r.env.Read([]string{"net.ipv4.tcp_available_congestion_control"})
		if strings.Contains(" "+avail["net.ipv4.tcp_available_congestion_control"]+" ", " bbr ") && r.congestion() != "bbr" {
			probes = append(probes, TrialSpec{Direction: Forward, Time: r.o.Time, Omit: r.omit, Parallel: 8, Congestion: "bbr"})
		}
		r.pr.Stage("estimating the path's rate: %d probe(s) of 8 parallel streams (%s)", len(probes), probeNames(probes))
		best, by := max(base.Summary[Forward].Max, base.Summary[Reverse].Max), "the baseline"
		for _, spec := range probes {
			// The budget holds the probes too (their trials are no
			// candidate's).
			r.probes += r.policy().CostOf(spec.Time, r.res.RTT)
			t, err := r.one(ctx, spec, "rate probe ("+probeName(spec)+")")
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				res.Steps = append(res.Steps, fmt.Sprintf("rate probe %s failed: %v", probeName(spec), err))
				continue
			}
			if t.BitsPerSecond > best {
				best, by = t.BitsPerSecond, "the probe "+probeName(spec)
			}
		}
		res.Rate, res.RateSource = best*1500/1448, "estimated: the best of the probes ("+probeNames(probes)+") and the baseline, here "+by
		res.Goodput, res.GoodputSource, r.source = best, "estimated", plan.SourceEstimated
	}
	if res.GoodputSource == "" && res.Goodput > 0 {
		res.GoodputSource = "the link's rate × MSS/MTU"
	}
	// The baseline ran before the goodput was known (given or
	// estimated): judged without it, a flow at the path's rate reads as
	// held by whatever buffer it filled there.
	for i := range base.Trials {
		base.Trials[i].rejudge(res.Goodput)
	}
	return nil
}

type runner struct {
	env  Env
	o    Options
	pr   Progress
	res  *Result
	omit time.Duration
	// source is where the goodput came from (rate): an estimate rises
	// with the trials and bounds none of them.
	source plan.Source
	// probes is what the rate probes cost, which the budget counts.
	probes  time.Duration
	current map[string]string
	seq     int
	mss     int // the first trial's MSS, which the goodput assumes
	model   window.Model
	// dropsNoted: the steps already say that the host's queues dropped.
	dropsNoted bool
	// queues is the host queues' raise, a dimension of the search's
	// grid (set once, before it).
	queues hostQueues
	// jumbo is the larger MTU the path carries, a dimension of the
	// search's grid (set once, before it).
	jumbo jumbo
}

// trials applies c's settings (none for the baseline), runs n trials in
// each direction, and restores.
func (r *runner) trials(ctx context.Context, c *Candidate, n int, dirs []Direction, extra TrialSpec) error {
	undo := func() error { return nil }
	if kvs := c.KVs(); len(kvs) > 0 && !c.Baseline {
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
			label := fmt.Sprintf("%s, %s %d/%d", c.Name, d, i+1, n)
			if n == 1 {
				label = fmt.Sprintf("screening %s, %s", c.Name, d)
			}
			spec := extra
			spec.Direction, spec.Time, spec.Omit = d, cmp.Or(extra.Time, r.o.Time), r.omit
			if !slices.Contains(plan.Acts(plan.CC, r.env.BothEnds()), d) {
				// The peer's own control sends here: a per-socket one
				// would measure what no setting of this host does.
				spec.Congestion = extra.PeerCongestion
			}
			if spec.Parallel == 0 {
				spec.Parallel = 1
			}
			var t Trial
			t, err = r.one(ctx, spec, label)
			if err != nil {
				break loop
			}
			t.Screening, t.planned = n == 1, spec.Time
			c.Trials = append(c.Trials, t)
			if i+1 < n && r.settled(c.Trials, d) {
				what := "held by this host's buffer without a loss: the buffer's figure"
				if t.Limit == string(attrib.PathFull) {
					what = fmt.Sprintf("filled the path with %s without a loss: the path's figure", r.control(t))
				}
				r.pr.Stage("%s, %s: %d trials within %.0f%% %s, the set stops here", c.Name, d, i+1, 100*r.policy().MinTol, what)
				break
			}
		}
	}
	if uerr := undo(); uerr != nil {
		err = errors.Join(err, fmt.Errorf("restoring after %s: %w", c.Name, uerr))
	}
	c.summarize(r.o.Directions, r.res.Controllable)
	return err
}

// settled reports whether the full set's trials in d so far decide it
// (plan.Settled).
func (r *runner) settled(ts []Trial, d Direction) bool {
	var set []plan.Obs
	for _, t := range ts {
		if t.Direction == d && !t.Screening {
			o := observation(t, plan.Point{}, plan.Full)
			o.Control = r.control(t)
			set = append(set, o)
		}
	}
	return plan.Settled(set, r.env.BothEnds(), r.policy())
}

// control is the congestion control t's sender ran: the trial's -C, else
// this host's default where its control acts on t's direction; "" where
// it is a peer's own default.
func (r *runner) control(t Trial) string {
	if t.Congestion != "" {
		return t.Congestion
	}
	if slices.Contains(plan.Acts(plan.CC, r.env.BothEnds()), t.Direction) {
		return r.congestion()
	}
	return ""
}

// noteDrops records, the first time, that this host's queues dropped
// packets during a trial: the verdict names the queue, and when the
// baseline's trials dropped, its raise is a dimension of the search's
// grid (hostQueues).
func (r *runner) noteDrops(label string, t Trial) {
	if t.Drops == nil || r.dropsNoted {
		return
	}
	r.dropsNoted = true
	r.res.Steps = append(r.res.Steps, fmt.Sprintf("%s: %s; where the baseline's trials dropped, the search may raise that queue at any point", label, t.Drops.Verdict()))
}

// one runs a trial, retrying once (a peer may still be tearing down the
// previous test).
func (r *runner) one(ctx context.Context, spec TrialSpec, label string) (Trial, error) {
	var t Trial
	var err error
	if spec.Congestion == "" {
		spec.Congestion = r.o.Congestion
	}
	spec.PathMSS = r.mss
	for attempt := 0; attempt < 2; attempt++ {
		r.pr.TrialStart(label, spec.Time+spec.Omit)
		t, err = r.env.Trial(ctx, spec, r.res.Goodput, r.res.RTT)
		if err == nil {
			err = r.check(t)
		}
		if err == nil {
			r.raise(t, label)
			r.noteDrops(label, t)
		}
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

func probeName(s TrialSpec) string {
	n := fmt.Sprintf("-P %d", s.Parallel)
	if s.Congestion != "" {
		n += " -C " + s.Congestion
	}
	return n
}

func probeNames(ss []TrialSpec) string {
	var out []string
	for _, s := range ss {
		out = append(out, probeName(s))
	}
	return strings.Join(out, ", ")
}

// congestion is the congestion control trials use unless they set one:
// -C, else the host's default.
func (r *runner) congestion() string {
	if r.o.Congestion != "" {
		return r.o.Congestion
	}
	return norm(r.current[keyCC])
}

// raise keeps an estimated goodput at or above the best any trial
// reached: a path that carried a rate can carry it.
//
// The trial counts payload at its own MSS; the goodput is judged at
// r.mss (window.Payload), so a trial raises the rate by what its packets
// carried, not by its payload (994 Mbit/s at MSS 8948 is a 1 Gbit/s
// link, not 1.03; 972.8 at 1460, timestamps off, is 964.8 at 1448).
func (r *runner) raise(t Trial, label string) {
	res := r.res
	if r.source != plan.SourceEstimated {
		return
	}
	at := r.mss
	if at <= 0 {
		at = 1448
	}
	g := window.Payload(t.BitsPerSecond, t.MSS, at, at)
	if g <= res.Goodput {
		return
	}
	res.Goodput = g
	res.Rate = g * float64(window.Packet(at, at)) / float64(at)
	res.RateSource = "estimated: raised to the best trial (" + label + ")"
}

// check refuses a figure beyond the path: a trial above the link's
// goodput is a counting bug, never a result.
func (r *runner) check(t Trial) error {
	if r.mss == 0 {
		r.mss = t.MSS
	}
	g := r.res.Goodput
	if r.mss > 0 {
		g = window.Payload(g, r.mss, t.MSS, r.mss)
	}
	if g > 0 && r.source != plan.SourceEstimated && t.BitsPerSecond > r.bound(t, g) {
		return fmt.Errorf("measured %s, above the link's goodput %s: a counting error, not a result", rate(t.BitsPerSecond), rate(g))
	}
	return nil
}

// bound is the most a trial t can count on a path of goodput g: g, the
// counting slack (plan.Slack: the sender's count runs ahead of the path
// by the ACKs held up at the period's start), and a policer's bucket
// passed on top of its rate within the measured period (a bucket full at
// the start).
func (r *runner) bound(t Trial, g float64) float64 {
	b := (1 + plan.Slack) * g
	if r.res.Burst > 0 && t.Seconds > 0 && r.res.Rate > 0 {
		b += float64(r.res.Burst) * 8 / t.Seconds * g / r.res.Rate
	}
	return b
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%g s", d.Round(10*time.Millisecond).Seconds())
}
