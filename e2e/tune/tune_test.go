//go:build linux

package tune_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/tune"
)

func TestMain(m *testing.M) { testutil.MainHostUnchanged(m) }

// links the suite creates; leftovers of a killed run are removed first.
var links = []string{"tt-tune", "tt-tlong", "tt-tpeer", "tt-tfail", "tt-tsmall", "tt-trelay", "tt-tsig", "tt-tkill", "tt-tkl", "tt-tstock", "tt-tsigp", "tt-tmtu", "tt-tfull", "tt-tstock2", "tt-tpcc312", "tt-tpcc322"}

// leftovers removes, once per run, the links a killed run left (not on
// every setup: the tests run their links side by side).
var leftovers sync.Once

// gigabit is held by the test that moves data at a gigabit or more:
// every test of the suite is parallel, and the light ones (low rates on
// their own links) run beside one heavy one, never two heavy ones at once.
var gigabit sync.Mutex

// heavy marks t as moving data at a gigabit or more: it runs beside the
// light tests, alone among the heavy ones.
func heavy(t *testing.T) {
	t.Parallel()
	gigabit.Lock()
	t.Cleanup(gigabit.Unlock)
}

// quiet is held for reading by the light tests and for writing by a
// heavy test whose outcome turns on a gain of a few percent, which a
// light test's relay and processes beside it on two cores can cost (a
// CI run had the jumbo path's relay 0.8–2.2 ms behind in three tries).
var quiet sync.RWMutex

// light marks t as moving little data on its own link: it runs beside a
// heavy test, not beside a quiet one.
func light(t *testing.T) {
	t.Parallel()
	quiet.RLock()
	t.Cleanup(quiet.RUnlock)
}

// heavyAlone is heavy, with no light test beside it.
func heavyAlone(t *testing.T) {
	heavy(t)
	quiet.Lock()
	t.Cleanup(quiet.Unlock)
}

func setup(t *testing.T) string {
	t.Helper()
	testutil.NeedRoot(t)
	_, err := os.Stat("/dev/net/tun")
	testutil.Need(t, err == nil, "no /dev/net/tun")
	bin := testutil.Binary(t)
	leftovers.Do(func() {
		for _, l := range links {
			exec.Command(bin, "lab", "down", l).Run()
		}
	})
	return bin
}

type summary struct {
	Controllable []string `json:"controllable"`
	PeerAdvice   []string `json:"peer_advice"`
	Kept         bool     `json:"kept"`
	Applied      bool     `json:"applied"`
	BackupID     string   `json:"backup_id"`
	Why          string   `json:"why"`
	BDP          int64    `json:"bdp_bytes"`
	Goodput      float64  `json:"link_goodput_bits_per_second"`
	Choice       string   `json:"choice"`
	Verify       *cand    `json:"verify"`
	Cands        []cand   `json:"candidates"`
	Levers       []struct {
		Name      string  `json:"name"`
		Direction string  `json:"direction"`
		BPS       float64 `json:"bits_per_second"`
		Gain      float64 `json:"gain"`
		Helped    bool    `json:"helped"`
	} `json:"levers"`
	Relay *relayStat `json:"lab_relay"`
}

// relayStat is what tune --lab reports of its link's relay.
type relayStat struct {
	BehindUS float64 `json:"behind_us"`
	Faithful bool    `json:"faithful"`
}

// whileBehind runs measure, and again (three runs at most) while it
// fails with tune reporting the lab's relay behind its accuracy target:
// a late relay measured this machine, not the link. The error is the
// last run's, with the relay's lateness.
func whileBehind(t *testing.T, measure func() (*relayStat, error)) error {
	t.Helper()
	for try := 0; ; try++ {
		relay, err := measure()
		if err == nil || relay == nil || relay.Faithful {
			return err
		}
		if try == 2 {
			return fmt.Errorf("%w (the relay %.0f µs behind, not faithful)", err, relay.BehindUS)
		}
		t.Logf("%v; the relay was %.0f µs behind, not faithful: measuring again", err, relay.BehindUS)
	}
}

