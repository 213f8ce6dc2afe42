package tune

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/plan"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/view"
	"github.com/tcptune/tcptune/internal/wire"
)

// The model's search on a lab path its send buffer holds: the choice
// fills the path in both directions, its changed maxima stay within 4 ×
// BDP, its full set is its verification (no fresh trials after it), and
// the host ends as it started.
func TestPlannedSendBufferLimited(t *testing.T) {
	m := newModel(1e9, 50*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	start := snapshotValues(m)
	res, err := Run(context.Background(), m, Options{}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	sane(t, res, m)
	ch := res.Choice()
	if !res.Kept || ch.Baseline || res.Verify == nil {
		t.Fatalf("choice %s kept %v: %s", ch.ID, res.Kept, res.Why)
	}
	// The verification is the choice's own full set: its trials, less
	// the screening, and no other trial of those settings ran.
	var own []Trial
	for _, tr := range ch.Trials {
		if !tr.Screening {
			own = append(own, tr)
		}
	}
	if len(own) != 6 || !reflect.DeepEqual(own, res.Verify.Trials) {
		t.Errorf("verification %d trials, the choice's full set %d", len(res.Verify.Trials), len(own))
	}
	if !res.FullSet || !strings.HasSuffix(res.AfterLabel(), ", its full set") {
		t.Errorf("the verification is the choice's full set, but the result says %v (%q)", res.FullSet, res.AfterLabel())
	}
	if ch.RmemMax != 33554432 {
		t.Errorf("tcp_rmem max %d: the host's 32 MiB is the grid's floor", ch.RmemMax)
	}
	if ch.WmemMax <= 4194304 || ch.WmemMax > 4*res.BDP {
		t.Errorf("tcp_wmem max %.2f × BDP", float64(ch.WmemMax)/float64(res.BDP))
	}
	restored(t, m, start)
}

// Loss holds cubic's window; BBR reaches the path: the model's search
// learns cubic's limit from its full set (a control that cuts its window
// at each loss shares it: reno is not tried), and chooses BBR, set as
// the default where the host takes it.
func TestPlannedLossLimited(t *testing.T) {
	m := newModel(300e6, 150*time.Millisecond, "4096 131072 33554432", "4096 16384 33554432")
	m.lossCap = map[string]float64{"cubic": 0.30, "reno": 0.2, "bbr": 0.95}
	start := snapshotValues(m)
	res, err := Run(context.Background(), m, Options{}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	ch := res.Choice()
	if ch.Congestion != "bbr" || !res.Kept {
		t.Fatalf("choice %s with %q, kept %v: %s", ch.ID, ch.Congestion, res.Kept, res.Why)
	}
	if !slices.ContainsFunc(ch.Settings, func(s Setting) bool { return s.Key == keyCC && s.Value == "bbr" }) {
		t.Errorf("bbr not the default: %+v", ch.Settings)
	}
	for _, s := range m.specs {
		if s.Congestion == "reno" {
			t.Errorf("reno tried, though cubic's full set showed loss holding a control that cuts its window")
		}
	}
	restored(t, m, start)
}

// Against a peer, this host's congestion control sends only forward:
// reverse's trials run the peer's own, never a per-socket -C, and a
// choice that changes the control is judged forward. Reverse, short of
// the path with no buffer holding it, gets one trial with a pacing
// control on the peer's sending sockets, reported: here it lifts
// reverse, so the peer's control holds it, and the peer's command says
// so.
func TestPlannedPeerControlActsForward(t *testing.T) {
	m := newModel(300e6, 150*time.Millisecond, "4096 131072 33554432", "4096 16384 33554432")
	m.both, m.peerR, m.peerW = false, 33554432, 33554432
	m.lossCap = map[string]float64{"cubic": 0.30, "reno": 0.2, "bbr": 0.95}
	res, err := Run(context.Background(), m, Options{Rate: 300e6}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	tried, peer := false, 0
	for _, s := range m.specs {
		if s.Direction == Reverse && s.Congestion != "" {
			if peer++; s.Congestion != "bbr" || peer > 1 {
				t.Fatalf("reverse trial %d ran -C %s", peer, s.Congestion)
			}
		}
		tried = tried || s.Congestion == "bbr"
	}
	lever := peerLeverOf(res)
	advice := strings.Join(res.PeerAdvice, "\n")
	if peer != 1 || lever.Direction != Reverse || !lever.Helped || !strings.Contains(advice, "its congestion control holds reverse: on 10.0.0.2: sysctl -w net.ipv4.tcp_congestion_control=bbr") {
		t.Errorf("%d reverse trials with -C; lever %+v; peer advice:\n%s", peer, lever, advice)
	}
	if !tried {
		t.Fatalf("bbr never tried: %s", res.Why)
	}
	if ch := res.Choice(); ch.Congestion != "bbr" || !res.Kept {
		t.Errorf("choice %s with %q, kept %v: %s", ch.ID, ch.Congestion, res.Kept, res.Why)
	}
}

// The peer trial's finding names what it rules out by the class it
// tried, and the command only where it helped.
func TestPeerFinding(t *testing.T) {
	for _, c := range []struct {
		p         peerCC
		want, not string
	}{
		{peerCC{cc: "bbr", rate: 1e8, gain: 1, before: 1e8}, "not a loss-based control's cut at each loss but its send buffer, or the path", "sysctl"},
		{peerCC{cc: "cubic", rate: 1e8, gain: 1, before: 1e8}, "not a pacing control's overfilled queue but its send buffer, or the path", "sysctl"},
		{peerCC{cc: "bbr", rate: 2e8, gain: 2, before: 1e8, short: 0.5, helped: true}, "its congestion control holds reverse: on h: sysctl -w net.ipv4.tcp_congestion_control=bbr, or -C bbr in the application that sends; with it reverse is still 50% of the path", "not a"},
	} {
		if got := c.p.finding(Reverse, "h"); !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%+v: %q", c.p, got)
		}
	}
}

// peerLeverOf is res's trial on the peer's sockets (zero: none ran).
func peerLeverOf(res *Result) Lever {
	for _, l := range res.Levers {
		if strings.HasSuffix(l.Name, "on the peer's sending sockets") {
			return l
		}
	}
	return Lever{}
}

// A peer without the control refuses it: the run goes on, and says
// its control was not tested.
func TestPeerLeverRefused(t *testing.T) {
	m := newModel(300e6, 150*time.Millisecond, "4096 131072 33554432", "4096 16384 33554432")
	m.both, m.peerR, m.peerW, m.refuses = false, 33554432, 33554432, "bbr"
	m.lossCap = map[string]float64{"cubic": 0.30, "reno": 0.2, "bbr": 0.95}
	res, err := Run(context.Background(), m, Options{Rate: 300e6}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	steps := strings.Join(res.Steps, "\n")
	if !res.Kept || !strings.Contains(steps, "-C bbr on the peer's sending sockets: the peer refused it") || strings.Contains(strings.Join(res.PeerAdvice, "\n"), "tcp_congestion_control") {
		t.Errorf("kept %v: %s\nsteps:\n%s\npeer advice %q", res.Kept, res.Why, steps, res.PeerAdvice)
	}
}

// The peer's trial with bbr beats the median of reverse's trials, but
// not every one of them (a loss-held flow's spread): it does not decide
// that the peer's control holds reverse.
func TestPeerLeverWithinTheSpread(t *testing.T) {
	m := newModel(300e6, 150*time.Millisecond, "4096 131072 33554432", "4096 16384 33554432")
	m.both, m.peerR, m.peerW = false, 33554432, 33554432
	m.lossCap = map[string]float64{"cubic": 0.30, "reno": 0.2, "bbr": 0.36}
	m.peerSpread = []float64{1, 1.3, 1}
	res, err := Run(context.Background(), m, Options{Rate: 300e6}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	advice := strings.Join(res.PeerAdvice, "\n")
	if l := peerLeverOf(res); l.Direction != Reverse || l.Helped || l.Gain < 1.05 || !strings.Contains(advice, "not a loss-based control's cut at each loss") {
		t.Errorf("levers %+v; peer advice:\n%s", res.Levers, advice)
	}
}

// The budget bounds the search: a shorter one spends less and still
// ends with a verified choice or the baseline.
func TestPlannedBudget(t *testing.T) {
	m := newModel(1e9, 50*time.Millisecond, "4096 131072 4194304", "4096 16384 4194304")
	const budget = 90 * time.Second
	res, err := Run(context.Background(), m, Options{Budget: budget}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	long := newModel(1e9, 50*time.Millisecond, "4096 131072 4194304", "4096 16384 4194304")
	if _, err := Run(context.Background(), long, Options{}, quiet{}); err != nil {
		t.Fatal(err)
	}
	if m.trials >= long.trials {
		t.Errorf("a %s budget ran %d trials, the default %d", budget, m.trials, long.trials)
	}
	// The search's trials, the baseline's and the reference profiles'
	// short ones included, stay within the budget; the MTU step and the
	// levers come after it.
	setup := time.Second + 8*50*time.Millisecond
	var spent time.Duration
	for _, c := range res.Candidates {
		if c.Origin == OriginSearch || c.Origin == OriginProfile || c.Baseline {
			for _, tr := range c.Trials {
				spent += setup + time.Duration(tr.Seconds*float64(time.Second))
			}
		}
	}
	if spent > budget {
		t.Errorf("the search spent %s of a %s budget", spent, budget)
	}
}

// TestBudgetBounds: a budget that cannot hold the baseline's and a
// verification's full sets is refused before any trial, naming the
// flag; one that holds just those measures no reference profile and,
// the budget spent before any point had its full set, says so rather
// than that nothing beat the current settings.
func TestBudgetBounds(t *testing.T) {
	m := newModel(1e9, 50*time.Millisecond, "4096 131072 4194304", "4096 16384 4194304")
	if _, err := Run(context.Background(), m, Options{Budget: 60 * time.Second}, quiet{}); err == nil || !strings.HasPrefix(err.Error(), "--budget: 60 s cannot hold") || m.trials > 0 {
		t.Errorf("a 60 s budget at 50 ms: %v after %d trials", err, m.trials)
	}
	m = newModel(1e9, 50*time.Millisecond, "4096 131072 4194304", "4096 16384 4194304")
	m.randomLoss = 1e-5 // the baseline's trials lose: its full set runs every trial
	res, err := Run(context.Background(), m, Options{Budget: 77 * time.Second}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Candidates {
		if c.Origin == OriginProfile && len(c.Trials) > 0 {
			t.Errorf("%s measured with no time left in the budget", c.Name)
		}
	}
	if res.ChoiceID != res.Baseline().ID || !strings.Contains(res.Why, "the budget (--budget 77 s) ended") {
		t.Errorf("choice %s: %s", res.ChoiceID, res.Why)
	}
}

// A direction this host's buffer holds short of the path is explained:
// the buffer at the grid's top, or the best measured with more of it,
// or no such point measured.
func TestWhyNotMore(t *testing.T) {
	const bdp = 6250000
	sum := func(med float64, n int) map[Direction]stats.Summary {
		return map[Direction]stats.Summary{Forward: {N: n, Median: med}}
	}
	choice := &Candidate{Name: "wmem 1.33 × BDP", Origin: OriginSearch, WmemMax: 8323072, Summary: sum(1.86e9, 3)}
	more := &Candidate{Name: "wmem 4 × BDP with bbr", Origin: OriginSearch, WmemMax: 4 * bdp, Summary: sum(1.89e9, 1)}
	less := &Candidate{Name: "wmem 1.15 × BDP", Origin: OriginSearch, WmemMax: 7208960, Summary: sum(1.95e9, 1)}
	ref := &Candidate{Name: "ESnet", Origin: OriginProfile, WmemMax: 8 * bdp, Summary: sum(1.99e9, 1)}
	for _, tc := range []struct {
		cands  []*Candidate
		choice *Candidate
		want   string
	}{
		{[]*Candidate{choice, more, less, ref}, choice, "with more tcp_wmem the best measured was 1.89 Gbit/s (wmem 4 × BDP with bbr, 1 trial(s)), at more memory"},
		{[]*Candidate{choice, less, ref}, choice, "no point with more tcp_wmem than 1.33 × BDP was measured"},
		{[]*Candidate{choice, more}, more, "this host's tcp_wmem max is 4 × BDP, the grid's top"},
	} {
		r := &runner{res: &Result{BDP: bdp, Candidates: tc.cands}}
		if got := r.whyNotMore(Forward, keyWmem, tc.choice, 4); !strings.HasPrefix(got, tc.want) {
			t.Errorf("got %q\nwant %q", got, tc.want)
		}
	}
}

// TestWindowWhy: the -P 4 lever's reason says only what the trial's
// evidence decides: loss cut the window, the window stayed under the
// BDP, or (a BDP in flight and no loss) the window did not hold it.
func TestWindowWhy(t *testing.T) {
	const bdp = 6250000
	for _, c := range []struct {
		t    Trial
		want string
	}{
		{Trial{Retransmits: 120, Inflight: 7e6}, "with loss (120 retransmits)"},
		{Trial{Retransmits: 0, Inflight: 3e6}, "under the path's BDP"},
		{Trial{Retransmits: 0, Inflight: 7e6}, "not its window"},
		{Trial{Retransmits: -1, Inflight: 7e6}, "the congestion window holds the flow short of the path"},
	} {
		if got := windowWhy(Forward, c.t, bdp); !strings.Contains(got, c.want) || !strings.HasPrefix(got, "forward: ") {
			t.Errorf("%+v: %q, want %q", c.t, got, c.want)
		}
	}
}

// unknownRate is a peer whose path's rate tune must estimate (probes).
type unknownRate struct{ *modelEnv }

func (u unknownRate) LinkRate() float64 { return 0 }
func (u unknownRate) Goodput() float64  { return 0 }

// The budget holds every trial tune runs, not only the search's: the
// rate probes where the rate is estimated, and the application settings
// screened after the search, which run only where their trial fits what
// the budget has left (the report says which did not).
func TestBudgetHoldsEveryTrial(t *testing.T) {
	for _, budget := range []time.Duration{60 * time.Second, 75 * time.Second, 90 * time.Second, 3 * time.Minute} {
		m := newModel(1e9, 20*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
		m.both, m.peerR, m.peerW = false, 33554432, 33554432
		m.cpuCap, m.cpuDrops = 500e6, true
		res, err := Run(context.Background(), unknownRate{m}, Options{Budget: budget}, quiet{})
		if err != nil {
			t.Fatal(err)
		}
		pol := plan.DefaultPolicy(3, 5*time.Second, time.Second, res.RTT)
		var spent time.Duration
		probes := 0
		for _, s := range m.specs {
			spent += pol.CostOf(s.Time, res.RTT)
			if s.Parallel == 8 {
				probes++
			}
		}
		if probes == 0 || spent > budget {
			t.Errorf("--budget %s: %d trials (%d rate probes) cost %s", budget, len(m.specs), probes, spent)
		}
		if budget == 60*time.Second && (len(res.Levers) != 1 || !strings.Contains(strings.Join(res.Steps, "\n"), "4 parallel streams (-P 4) not screened: the budget")) {
			t.Errorf("--budget %s: levers %+v, want -P 4 left out for lack of time; steps:\n%s", budget, res.Levers, strings.Join(res.Steps, "\n"))
		}
	}
}

// judgedAt is a peer whose trials are judged by the real attribution,
// at the path rate tune passes with each, from the sender's view of one
// stream that kept its send buffer full: what a trial looks like where
// the default buffers fill the path.
type judgedAt struct{ unknownRate }

func (j judgedAt) Trial(ctx context.Context, s TrialSpec, pathRate float64, rtt time.Duration) (Trial, error) {
	t, err := j.unknownRate.Trial(ctx, s, pathRate, rtt)
	if err != nil {
		return t, err
	}
	secs := s.Time.Seconds()
	inflight := t.BitsPerSecond / 8 * rtt.Seconds()
	e := wire.ExtStream{ID: 1, Seconds: secs, Bytes: int64(t.BitsPerSecond / 8 * secs), Delivered: int64(t.BitsPerSecond / 8 * secs),
		BusyUS: uint64(secs * 1e6), SndbufUS: uint64(secs * 1e6), SndBuf: uint64(t.SndBuf), SndWnd: 4 * uint64(inflight), Cwnd: 2 * uint64(inflight),
		RTT: uint32(rtt.Microseconds()), MinRTT: uint32(rtt.Microseconds()), MSS: 1448, PMTU: 1500, Inflight: uint64(inflight), Retransmits: 0}
	ld := limits.Direction{Name: limits.ClientToServer, Streams: []wire.ExtStream{e},
		Context: limits.Context{PathRate: pathRate, IdleRTTUS: uint64(rtt.Microseconds()), SenderIsLocal: s.Direction == Forward}}
	v := view.Direction{Verdict: limits.Attribute(ld), Judged: &ld}
	t.judged = &v
	t.attribute(v.Verdict.Result)
	return t, nil
}

// A baseline run before the path's rate is estimated (a peer, no
// --rate) is judged again at the estimate: where the defaults fill the
// path, its limit is the path, not the send buffer the flow filled on
// the way (the report's "Limit before" read "limited by the send
// buffer" at 965 of 965 Mbit/s).
func TestBaselineJudgedAtTheEstimate(t *testing.T) {
	m := newModel(1e9, 20*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	m.both, m.peerR, m.peerW = false, 33554432, 33554432
	res, err := Run(context.Background(), judgedAt{unknownRate{m}}, Options{}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.AlreadyFull {
		t.Fatalf("the defaults fill the path; steps:\n%s", strings.Join(res.Steps, "\n"))
	}
	for _, tr := range res.Candidates[0].Trials {
		if tr.Limit != string(attrib.PathFull) {
			t.Errorf("baseline %s at %.1f of %.1f Mbit/s: %s (%s)", tr.Direction, tr.BitsPerSecond/1e6, res.Goodput/1e6, tr.Limit, tr.Verdict)
		}
	}
}

// overflowing is a peer whose rate probes' eight streams overflow a
// queue together and read 80% of the path: the estimate starts short,
// and the search's trials raise it.
type overflowing struct{ judgedAt }

func (o overflowing) Trial(ctx context.Context, s TrialSpec, pathRate float64, rtt time.Duration) (Trial, error) {
	if s.Parallel >= 8 {
		t, err := o.unknownRate.Trial(ctx, s, pathRate, rtt)
		t.BitsPerSecond = 0.8 * o.goodputNow()
		return t, err
	}
	return o.judgedAt.Trial(ctx, s, pathRate, rtt)
}

// Every trial the search observed is judged at the goodput the model
// ends with: where the estimate rose past a trial judged full at it,
// that trial reads as the buffer that held it.
func TestTrialsJudgedAtTheRaisedEstimate(t *testing.T) {
	m := newModel(1e9, 50*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	m.both, m.peerR, m.peerW = false, 33554432, 33554432
	res, err := Run(context.Background(), overflowing{judgedAt{unknownRate{m}}}, Options{Directions: []Direction{Forward}}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	short := 0
	for _, c := range res.Candidates {
		for _, tr := range c.Trials {
			t.Logf("%s %s: %.1f Mbit/s judged at %.1f: %s", c.Name, tr.Direction, tr.BitsPerSecond/1e6, tr.judgedAt()/1e6, tr.Limit)
			if tr.judgedAt() < 0 || attrib.Full(tr.BitsPerSecond, res.Goodput) {
				continue
			}
			if attrib.Full(tr.BitsPerSecond, 0.8*m.goodputNow()) {
				short++
			}
			if tr.Limit == string(attrib.PathFull) {
				t.Errorf("%s: %.1f of %.1f Mbit/s judged full (at %.1f)", c.Name, tr.BitsPerSecond/1e6, res.Goodput/1e6, tr.judgedAt()/1e6)
			}
		}
	}
	if short == 0 {
		t.Errorf("no trial fell between the first estimate and the path (%s)", res.RateSource)
	}
}

// lagging is a lab whose relay fell behind by behind over the run.
type lagging struct {
	*modelEnv
	behind   time.Duration
	faithful bool
}

func (l lagging) Relay() (time.Duration, bool, bool) { return l.behind, l.faithful, true }

// In the lab, the result records what the relay added to the RTT, and
// the report says when it was beyond the lab's accuracy: the figures
// are then the machine's, not the link's.
func TestResultSaysTheRelayFellBehind(t *testing.T) {
	for _, c := range []struct {
		behind   time.Duration
		faithful bool
	}{{1050 * time.Microsecond, false}, {80 * time.Microsecond, true}} {
		m := newModel(100e6, 10*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
		res, err := Run(context.Background(), lagging{m, c.behind, c.faithful}, Options{}, quiet{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Relay == nil || res.Relay.BehindUS != float64(c.behind.Microseconds()) || res.Relay.Faithful != c.faithful {
			t.Fatalf("relay %+v, want %v behind (faithful %v)", res.Relay, c.behind, c.faithful)
		}
		var text strings.Builder
		WriteText(&text, res)
		if said := strings.Contains(text.String(), "Lab: the relay fell behind: it added 1.05 ms"); said == c.faithful {
			t.Errorf("faithful %v, report:\n%s", c.faithful, text.String())
		}
		var html strings.Builder
		if err := WriteHTML(&html, res); err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(html.String(), "Lab: the relay fell behind: it added 1.05 ms"); said == c.faithful {
			t.Errorf("faithful %v, the HTML report says so: %v", c.faithful, said)
		}
	}
}

// A trial's retransmits that the receiver reported as duplicates (DSACK:
// a path that reorders) are no loss in the observation the model reads.
func TestObservationLost(t *testing.T) {
	for _, c := range []struct{ retrans, spurious, lost int64 }{{45, 45, 0}, {45, 3, 42}, {0, 0, 0}, {-1, 0, -1}, {5, 9, 0}} {
		if o := observation(Trial{Retransmits: c.retrans, Spurious: c.spurious}, plan.Point{}, plan.Full); o.Lost != c.lost {
			t.Errorf("%d retransmits, %d spurious: lost %d, want %d", c.retrans, c.spurious, o.Lost, c.lost)
		}
	}
}
