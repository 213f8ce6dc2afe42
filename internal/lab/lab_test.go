package lab

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/linkem"
	"github.com/tcptune/tcptune/internal/relay"
)

func TestParseLoss(t *testing.T) {
	for in, want := range map[string]float64{"0": 0, "0.0001": 0.0001, "0.01%": 0.0001, "50%": 0.5, "0.5": 0.5} {
		if got, err := ParseLoss(in); err != nil || got != want {
			t.Errorf("%s: %g %v", in, got, err)
		}
	}
	for _, in := range []string{"", "%", "x", "51%", "-1", "NaN", "0.6", "1e400"} {
		if _, err := ParseLoss(in); err == nil || !strings.HasPrefix(err.Error(), "--loss: ") {
			t.Errorf("%q accepted or unnamed: %v", in, err)
		}
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("wan", Spec{Rate: "1gbit", RTT: "50ms", Loss: "0.1%", Queue: "1bdp", MTU: 1500})
	if err != nil || c.Rate != 1e9 || c.RTT != 50*time.Millisecond || c.Loss != 0.001 || c.Queue != c.BDP() || c.Name != "wan" {
		t.Fatalf("%+v %v", c, err)
	}
	// The path's MTU reaches the relay's model; the smaller of it and
	// the hosts' is what crosses.
	c, err = ParseConfig("jumbo", Spec{Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 9000, PathMTU: 1500, PMTUBlackhole: true})
	if m := c.Model(); err != nil || m.Path.MTU != 1500 || !m.Path.Blackhole || c.CarriedMTU() != 1500 {
		t.Fatalf("path MTU: %+v %v", c, err)
	}
	if c.TxQLen() != DefaultTxQueueLen {
		t.Fatalf("txqueuelen %d by default", c.TxQLen())
	}
	if c, err := ParseConfig("short", Spec{Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500, TxQLen: 8}); err != nil || c.TxQLen() != 8 {
		t.Fatalf("--txqueuelen 8: %d %v", c.TxQLen(), err)
	}
	if st := (State{AddrA: "10.201.7.1"}); st.Router().String() != "10.201.7.254" {
		t.Fatalf("router %v", st.Router())
	}
	for flag, s := range map[string]Spec{
		"--rate":           {Rate: "fast", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500},
		"--rtt":            {Rate: "1gbit", RTT: "soon", Loss: "0", Queue: "1bdp", MTU: 1500},
		"--loss":           {Rate: "1gbit", RTT: "50ms", Loss: "lots", Queue: "1bdp", MTU: 1500},
		"--queue":          {Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "deep", MTU: 1500},
		"--path-mtu":       {Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500, PathMTU: 100},
		"--pmtu-blackhole": {Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500, PMTUBlackhole: true},
		"--txqueuelen":     {Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500, TxQLen: -1},
	} {
		if _, err := ParseConfig("wan", s); err == nil || !strings.HasPrefix(err.Error(), flag) {
			t.Errorf("%s: %v", flag, err)
		}
	}
}

func TestWriteUp(t *testing.T) {
	c, err := ParseConfig("wan", Spec{Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500, PathMTU: 1400, TxQLen: 8, Police: "200mbit", PoliceBurst: "1M"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteUp(&b, &State{Config: c, NSA: "tcptune-wan-a", NSB: "tcptune-wan-b", AddrA: "10.201.3.1", AddrB: "10.201.3.2"})
	for _, want := range []string{"lab wan up: tcptune-wan-a (10.201.3.1) ⇄ tcptune-wan-b (10.201.3.2), 1 Gbit/s, policed at 200 Mbit/s (burst 1.0 MB), RTT 50ms", "MTU 1500, txqueuelen 8",
		"path MTU 1400: larger packets with DF are dropped with an ICMP \"fragmentation needed\" from 10.201.3.254", "tcptune bench -c 10.201.3.2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteList(t *testing.T) {
	c, _ := ParseConfig("wan", Spec{Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500})
	links := []Link{{State: State{Config: c, NSA: "tcptune-wan-a", NSB: "tcptune-wan-b", AddrA: "10.201.1.1", AddrB: "10.201.1.2", PID: 42}, Alive: true}}
	var b strings.Builder
	if err := WriteList(&b, links); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[1], "wan") || !strings.Contains(lines[1], "42 alive") || !strings.Contains(lines[1], "50ms") {
		t.Fatalf("%q", lines)
	}
}

// A relay is faithful while what it adds to the RTT stays within the
// lab's accuracy target, 0.3 ms + 1% of the RTT; lab ls says when it
// did not.
func TestFaithful(t *testing.T) {
	for _, c := range []struct {
		behind, rtt time.Duration
		want        bool
	}{
		{0, 10 * time.Millisecond, true},
		{400 * time.Microsecond, 10 * time.Millisecond, true},
		{401 * time.Microsecond, 10 * time.Millisecond, false},
		{time.Millisecond, 10 * time.Millisecond, false},
		{time.Millisecond, 100 * time.Millisecond, true},
		{350 * time.Microsecond, 0, false},
	} {
		if got := Faithful(c.behind, c.rtt); got != c.want {
			t.Errorf("%v behind at %v: %v", c.behind, c.rtt, got)
		}
	}
	c, _ := ParseConfig("wan", Spec{Rate: "4gbit", RTT: "10ms", Loss: "0", Queue: "1bdp", MTU: 1500})
	late := &Stats{AB: relay.DirStats{Writes: 100, LateSum: 3000}, BA: relay.DirStats{Writes: 100, LateSum: 100000}}
	var b strings.Builder
	if err := WriteList(&b, []Link{{State: State{Config: c}, Alive: true, Stats: late}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "RELAY BEHIND") || !strings.Contains(b.String(), "1.03 ms (beyond 0.3 ms + 1%)") {
		t.Errorf("lab ls:\n%s", b.String())
	}
	b.Reset()
	WriteBehind(&b, "lab wan", late.Behind(), c.RTT)
	if want := "lab wan: the relay fell behind: it added 1.03 ms to the 10 ms RTT"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("%q, want %q…", b.String(), want)
	}
}

func TestSubstPeer(t *testing.T) {
	got := SubstPeer([]string{"iperf3", "-c", "{peer}", "--bind-dev={peer}:{peer}", "x"}, "10.201.1.2")
	want := []string{"iperf3", "-c", "10.201.1.2", "--bind-dev=10.201.1.2:10.201.1.2", "x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("%q", got)
	}
}

// A lab's state names what root deletes and kills: it is read only from
// a directory and file of the user's own that no one else may write.
func TestReadStateTrustsItsOwnerOnly(t *testing.T) {
	run := t.TempDir()
	t.Setenv("TCPTUNE_RUN_DIR", run)
	dir := filepath.Join(run, "lab", "x")
	os.MkdirAll(dir, 0o755)
	os.Chmod(filepath.Join(run, "lab"), 0o755)
	p := filepath.Join(dir, "state.json")
	os.WriteFile(p, []byte(`{"name":"x"}`), 0o644)
	if _, err := ReadState("x"); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o666)
	if _, err := ReadState("x"); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a state file anyone may write: %v", err)
	}
	os.Chmod(p, 0o644)
	os.Chmod(dir, 0o777)
	if _, err := ReadState("x"); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a state directory anyone may write: %v", err)
	}
	os.Chmod(dir, 0o755)
	os.Remove(p)
	os.Symlink(filepath.Join(run, "elsewhere.json"), p)
	os.WriteFile(filepath.Join(run, "elsewhere.json"), []byte(`{"name":"x"}`), 0o644)
	if _, err := ReadState("x"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a linked state file: %v", err)
	}
}