type cand struct {
	ID         string `json:"id"`
	Origin     string `json:"origin"`
	Congestion string `json:"congestion"` // its own per-socket control (a lever's)
	RmemMax    int64  `json:"rmem_max"`
	WmemMax    int64  `json:"wmem_max"`
	Summary    map[string]struct {
		N      int     `json:"n"`
		Median float64 `json:"median"`
		Mean   float64 `json:"mean"`
		Min    float64 `json:"min"`
		Max    float64 `json:"max"`
	} `json:"summary"`
	Settings []struct{ Key, Value string } `json:"settings"`
	Trials   []struct {
		Direction  string  `json:"direction"`
		Congestion string  `json:"congestion"`
		Verdict    string  `json:"verdict"`
		Limit      string  `json:"limit"`
		BPS        float64 `json:"bits_per_second"`
		MSS        int     `json:"mss"`
		HostDrops  *struct {
			TxDrop int64 `json:"tx_dropped"`
		} `json:"host_drops"`
	} `json:"trials"`
}

// noneAbove checks that no trial of s counts more than room(its MSS),
// what the path leaves the flow, by more than the counting slack.
func noneAbove(t *testing.T, s summary, room func(mss int) float64) {
	t.Helper()
	for _, c := range s.Cands {
		for _, tr := range c.Trials {
			if r := room(tr.MSS); tr.BPS > 1.01*r {
				t.Errorf("%s %s: %.1f Mbit/s, above the %.1f the path leaves", c.ID, tr.Direction, tr.BPS/1e6, r/1e6)
			}
		}
	}
}

func (s summary) find(id string) *cand {
	for i := range s.Cands {
		if s.Cands[i].ID == id {
			return &s.Cands[i]
		}
	}
	return nil
}

// trials lists every candidate's trials in direction d, with their
// limits, for a failure's log.
func (s summary) trials(d string) string {
	var b strings.Builder
	for _, c := range s.Cands {
		fmt.Fprintf(&b, "\n%s (wmem %d, rmem %d):", c.ID, c.WmemMax, c.RmemMax)
		for _, tr := range c.Trials {
			if tr.Direction == d {
				fmt.Fprintf(&b, " %.1f %s;", tr.BPS/1e6, tr.Limit)
			}
		}
	}
	return b.String()
}

// beaten is a candidate whose full set in direction d (two trials or
// more) beat the choice's verification beyond the noise: every trial
// above every verification trial, and its mean more than the noise
// rule's widest tolerance (10%) above the verification's fastest trial
// ("" none). Where the sets overlap, the noise rule keeps the cheaper
// point, as it should: a control with two modes (cubic leaving slow
// start early or late; BBR at 300 ms with loss, one trial in a few 20%
// slow) spreads a set by a third, and a trial in the slow mode is an
// event every point of that control meets at its share, which the model
// charges to every set of it alike, not a fault of the set it fell in.
func (s summary) beaten(d string) string {
	v := s.Verify.Summary[d]
	for _, c := range s.Cands {
		if f := c.Summary[d]; f.N >= 2 && f.Min > v.Max && f.Mean > 1.1*v.Max {
			return fmt.Sprintf("%s's %.1f–%.1f (mean %.1f) Mbit/s", c.ID, f.Min/1e6, f.Max/1e6, f.Mean/1e6)
		}
	}
	return ""
}

