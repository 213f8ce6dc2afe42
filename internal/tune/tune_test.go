package tune

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
)

// modelEnv is a path whose throughput follows the textbook: the least of
// the link's goodput, the receive window (0.65 × tcp_rmem max) ÷ RTT and
// the send buffer ÷ RTT, with ±1% noise. Settings live in a map, so the
// test can check that everything is restored.
type modelEnv struct {
	rate     float64
	rtt      time.Duration
	values   map[string]string
	rng      *rand.Rand
	sets     int
	undos    int
	kept     []apply.KV
	trials   int
	hostOnly bool
}

func newModel(rate float64, rtt time.Duration, rmem, wmem string) *modelEnv {
	return &modelEnv{rate: rate, rtt: rtt, rng: rand.New(rand.NewPCG(1, 2)), values: map[string]string{
		keyRmem: rmem, keyWmem: wmem, "net.ipv4.tcp_sack": "1", "net.ipv4.tcp_timestamps": "1",
		"net.ipv4.tcp_notsent_lowat": "4294967295", "net.ipv4.tcp_slow_start_after_idle": "1",
	}}
}

func (m *modelEnv) Describe() string                           { return "model" }
func (m *modelEnv) RTT(context.Context) (time.Duration, error) { return m.rtt, nil }
func (m *modelEnv) LinkRate() float64                          { return m.rate }
func (m *modelEnv) Goodput() float64                           { return m.rate * 1448 / 1500 }

func (m *modelEnv) Trial(_ context.Context, s TrialSpec) (Trial, error) {
	m.trials++
	rtt := m.rtt.Seconds()
	bps := min(m.Goodput(), 0.65*float64(maxOf(m.values[keyRmem]))*8/rtt, float64(maxOf(m.values[keyWmem]))*8/rtt)
	bps *= 1 + 0.01*(m.rng.Float64()*2-1)
	return Trial{Direction: s.Direction, BitsPerSecond: bps, Intervals: []float64{bps, bps}, Window: maxOf(m.values[keyRmem]) / 2, SndBuf: maxOf(m.values[keyWmem])}, nil
}