func TestParseGEModel(t *testing.T) {
	for _, c := range []struct {
		in   string
		want *linkem.GilbertElliott
	}{
		{"1%", &linkem.GilbertElliott{P: 0.01, R: 0.99, LossBad: 1}},
		{"1%,25%", &linkem.GilbertElliott{P: 0.01, R: 0.25, LossBad: 1}},
		{"0.01,0.25,0.5,0.001", &linkem.GilbertElliott{P: 0.01, R: 0.25, LossBad: 0.5, LossGood: 0.001}},
		{"0", nil}, {"1%,0", nil}, {"150%", nil}, {"x", nil}, {"1,2,3,4,5", nil}, {"-1%", nil},
	} {
		g, err := ParseGEModel(c.in)
		switch {
		case c.want == nil && err == nil:
			t.Errorf("%q accepted: %+v", c.in, g)
		case c.want == nil && !strings.HasPrefix(err.Error(), "--loss-gemodel: accepts"):
			t.Errorf("%q: %v: not one line naming the flag", c.in, err)
		case c.want != nil && (err != nil || math.Abs(g.P-c.want.P) > 1e-12 || math.Abs(g.R-c.want.R) > 1e-12 || g.LossBad != c.want.LossBad || math.Abs(g.LossGood-c.want.LossGood) > 1e-12):
			t.Errorf("%q: %+v %v, want %+v", c.in, g, err, c.want)
		}
	}
	if _, err := ParseConfig("x", Spec{Rate: "1gbit", RTT: "10ms", Loss: "1%", Queue: "1bdp", MTU: 1500, LossGE: "1%,25%"}); err == nil {
		t.Error("--loss and --loss-gemodel together accepted")
	}
}