// The README's main job, shortened: tune on a 1 Gbit/s lab link whose
// namespaces inherit the host's tcp_wmem max, with the JSON summary and
// the HTML report. The RTT is chosen so that the inherited send buffer
// binds (the BDP is at least 1.6 × it: one flow reaches about 40% of the
// link), 50 ms on a host with Linux's default 4 MiB: so the gain is
// asserted on any host, not only on one with small buffers.
func TestTuneLab(t *testing.T) {
	heavy(t)
	bin := setup(t)
	dir := t.TempDir()
	report := filepath.Join(dir, "tune.html")
	inheritedWmem := maxField(readProc(t, "net/ipv4/tcp_wmem"))
	rtt := max(50*time.Millisecond, time.Duration(1.6*float64(inheritedWmem)*8/1e9*float64(time.Second))).Round(time.Millisecond)
	testutil.Need(t, rtt <= 600*time.Millisecond, fmt.Sprintf("the host's tcp_wmem max (%d) needs an RTT over 600 ms to bind at 1 Gbit/s", inheritedWmem))
	out, errOut, err := testutil.Run(t, 8*time.Minute, bin, "tune", "--lab", "--name", "tt-tune", "--rate", "1gbit", "--rtt", rtt.String(),
		"--time", "2", "--json", "--report", report)
	if err != nil {
		t.Fatalf("tune: %v\n%s\n%s", err, out, errOut)
	}
	var s summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("JSON summary: %v\n%s", err, out)
	}
	for _, stage := range []string{"==> measuring the RTT", "==> baseline", "==> searching", "==> full set of"} {
		if !strings.Contains(errOut, stage) {
			t.Errorf("progress lacks %q:\n%s", stage, errOut)
		}
	}
	base := s.find("baseline")
	ch := s.find(s.Choice)
	if base == nil || ch == nil || s.Verify == nil {
		t.Fatalf("baseline %v choice %q verify %v: %s", base, s.Choice, s.Verify, s.Why)
	}
	t.Logf("choice %s (rmem %d, wmem %d, BDP %d): %s", s.Choice, ch.RmemMax, ch.WmemMax, s.BDP, s.Why)
	// The relay's lateness over the run, from its published counters: a
	// run of a minute's traffic wrote packets, each on time or late.
	if s.Relay == nil {
		t.Errorf("no lab_relay in the result")
	} else {
		t.Logf("the relay added %.0f µs to the RTT (faithful %v)", s.Relay.BehindUS, s.Relay.Faithful)
	}
	for _, d := range []string{"forward", "reverse"} {
		b, a := base.Summary[d], s.Verify.Summary[d]
		t.Logf("%s: before %.0f → after %.0f (goodput %.0f)", d, b.Median, a.Median, s.Goodput)
		// Three trials, or two that a buffer held alike: within the
		// noise rule's least tolerance, 3% (docs/tune.md; no third).
		for _, x := range []struct {
			what   string
			n      int
			lo, hi float64
		}{{"baseline", b.N, b.Min, b.Max}, {"verification", a.N, a.Min, a.Max}} {
			if x.n != 3 && (x.n != 2 || x.hi > 1.03*x.lo) {
				t.Errorf("%s: %d %s trials (%.0f–%.0f), want 3, or 2 within 3%%", d, x.n, x.what, x.lo, x.hi)
			}
		}
		// The inherited send buffer binds: a clear gain.
		if a.Median < 1.4*b.Median {
			t.Errorf("%s: after %.0f is not clearly above before %.0f (inherited tcp_wmem max %d, RTT %v)", d, a.Median, b.Median, inheritedWmem, rtt)
		}
	}
	if !s.Kept || s.Applied {
		t.Errorf("kept %v applied %v: %s", s.Kept, s.Applied, s.Why)
	}
	// A maximum the choice changes is at most 4 × BDP; one the namespaces
	// already had above what the path needs stays (tune never lowers it).
	for _, kv := range ch.Settings {
		if (kv.Key == "net.ipv4.tcp_rmem" || kv.Key == "net.ipv4.tcp_wmem") && maxField(kv.Value) > 4*s.BDP {
			t.Errorf("choice %s sets %s = %s: above 4 × BDP (%d)", s.Choice, kv.Key, kv.Value, s.BDP)
		}
	}
	if rmem := maxField(readProc(t, "net/ipv4/tcp_rmem")); ch.RmemMax < rmem || ch.WmemMax < inheritedWmem {
		t.Errorf("choice %s: maxima %d/%d, below the namespaces' own %d/%d", s.Choice, ch.RmemMax, ch.WmemMax, rmem, inheritedWmem)
	}
	// The link and its namespaces are gone.
	ls, _, _ := testutil.Run(t, time.Minute, bin, "lab", "ls")
	if strings.Contains(ls, "tt-tune") {
		t.Errorf("lab link left behind:\n%s", ls)
	}
	if ns, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(ns), "tcptune-tt-tune") {
		t.Errorf("namespaces left behind:\n%s", ns)
	}
	checkReport(t, report)
}