func (m *modelEnv) Read(keys []string) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range keys {
		if v, ok := m.values[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

func (m *modelEnv) Split(kvs []apply.KV) (ok []apply.KV, skipped []string, err error) {
	for _, kv := range kvs {
		if _, known := m.values[kv.Key]; known {
			ok = append(ok, kv)
		} else {
			skipped = append(skipped, kv.Key+": host-only")
		}
	}
	return ok, skipped, nil
}

func (m *modelEnv) Set(kvs []apply.KV) (func() error, error) {
	m.sets++
	old := map[string]string{}
	for _, kv := range kvs {
		old[kv.Key] = m.values[kv.Key]
		m.values[kv.Key] = kv.Value
	}
	return func() error {
		m.undos++
		for k, v := range old {
			m.values[k] = v
		}
		return nil
	}, nil
}

func (m *modelEnv) Keep(kvs []apply.KV, persist bool) (string, error) {
	m.kept = kvs
	for _, kv := range kvs {
		m.values[kv.Key] = kv.Value
	}
	return "backup-1", nil
}

type quiet struct{}

func (quiet) Stage(string, ...any)             {}
func (quiet) TrialStart(string, time.Duration) {}
func (quiet) TrialEnd(Trial, error)            {}

func snapshotValues(m *modelEnv) map[string]string {
	out := map[string]string{}
	for k, v := range m.values {
		out[k] = v
	}
	return out
}

func TestTuneSendBufferLimited(t *testing.T) {
	// This host's inherited values: a 32 MB tcp_rmem max, a 4 MB
	// tcp_wmem max — send-buffer limited at 1 Gbit/s × 50 ms.
	m := newModel(1e9, 50*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	start := snapshotValues(m)
	res, err := Run(context.Background(), m, Options{}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	ch := res.Choice()
	if ch == nil || ch.Baseline || !res.Kept {
		t.Fatalf("choice %+v kept %v (%s)", ch, res.Kept, res.Why)
	}
	if len(ch.Cautions) > 0 {
		t.Errorf("chose %s, which the catalogue cautions against", ch.ID)
	}
	// The choice is the least memory among eligible candidates within
	// 5% of the best, and within 4 × BDP.
	var best float64
	for _, c := range res.Candidates {
		if len(c.Cautions) == 0 && c.Score > best {
			best = c.Score
		}
	}
	for _, c := range res.Candidates {
		if len(c.Cautions) == 0 && c.Score >= 0.95*best && c.Memory < ch.Memory && c.Runs(Forward) > 0 {
			t.Errorf("%s (%d bytes, %.0f) qualifies with less memory than %s (%d bytes)", c.ID, c.Memory, c.Score, ch.ID, ch.Memory)
		}
	}
	if ch.RmemMax > 4*res.BDP || ch.WmemMax > 4*res.BDP {
		t.Errorf("choice %s: rmem %d wmem %d exceed 4 × BDP %d", ch.ID, ch.RmemMax, ch.WmemMax, res.BDP)
	}
	if after := res.After().Summary[Forward].Median; after < 0.93*m.Goodput() {
		t.Errorf("after %.0f, want ≥ 93%% of %.0f", after, m.Goodput())
	}
	// Baseline and verification have every trial in both directions.
	for _, c := range []*Candidate{res.Baseline(), res.Verify} {
		if c.Runs(Forward) != 3 || c.Runs(Reverse) != 3 {
			t.Errorf("%s: %d/%d trials", c.ID, c.Runs(Forward), c.Runs(Reverse))
		}
	}
	// The 512 MB set and the SACK-off set were measured, host-only keys
	// skipped, duplicates not run twice.
	byID := map[string]*Candidate{}
	for _, c := range res.Candidates {
		byID[c.ID] = c
	}
	if c := byID["seed-004-set2"]; c == nil || c.Runs(Forward) == 0 {
		t.Errorf("seed 004 set 2 not measured")
	}
	if c := byID["seed-002"]; c == nil || len(c.Cautions) != 2 || c.Runs(Forward) == 0 {
		t.Errorf("seed 002: %+v", c)
	}
	if c := byID["seed-003"]; c == nil || c.Status != "nothing applicable here" || len(c.Skipped) != 3 {
		t.Errorf("seed 003: %+v", c)
	}
	// Without --apply every value is back.
	if m.sets != m.undos || m.kept != nil {
		t.Errorf("sets %d undos %d kept %v", m.sets, m.undos, m.kept)
	}
	for k, v := range start {
		if m.values[k] != v {
			t.Errorf("%s left at %q, was %q", k, m.values[k], v)
		}
	}
}

func TestTuneApplyKeeps(t *testing.T) {
	m := newModel(1e9, 50*time.Millisecond, "4096 131072 6291456", "4096 16384 4194304")
	res, err := Run(context.Background(), m, Options{Apply: true, Trials: 2, Directions: []Direction{Forward}}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Applied || res.BackupID != "backup-1" || len(m.kept) == 0 {
		t.Fatalf("applied %v backup %q kept %v", res.Applied, res.BackupID, m.kept)
	}
	if got := m.values[keyRmem]; got != res.Choice().KVs()[0].Value && got != res.Choice().KVs()[1].Value {
		t.Errorf("tcp_rmem %q after --apply", got)
	}
}

// On a short path every candidate fills the link: a smaller candidate
// than the current settings may be chosen, but it cannot beat the
// baseline by more than the noise, so it is rolled back.
func TestTuneNothingToGain(t *testing.T) {
	m := newModel(100e6, 2*time.Millisecond, "4096 131072 33554432", "4096 16384 33554432")
	start := snapshotValues(m)
	res, err := Run(context.Background(), m, Options{Apply: true}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kept || res.Applied || m.kept != nil {
		t.Fatalf("kept %v applied %v: %s", res.Kept, res.Applied, res.Why)
	}
	if !strings.Contains(res.Why, "rolled back") && !strings.Contains(res.Why, "nothing to change") {
		t.Errorf("why: %s", res.Why)
	}
	for k, v := range start {
		if m.values[k] != v {
			t.Errorf("%s left at %q", k, m.values[k])
		}
	}
}

func TestJudge(t *testing.T) {
	mk := func(xs ...float64) *Candidate {
		c := &Candidate{}
		for _, x := range xs {
			c.Trials = append(c.Trials, Trial{Direction: Forward, BitsPerSecond: x})
		}
		c.summarize([]Direction{Forward})
		return c
	}
	if ok, why := judge(mk(100, 110, 105), mk(200, 190, 210), []Direction{Forward}); !ok {
		t.Errorf("clear gain rolled back: %s", why)
	}
	if ok, _ := judge(mk(100, 110, 105), mk(108, 112, 120), []Direction{Forward}); ok {
		t.Errorf("overlapping ranges kept")
	}
	if ok, _ := judge(mk(100, 100.1, 100.2), mk(100.3, 100.4, 100.5), []Direction{Forward}); ok {
		t.Errorf("a 0.3%% gain kept")
	}
	if ok, why := judge(mk(100, 101, 102), mk(80, 81, 82), []Direction{Forward}); ok || !strings.Contains(why, "worse") {
		t.Errorf("loss kept: %s", why)
	}
}

func TestGenerate(t *testing.T) {
	cs, err := Generate(GenInput{Rate: 1e9, RTT: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	want := "advise kernel-defaults tuned-network-throughput esnet-10g seed-000 seed-002 seed-003 seed-004-set1 seed-004-set2"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("candidates %s\nwant %s", got, want)
	}
	if !strings.Contains(cs[3].Source, "no class below 10G") {
		t.Errorf("ESnet note missing: %s", cs[3].Source)
	}
	if cs[0].Settings[0].Key != keyRmem || cs[0].Settings[0].Reason == "" {
		t.Errorf("advise: %+v", cs[0].Settings)
	}
	if cs[1].Settings[0].Value != "4096 131072 6291456" {
		t.Errorf("kernel defaults: %+v", cs[1].Settings)
	}
	cs, _ = Generate(GenInput{Rate: 10e9, RTT: 150 * time.Millisecond})
	if cs[3].ID != "esnet-10g-200ms" {
		t.Errorf("10G × 150 ms: ESnet class %s", cs[3].ID)
	}
}

func TestParseTrial(t *testing.T) {
	data, err := os.ReadFile("testdata/bench_forward.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseTrial(data, Forward)
	if err != nil {
		t.Fatal(err)
	}
	if tr.BitsPerSecond < 50e6 || len(tr.Intervals) != 2 || tr.Window == 0 || tr.SndBuf == 0 || tr.RTTus < 20000 || tr.Limit == "" || tr.Verdict == "" {
		t.Errorf("forward: %+v", tr)
	}
	data, _ = os.ReadFile("testdata/bench_reverse.json")
	tr, err = parseTrial(data, Reverse)
	if err != nil {
		t.Fatal(err)
	}
	if tr.BitsPerSecond < 50e6 || tr.Window == 0 || tr.SndBuf == 0 || tr.Limit != "network" {
		t.Errorf("reverse (the server's view): %+v", tr)
	}
	data, _ = os.ReadFile("testdata/bench_refused.json")
	if _, err := parseTrial(data, Forward); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("refused: %v", err)
	}
	if _, err := parseTrial([]byte("not json"), Forward); err == nil {
		t.Error("garbage accepted")
	}
}

func TestReports(t *testing.T) {
	m := newModel(1e9, 50*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	res, err := Run(context.Background(), m, Options{}, quiet{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	WriteText(&text, res)
	for _, want := range []string{"before (current settings)", "→ after", "× (", "Chosen: ", "net.ipv4.tcp_wmem = ", "Verification: kept", "CANDIDATE", "seed 004 parameter set 2", "Caution (seed 002"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, res); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{`id="chart-throughput"`, `id="chart-time"`, `id="chart-window"`} {
		if !strings.Contains(h.String(), id) {
			t.Errorf("report lacks %s", id)
		}
	}
	if strings.Count(h.String(), `class="mark"`) < 30 {
		t.Errorf("report has %d marks", strings.Count(h.String(), `class="mark"`))
	}
	if strings.Contains(h.String(), "<script src") || strings.Contains(h.String(), "<link") {
		t.Error("report is not self-contained")
	}
}

func TestBar(t *testing.T) {
	if got := bar(3*time.Second, 6*time.Second, 10); got != "[#####.....]  3.0/6.0 s" {
		t.Errorf("bar: %q", got)
	}
	if got := bar(9*time.Second, 6*time.Second, 4); !strings.HasPrefix(got, "[####]") {
		t.Errorf("overrun bar: %q", got)
	}
}