func TestParseAsymmetric(t *testing.T) {
	base := Spec{Rate: "1gbit", Loss: "0", Queue: "1bdp", MTU: 1500}
	with := func(f func(*Spec)) Spec { s := base; f(&s); return s }
	c, err := ParseConfig("x", with(func(s *Spec) { s.Rate, s.Delay, s.Loss, s.Queue = "200mbit/20mbit", "5ms/15ms", "0/1%", "1bdp/64K" }))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Reverse
	if r == nil || c.Rate != 200e6 || r.Rate != 20e6 || c.RTT != 20*time.Millisecond || r.DelayAB != 5*time.Millisecond || r.DelayBA != 15*time.Millisecond || c.Loss != 0 || r.Loss != 0.01 || r.Queue != 64<<10 {
		t.Fatalf("%+v %+v", c, r)
	}
	ab, ba := c.Model(), c.ModelBA()
	if ab.Rate != 200e6 || ab.Delay != 5e6 || ba.Rate != 20e6 || ba.Delay != 15e6 || ba.Loss != 0.01 || ba.Queue != 64<<10 {
		t.Fatalf("models a→b %+v b→a %+v", ab, ba)
	}
	// Unlike names what differs both ways; delays alone do not count.
	for in, want := range map[[4]string]string{
		{"200mbit/20mbit", "5ms/15ms", "0", "1bdp"}: "--rate", {"1gbit", "280ms/320ms", "0", "1bdp"}: "",
		{"1gbit", "5ms/15ms", "0/0.1%", "1bdp"}: "--loss", {"1gbit", "10ms", "0", "1bdp/64K"}: "--queue",
		{"1gbit", "10ms", "0.1%/0.1%", "4M/4M"}: "",
	} {
		c, err := ParseConfig("x", with(func(s *Spec) { s.Rate, s.Delay, s.Loss, s.Queue = in[0], in[1], in[2], in[3] }))
		if err != nil || c.Unlike() != want {
			t.Errorf("%v: Unlike %q (%v), want %q", in, c.Unlike(), err, want)
		}
	}
	// One-way delays alike and one rate: a symmetric link.
	if c, err := ParseConfig("x", with(func(s *Spec) { s.Delay = "10ms" })); err != nil || c.Reverse != nil || c.RTT != 20*time.Millisecond || c.ModelBA() != c.Model() {
		t.Fatalf("symmetric --delay: %+v %v", c, err)
	}
	for _, bad := range []Spec{
		with(func(s *Spec) { s.Rate = "1gbit/x" }), with(func(s *Spec) { s.Rate = "1gbit/1bit" }),
		with(func(s *Spec) { s.Delay = "5ms/-1ms" }), with(func(s *Spec) { s.Loss = "0/60%" }), with(func(s *Spec) { s.Queue = "1bdp/10" }),
		with(func(s *Spec) { s.Delay, s.RTT = "5ms", "10ms" }), // one of the two
	} {
		if _, err := ParseConfig("x", bad); err == nil || !strings.HasPrefix(err.Error(), "--") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

func TestParseJitter(t *testing.T) {
	base := Spec{Rate: "1gbit", RTT: "50ms", Loss: "0", Queue: "1bdp", MTU: 1500}
	for in, want := range map[string]linkem.Jitter{
		"5ms": {Amount: 5e6}, "5ms,normal": {Amount: 5e6, Dist: "normal"},
		"2ms,pareto,reorder": {Amount: 2e6, Dist: "pareto", Overtake: true}, "1ms,reorder": {Amount: 1e6, Overtake: true},
	} {
		s := base
		s.Jitter = in
		c, err := ParseConfig("x", s)
		if err != nil || c.Jitter == nil || *c.Jitter != want {
			t.Errorf("%q: %+v %v", in, c.Jitter, err)
		}
	}
	for _, in := range []string{"x", "0", "5ms,gamma", "5ms,normal,normal", "5ms,reorder,reorder", "6s"} {
		s := base
		s.Jitter = in
		if _, err := ParseConfig("x", s); err == nil || !strings.HasPrefix(err.Error(), "--jitter") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// A trace per direction (a cellular link's downlink and uplink): each
// direction's model serves its own, its rate is that trace's mean and
// its queue's BDP is of it; one trace serves both ways, also on a link
// whose loss differs by direction.
func TestParseTracePerDirection(t *testing.T) {
	trace := func(perMS, ms int) string {
		var b strings.Builder
		for i := 1; i <= ms; i++ {
			b.WriteString(strings.Repeat(strconv.Itoa(i)+"\n", perMS))
		}
		return b.String()
	}
	base := Spec{RTT: "40ms", Loss: "0", Queue: "1bdp", MTU: 1500}
	s := base
	s.RateTrace, s.RateTraceBA = trace(4, 100), trace(1, 100) // 48 and 12 Mbit/s
	c, err := ParseConfig("cell", s)
	if err != nil {
		t.Fatal(err)
	}
	ab, ba := c.Model(), c.ModelBA()
	if c.Reverse == nil || ab.Capacity == nil || ba.Capacity == nil || ab.Capacity == ba.Capacity {
		t.Fatalf("a→b %+v b→a %+v: want a trace each", ab.Capacity, ba.Capacity)
	}
	if ab.Rate != 48e6 || ba.Rate != 12e6 || ab.Queue != 256<<10 || ba.Queue != 256<<10 {
		t.Fatalf("rates %g/%g queues %d/%d: want the traces' means 48/12 Mbit/s", ab.Rate, ba.Rate, ab.Queue, ba.Queue)
	}
	s = base
	s.RateTrace, s.Loss = trace(4, 100), "0/1%"
	if c, err = ParseConfig("cell", s); err != nil || c.ModelBA().Capacity != c.Model().Capacity || c.ModelBA().Rate != 48e6 || c.ModelBA().Loss != 0.01 {
		t.Fatalf("one trace, loss b→a: %+v %v", c.ModelBA(), err)
	}
	s = base
	s.RateTraceBA = trace(1, 100)
	if _, err := ParseConfig("cell", s); err == nil || !strings.HasPrefix(err.Error(), "--rate-trace") {
		t.Fatalf("b→a's trace alone: %v", err)
	}
	for _, s := range []Spec{{Rate: "1gbit", RateTrace: trace(4, 100)}, {Rate: "1gbit", RateSchedule: "100mbit:1s"}} {
		if _, err := ParseConfig("cell", s); err == nil || !strings.HasPrefix(err.Error(), "--rate:") {
			t.Errorf("a rate and one that changes: %v", err)
		}
	}
}

// A policer below the link's rate is the path's rate, its bucket what
// passes on top after an idle moment; one above it changes nothing.
func TestPathRate(t *testing.T) {
	base := Spec{Rate: "1gbit", RTT: "30ms", Loss: "0", Queue: "1bdp", MTU: 1500}
	for _, tc := range []struct {
		police, burst string
		rate          float64
		bucket        int64
	}{{"", "", 1e9, 0}, {"200mbit", "1M", 200e6, 1 << 20}, {"200mbit", "", 200e6, 250000}, {"2gbit", "", 1e9, 0}} {
		s := base
		s.Police, s.PoliceBurst = tc.police, tc.burst
		c, err := ParseConfig("pol", s)
		if err != nil || c.PathRate() != tc.rate || c.PathBurst() != tc.bucket {
			t.Errorf("--police %q --police-burst %q: path rate %g burst %d (%v), want %g and %d", tc.police, tc.burst, c.PathRate(), c.PathBurst(), err, tc.rate, tc.bucket)
		}
	}
}