// checkReport renders the report in headless Chromium and checks that
// the three charts were laid out with their marks, and that the page
// shows the bars' colour.
func checkReport(t *testing.T, report string) {
	t.Helper()
	browser, flags := testutil.Chromium(t)
	dom, errOut, err := testutil.Run(t, 2*time.Minute, browser, append(flags, "--virtual-time-budget=3000", "--dump-dom", "file://"+report)...)
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, errOut)
	}
	m := regexp.MustCompile(`data-rendered="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the report's script did not run in chromium")
	}
	charts := map[string]bool{}
	for _, c := range strings.Fields(m[1]) {
		var id string
		var w, h, marks int
		if _, err := fmt.Sscanf(strings.ReplaceAll(strings.ReplaceAll(c, ":", " "), "x", " "), "%s %d %d %d", &id, &w, &h, &marks); err != nil {
			t.Errorf("rendered %q: %v", c, err)
			continue
		}
		if w < 300 || h < 100 || marks < 2 {
			t.Errorf("chart %s rendered %dx%d with %d marks", id, w, h, marks)
		}
		charts[id] = true
	}
	for _, id := range []string{"chart-throughput", "chart-time", "chart-window"} {
		if !charts[id] {
			t.Errorf("chart %s not rendered (%s)", id, m[1])
		}
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	if _, errOut, err := testutil.Run(t, 2*time.Minute, browser, append(flags, "--window-size=1000,2600", "--screenshot="+shot, "file://"+report)...); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, errOut)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// #2b6cb0, the forward bars.
	blue := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 0x2b && g>>8 == 0x6c && bl>>8 == 0xb0 {
				blue++
			}
		}
	}
	if blue < 2000 {
		t.Errorf("the screenshot shows %d pixels of the bars' colour", blue)
	}
}

type peerLab struct {
	t        *testing.T
	bin, ns  string
	peer     string // end b's address
	stateDir string
	server   *testutil.Proc
}

// newPeerLab builds a 1 Gbit/s × 50 ms link and runs server (argv) in
// its end b.
func newPeerLab(t *testing.T, name string, server ...string) *peerLab {
	return newPeerLabOn(t, name, []string{"--rate", "1gbit", "--rtt", "50ms"}, server...)
}

// newPeerLabOn builds a link with lab up's flags and runs server (argv)
// in its end b, waiting until it listens on 5201.
func newPeerLabOn(t *testing.T, name string, link []string, server ...string) *peerLab {
	bin := setup(t)
	out, errOut, err := testutil.Run(t, time.Minute, bin, append([]string{"lab", "up", name}, link...)...)
	if err != nil {
		t.Fatalf("lab up: %v\n%s%s", err, out, errOut)
	}
	t.Cleanup(func() { exec.Command(bin, "lab", "down", name).Run() })
	srv := testutil.Start(t, bin, append([]string{"lab", "exec", name, "b", "--"}, server...)...)
	testutil.WaitListeningPID(t, srv.Cmd.Process.Pid, 5201)
	st, err := lab.ReadState(name)
	if err != nil {
		t.Fatal(err)
	}
	return &peerLab{t: t, bin: bin, ns: "tcptune-" + name + "-a", peer: st.AddrB, stateDir: t.TempDir(), server: srv}
}

// mtu is end a's interface MTU toward the peer.
func (p *peerLab) mtu() string {
	out, err := exec.Command("ip", "netns", "exec", p.ns, "ip", "-o", "route", "get", p.peer).Output()
	f := strings.Fields(string(out))
	i := slices.Index(f, "dev")
	if err != nil || i < 0 || i+1 >= len(f) {
		p.t.Fatalf("route to %s: %v %q", p.peer, err, out)
	}
	out, err = exec.Command("ip", "netns", "exec", p.ns, "cat", "/sys/class/net/"+f[i+1]+"/mtu").Output()
	if err != nil {
		p.t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func (p *peerLab) sysctl(key string) string {
	out, err := exec.Command("ip", "netns", "exec", p.ns, "cat", "/proc/sys/"+strings.ReplaceAll(key, ".", "/")).Output()
	if err != nil {
		p.t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// tune runs tcptune tune --peer from end a, with extra environment.
func (p *peerLab) tune(name string, env []string, args ...string) (string, string, error) {
	argv := append([]string{"lab", "exec", name, "a", "--", "sh", "-c", `exec "$0" tune --peer "$TCPTUNE_PEER" "$@"`, p.bin}, args...)
	cmd := exec.Command(p.bin, argv...)
	cmd.Env = append(append(os.Environ(), "TCPTUNE_STATE_DIR="+p.stateDir), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err == nil && slices.Contains(args, "--json") {
		p.checkTrials(o.String())
	}
	return o.String(), e.String(), err
}

// checkTrials validates the verdict of every trial in tune --json's
// output against the repository's schema.
func (p *peerLab) checkTrials(out string) {
	p.t.Helper()
	var res struct {
		Candidates []struct {
			Trials []map[string]any `json:"trials"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		p.t.Errorf("tune --json: %v", err)
		return
	}
	for _, c := range res.Candidates {
		for _, tr := range c.Trials {
			testutil.CheckSchema(p.t, tr, "/$defs/tune_trial_verdict")
		}
	}
}

// tune --peer against the real iperf3 (3.12), from a send-buffer-limited
// 4 MiB tcp_wmem, with --apply: the forward gain is kept in the
// namespace, with a backup that rollback restores. The path carries
// 9000 while both hosts are at 1500: tune raises this host's interface
// for a probe and a trial, the connection's MSS stays 1448 (the peer's
// interface is at 1500), so the MTU stays and the peer's command is
// printed.
func TestTunePeerIperf3Apply(t *testing.T) {
	heavy(t)
	iperf3 := testutil.NeedIperf3(t)
	p := newPeerLabOn(t, "tt-tpeer", []string{"--rate", "1gbit", "--rtt", "50ms", "--path-mtu", "9000"}, iperf3, "-s", "-p", "5201")
	mtuBefore := p.mtu()
	// From a send buffer that binds. (Both directions against a stock
	// iperf3, where reverse must not erase forward's gain, are
	// TestTunePeerStockIperf3CubicShallow's.)
	if out, err := exec.Command("ip", "netns", "exec", p.ns, "sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 4194304").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before := p.sysctl("net.ipv4.tcp_wmem")
	out, errOut, err := p.tune("tt-tpeer", nil, "--direction", "forward", "--trials", "2", "--time", "1", "--json", "--apply", "--compare=none")
	if err != nil {
		t.Fatalf("tune --peer: %v\n%s\n%s", err, out, errOut)
	}
	var s summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !s.Kept || !s.Applied || s.BackupID == "" {
		t.Fatalf("kept %v applied %v backup %q: %s", s.Kept, s.Applied, s.BackupID, s.Why)
	}
	ch := s.find(s.Choice)
	var want string
	for _, kv := range ch.Settings {
		if kv.Key == "net.ipv4.tcp_wmem" {
			want = kv.Value
		}
	}
	if got := p.sysctl("net.ipv4.tcp_wmem"); want == "" || got != want || got == before {
		t.Errorf("tcp_wmem after --apply: %q, choice %q, before %q", got, want, before)
	}
	if got := p.mtu(); got != mtuBefore || mtuBefore != "1500" || len(s.PeerAdvice) != 1 || !strings.Contains(s.PeerAdvice[0], "mtu 9000") {
		t.Errorf("MTU after: %s (before %s), peer advice %q", got, mtuBefore, s.PeerAdvice)
	}
	// Only the kept backup remains: the trials' backups were discarded.
	entries, _ := filepath.Glob(filepath.Join(p.stateDir, "backups", "*.json"))
	if len(entries) != 1 || filepath.Base(entries[0]) != s.BackupID+".json" {
		t.Errorf("backups: %v, want only %s", entries, s.BackupID)
	}
	// The backup belongs to the namespace tune ran in: roll back there.
	cmd := exec.Command(p.bin, "lab", "exec", "tt-tpeer", "a", "--", p.bin, "rollback", s.BackupID)
	cmd.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+p.stateDir)
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rollback: %v\n%s", err, o)
	}
	if got := p.sysctl("net.ipv4.tcp_wmem"); got != before {
		t.Errorf("tcp_wmem after rollback: %q, want %q", got, before)
	}
}

// Without --apply, and when a write fails, the namespace ends with its
// starting values. On a link of 50 Mbit/s × 50 ms (a 312 KB BDP) whose
// end a has tcp_rmem and tcp_wmem maxima of 128 KiB, both directions are
// short of the path: the search sets candidates, and restores after each.
func TestTunePeerRestores(t *testing.T) {
	light(t) // a low rate on its own link: beside the heavy test of the moment
	p := newPeerLabOn(t, "tt-tfail", []string{"--rate", "50mbit", "--rtt", "50ms"}, testutil.Binary(t), "serve", "-p", "5201")
	for _, c := range [][]string{{p.ns, "net.ipv4.tcp_rmem=4096 16384 131072"}, {p.ns, "net.ipv4.tcp_wmem=4096 16384 131072"}, {"tcptune-tt-tfail-b", "net.ipv4.tcp_wmem=4096 16384 33554432"}} {
		if o, err := exec.Command("ip", "netns", "exec", c[0], "sysctl", "-w", c[1]).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, o)
		}
	}
	keys := []string{"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_sack", "net.ipv4.tcp_notsent_lowat"}
	start := map[string]string{}
	for _, k := range keys {
		start[k] = p.sysctl(k)
	}
	check := func(what string) {
		for _, k := range keys {
			if got := p.sysctl(k); got != start[k] {
				t.Errorf("%s: %s = %q, was %q", what, k, got, start[k])
			}
		}
		if entries, _ := os.ReadDir(filepath.Join(p.stateDir, "backups")); len(entries) > 1 {
			t.Errorf("%s: %d backups left", what, len(entries))
		}
	}
	out, errOut, err := p.tune("tt-tfail", nil, "--direction", "reverse", "--rate", "50mbit", "--trials", "2", "--time", "1", "--compare=none")
	if err != nil {
		t.Fatalf("tune --peer -R: %v\n%s\n%s", err, out, errOut)
	}
	// The search set a point of its own (its candidates' rows say what
	// their trials reached).
	if !strings.Contains(out, "reverse: before ") || !strings.Contains(out, "CANDIDATE") || !regexp.MustCompile(`(screened|full set|chosen): `).MatchString(out) {
		t.Errorf("report:\n%s", out)
	}
	check("after tune without --apply")
	// The first candidate's second write fails (with both directions
	// short, each candidate sets more than one key: both buffers, or a
	// reference profile's):
	// tune stops, restores, and says so. The fault is injected through
	// apply's package API (BeforeWrite), so tune runs in this process,
	// dialling from end a as the binary does under "lab exec".
	peerOut, _, err := testutil.Run(t, 10*time.Second, p.bin, "lab", "exec", "tt-tfail", "a", "--", "sh", "-c", "echo $TCPTUNE_PEER")
	if err != nil {
		t.Fatal(err)
	}
	env := tune.NewPeerEnv(strings.TrimSpace(peerOut), 5201, apply.Options{
		BackupDir: filepath.Join(p.stateDir, "backups"),
		BeforeWrite: func(i int, c apply.Change) error {
			if i == 1 {
				return fmt.Errorf("sysctl %s: injected failure", c.Key)
			}
			return nil
		},
	})
	env.Namespaces, env.Measurer.NetNS = []string{p.ns}, p.ns
	var progress strings.Builder
	_, err = tune.Run(context.Background(), env, tune.Options{Rate: 50e6, Trials: 2, Time: time.Second}, tune.NewPrinter(&progress, false))
	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Errorf("tune with a failing write: %v\n%s", err, progress.String())
	}
	check("after a failed write")
}

func TestTuneFlags(t *testing.T) {
	t.Parallel() // no traffic
	bin := testutil.Binary(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune"}, "give --lab or --peer HOST"},
		{[]string{"tune", "--lab", "--peer", "x"}, "give --lab or --peer HOST"},
		{[]string{"tune", "--lab", "--apply"}, "--apply: only with --peer"},
		{[]string{"tune", "--peer", "x", "--persist"}, "--persist: only with --apply"},
		{[]string{"tune", "--peer", "x", "--rtt", "5ms"}, "--rtt: only with --lab"},
		{[]string{"tune", "--peer", "x", "--direction", "up"}, "--direction: accepts both, forward or reverse"},
		{[]string{"tune", "--peer", "x", "--trials", "1"}, "--trials: accepts trials 2..50"},
		{[]string{"tune", "--lab", "--rate", "fast"}, "--rate: accepts a bit rate"},
		{[]string{"tune", "--peer", "x", "-t", "0"}, "-t/--time: accepts"},
		{[]string{"tune", "--peer", "x", "--compare=all"}, "--compare: accepts short, full or none"},
		{[]string{"tune", "--peer", "x", "--compare", "none"}, "--compare: takes its value after '=' (--compare=none)"},
	} {
		_, errOut, err := testutil.Run(t, 30*time.Second, bin, c.args...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if err == nil || len(lines) != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: err %v, stderr %q, want one line with %q", c.args, err, errOut, c.want)
		}
	}
}

func readProc(t *testing.T, key string) string {
	b, err := os.ReadFile("/proc/sys/" + key)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func maxField(v string) int64 {
	f := strings.Fields(v)
	n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
	return n
}
