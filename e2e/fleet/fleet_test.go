//go:build linux

package fleet_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/version"
)

func TestMain(m *testing.M) { testutil.MainHostUnchanged(m) }

type recap struct{ ok, changed, unreachable, failed int }

var recapLine = regexp.MustCompile(`(?m)^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)`)

// fleet is the lab of scripts/fleet-lab.sh: hosts h1, h2, h3 and ref,
// each with its own sshd and private /etc/sysctl.d, /var/lib, /run and
// /usr/local/bin; ansible-core runs in the hub.
type fleet struct {
	t      *testing.T
	dir    string
	script string
}

func (f *fleet) playbook(args ...string) (string, map[string]recap) {
	f.t.Helper()
	start := time.Now()
	out, errOut, err := testutil.Run(f.t, 5*time.Minute, f.script, append([]string{"run", f.dir, "ansible-playbook"}, args...)...)
	f.t.Logf("ansible-playbook %s: %.1f s", strings.Join(args, " "), time.Since(start).Seconds())
	got := map[string]recap{}
	for _, m := range recapLine.FindAllStringSubmatch(out, -1) {
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		got[m[1]] = recap{n(2), n(3), n(4), n(5)}
	}
	if len(got) == 0 {
		f.t.Fatalf("ansible-playbook %v: no recap (%v)\n%s\n%s", args, err, out, errOut)
	}
	return out, got
}

// sysctl reads a key in a host's namespace.
func sysctl(t *testing.T, host, key string) string {
	t.Helper()
	b, err := exec.Command("ip", "netns", "exec", "tcptune-f"+host+"-b", "cat", "/proc/sys/"+strings.ReplaceAll(key, ".", "/")).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

func each(t *testing.T, what string, r map[string]recap, want func(recap) bool, hosts ...string) {
	t.Helper()
	for _, h := range hosts {
		if !want(r[h]) {
			t.Errorf("%s: %s: %+v", what, h, r[h])
		}
	}
}

// The Ansible collection, for real: ansible-core over SSH to lab hosts.
// Check mode shows the diff and changes nothing; apply changes, a second
// apply does not; rollback restores; a refused value fails with
// tcptune's message; the .deb installs through the role; tune.yml's
// reference server stops when the play fails; rollout.yml tunes h1
// (1 Gbit/s × 50 ms to the hub) against ref, persists the choice and
// rolls it out to seven more hosts in two batches, and a batch that does
// worse stops the rollout and is rolled back; mesh.yml runs every pair of h1,
// h2, h3 (three rates) and renders the matrix, which Chromium loads.
// Nothing on the real host changes.
func TestFleet(t *testing.T) {
	testutil.NeedRoot(t)
	_, err := exec.LookPath("/usr/sbin/sshd")
	testutil.Need(t, err == nil, "openssh-server is not installed (make deps)")
	_, err = exec.LookPath("python3")
	testutil.Need(t, err == nil, "python3 is missing")
	bin := testutil.Binary(t)
	// What the real host holds where the hosts' own files live: compared
	// at the end (a host that has tcptune installed, or a persisted
	// tuning of its own, keeps them as they were).
	realPaths := []string{"/usr/local/bin/tcptune", "/usr/bin/tcptune", "/etc/default/tcptune", "/etc/sysctl.d/90-tcptune.conf", "/var/lib/tcptune/backups", "/var/lib/dpkg/status"}
	snapshot := func() map[string]string {
		m := map[string]string{}
		for _, p := range realPaths {
			if fi, err := os.Stat(p); err == nil {
				m[p] = fmt.Sprintf("%v %d %v", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
			}
		}
		return m
	}
	realBefore := snapshot()
	f := &fleet{t: t, dir: t.TempDir(), script: filepath.Join(testutil.ModuleRoot(), "scripts", "fleet-lab.sh")}
	t.Setenv("TCPTUNE_BIN", bin)
	// Eight hosts for the rollout (group "fleet"): h1–h3 of the mesh
	// (path group "fleet", measured one at a time) and h4–h8 in path
	// groups a, a, b, b, c (a group's hosts one at a time, the groups at
	// once).
	t.Setenv("FLEET_HOSTS", "h1:1gbit:50ms h2:100mbit:10ms h3:300mbit:10ms h4:100mbit:10ms:a h5:100mbit:10ms:a "+
		"h6:100mbit:10ms:b h7:100mbit:10ms:b h8:100mbit:10ms:c ref:2.5gbit:0ms")
	t.Setenv("FLEET_MESH", "h1 h2 h3")
	t.Cleanup(func() { testutil.Run(t, time.Minute, f.script, "down") })
	if out, errOut, err := testutil.Run(t, 5*time.Minute, f.script, "up", f.dir); err != nil {
		t.Fatalf("fleet-lab up: %v\n%s%s", err, out, errOut)
	}
	// The collection builds, and every module documents itself.
	if out, errOut, err := testutil.Run(t, time.Minute, f.script, "run", f.dir, "ansible-galaxy", "collection", "build", "--output-path", f.dir,
		filepath.Join(testutil.ModuleRoot(), "ansible", "ansible_collections", "tcptune", "tcptune")); err != nil {
		t.Fatalf("ansible-galaxy collection build: %v\n%s%s", err, out, errOut)
	}
	modules := []string{"tcptune_facts", "tcptune_apply", "tcptune_tune", "tcptune_rollback"}
	docArgs := []string{"run", f.dir, "ansible-doc"}
	for _, m := range modules {
		docArgs = append(docArgs, "tcptune.tcptune."+m)
	}
	// One ansible-doc for all four (each start costs seconds).
	out, errOut, err := testutil.Run(t, time.Minute, f.script, docArgs...)
	if err != nil || strings.Count(out, "OPTIONS") != len(modules) {
		t.Errorf("ansible-doc %v: %v, %d OPTIONS sections\n%s%s", modules, err, strings.Count(out, "OPTIONS"), out, errOut)
	}
	for _, m := range modules {
		if !strings.Contains(out, "tcptune.tcptune."+m) {
			t.Errorf("ansible-doc does not document %s", m)
		}
	}
	mesh := []string{"h1", "h2", "h3"}
	play := filepath.Join(testutil.ModuleRoot(), "e2e", "fleet", "apply.yml")
	before := sysctl(t, "h1", "net.ipv4.tcp_rmem")

	var r map[string]recap
	_, r = f.playbook(play, "-e", "step=install")
	each(t, "install", r, func(r recap) bool { return r.failed == 0 && r.changed == 1 }, mesh...)
	// The package path: h3 installs the .deb through the role (dpkg, in
	// its own overlay of /usr, /etc and dpkg's database), and the
	// modules find the binary where the package put it.
	deb := packageDeb(t)
	out, r = f.playbook(filepath.Join(testutil.ModuleRoot(), "e2e", "fleet", "package.yml"), "-l", "h3", "-e", "deb="+deb)
	if r["h3"].failed != 0 || !strings.Contains(out, "bin=/usr/bin/tcptune exists=True dpkg="+version.Version+"-") || !strings.Contains(out, "facts=True") {
		t.Fatalf("the role from the package: %+v\n%s", r["h3"], out)
	}
	out, r = f.playbook(play, "-e", "step=apply", "--check", "--diff")
	each(t, "check", r, func(r recap) bool { return r.failed == 0 && r.changed == 1 }, mesh...)
	if !strings.Contains(out, "+net.ipv4.tcp_rmem = 4096 131072 7340032") || sysctl(t, "h1", "net.ipv4.tcp_rmem") != before {
		t.Fatalf("check mode: no diff, or it changed the value\n%s", out)
	}
	// An advise spec, in check mode only: advice may name host-wide keys.
	out, r = f.playbook(play, "-e", "step=advise", "--check", "--diff", "-l", "h1")
	if r["h1"].failed != 0 || r["h1"].changed != 1 || !strings.Contains(out, "+net.ipv4.tcp_wmem = ") || sysctl(t, "h1", "net.ipv4.tcp_rmem") != before {
		t.Fatalf("advise in check mode: %+v\n%s", r["h1"], out)
	}
	_, r = f.playbook(play, "-e", "step=apply")
	each(t, "apply", r, func(r recap) bool { return r.failed == 0 && r.changed == 1 }, mesh...)
	if v := sysctl(t, "h2", "net.ipv4.tcp_rmem"); v != "4096 131072 7340032" {
		t.Fatalf("after apply: %s", v)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "h2", "sysctl.d", "90-tcptune.conf")); err != nil {
		t.Fatalf("--persist did not write the host's own /etc/sysctl.d: %v", err)
	}
	_, r = f.playbook(play, "-e", "step=apply")
	each(t, "apply again", r, func(r recap) bool { return r.failed == 0 && r.changed == 0 }, mesh...)
	_, r = f.playbook(play, "-e", "step=rollback")
	each(t, "rollback", r, func(r recap) bool { return r.failed == 0 && r.changed == 1 }, mesh...)
	if v := sysctl(t, "h3", "net.ipv4.tcp_rmem"); v != before {
		t.Fatalf("after rollback: %s, want %s", v, before)
	}
	_, r = f.playbook(play, "-e", "step=rollback")
	each(t, "rollback again", r, func(r recap) bool { return r.failed == 0 && r.changed == 0 }, mesh...)
	out, r = f.playbook(play, "-e", "step=bad", "-l", "h1")
	if r["h1"].failed != 1 || !strings.Contains(out, `"msg": "net.ipv4.tcp_rmem: \"lots\" is not a number (bytes)"`) {
		t.Fatalf("a refused value: want failed with tcptune's message\n%s", out)
	}

	// A canary's tune result applied to another host (tune_result): its
	// verified choice, rolled back after.
	canary := filepath.Join(f.dir, "canary.json")
	os.WriteFile(canary, []byte(`{"env":"peer","choice":"search-2","kept":true,"candidates":[{"id":"baseline","name":"current settings"},`+
		`{"id":"search-2","name":"wmem 1.5 × BDP","settings":[{"key":"net.ipv4.tcp_wmem","value":"4096 16384 9437184","reason":"forward was limited by the send buffer"}]}]}`), 0o644)
	wmem2 := sysctl(t, "h2", "net.ipv4.tcp_wmem")
	out, r = f.playbook(play, "-e", "step=result", "-e", "canary="+canary, "-l", "h2")
	if r["h2"].failed != 0 || r["h2"].changed != 2 || sysctl(t, "h2", "net.ipv4.tcp_wmem") != "4096 16384 9437184" {
		t.Fatalf("tune_result: %+v, tcp_wmem %s\n%s", r["h2"], sysctl(t, "h2", "net.ipv4.tcp_wmem"), out)
	}
	_, r = f.playbook(play, "-e", "step=rollback", "-l", "h2")
	if v := sysctl(t, "h2", "net.ipv4.tcp_wmem"); r["h2"].failed != 0 || v != wmem2 {
		t.Fatalf("after rolling back the canary's choice: %s, want %s", v, wmem2)
	}

	refAddr := ""
	hosts, _ := os.ReadFile(filepath.Join(f.dir, "hosts"))
	for _, l := range strings.Split(string(hosts), "\n") {
		if strings.HasPrefix(l, "ref ") {
			refAddr = strings.TrimPrefix(l, "ref ")
		}
	}
	// tune.yml, each host tuned on its own, shares the role's tune task
	// with the canary below; here its reference server is checked: a
	// tuning that fails half-way (a budget the module passes on and tune
	// refuses) fails the host with tune's message, and the server started
	// for it is stopped all the same.
	out, r = f.playbook("tcptune.tcptune.tune", "-e", "reference_server="+refAddr, "-e", "tcptune_tune_budget=5")
	if r["h1"].failed != 1 || !strings.Contains(out, "--budget: accepts 0 or 10..3600 seconds") {
		t.Errorf("tune.yml with a budget tune refuses: h1 %+v, want one failed task with tune's message\n%s", r["h1"], out)
	}
	refServersStopped(t, "after tune.yml failed half-way")
	// Canary, then the group of eight, from the package (each host and
	// the reference install the .deb, and every module and server runs
	// /usr/bin/tcptune): h1 tunes against ref and keeps its choice; h2–h8
	// get it in batches of 60% (four, then three), each host measured
	// before and after, the path groups in parallel. What
	// the short trials give up (CI time): tune's trials of 1 s, two a
	// candidate, forward only, the reference profiles unmeasured
	// (--compare=none), and two runs of 1 s before and after with
	// a noise of 20%: a check that the flow works, not a tuning to trust.
	wmem := sysctl(t, "h1", "net.ipv4.tcp_wmem")
	canary, summary := filepath.Join(f.dir, "rollout-canary.json"), filepath.Join(f.dir, "rollout-summary.txt")
	group := []string{"h2", "h3", "h4", "h5", "h6", "h7", "h8"}
	out, r = f.playbook("tcptune.tcptune.rollout", "-e", "rollout_group=fleet", "-e", "reference_server="+refAddr,
		"-e", "tcptune_package="+deb, "-e", "tcptune_binary_src=",
		"-e", "tcptune_tune_time=1", "-e", "tcptune_tune_trials=2", "-e", "tcptune_tune_direction=forward", "-e", "tcptune_tune_compare=none",
		"-e", "rollout_time=1", "-e", "rollout_repeat=2", "-e", "rollout_batch=60%", "-e", "rollout_noise=0.2",
		"-e", "rollout_settings="+canary, "-e", "rollout_summary_file="+summary)
	if r["h1"].failed != 0 || r["h1"].changed < 1 {
		// The canary's tune result (kept on the controller before the
		// play stops) says what each candidate measured.
		res, _ := os.ReadFile(canary)
		sum, _ := os.ReadFile(summary)
		t.Fatalf("rollout.yml, canary: %+v\n%s\nsummary:\n%s\ncanary's tune result:\n%s", r["h1"], out, sum, res)
	}
	chosen := sysctl(t, "h1", "net.ipv4.tcp_wmem")
	if chosen == wmem {
		t.Errorf("the canary kept a choice but tcp_wmem is still %s", chosen)
	}
	if b, err := os.ReadFile(filepath.Join(f.dir, "h1", "sysctl.d", "90-tcptune.conf")); err != nil || !strings.Contains(string(b), "net.ipv4.tcp_wmem") {
		t.Errorf("the canary did not persist: %v %s", err, b)
	}
	for _, h := range append([]string{"h1", "ref"}, group...) {
		// The package landed in the host's own /usr (its overlay's upper
		// layer), not the real host's.
		if _, err := os.Stat(filepath.Join(f.dir, h, "overlay", "usr", "up", "bin", "tcptune")); err != nil {
			t.Errorf("rollout from the package: %s has no /usr/bin/tcptune of its own: %v", h, err)
		}
	}
	for _, h := range group {
		if r[h].failed != 0 || sysctl(t, h, "net.ipv4.tcp_wmem") != chosen {
			t.Errorf("rollout to %s: %+v, tcp_wmem %s, want the canary's %s\n%s", h, r[h], sysctl(t, h, "net.ipv4.tcp_wmem"), chosen, out)
		}
	}
	if n := strings.Count(out, "Roll the canary's choice out to the group"); n != 2 {
		t.Errorf("want two batches (60%% of seven), got %d plays\n%s", n, out)
	}
	if b, err := os.ReadFile(summary); err != nil || strings.Count(string(b), "Mbit/s") != 16 || strings.Count(string(b), "applied") != len(group) || !strings.Contains(string(b), "canary") ||
		!regexp.MustCompile(`(?m)^h8 +c +group `).Match(b) {
		t.Errorf("summary: %v\n%s", err, b)
	} else {
		t.Logf("rollout summary:\n%s", b)
	}
	if b, err := os.ReadFile(canary); err == nil {
		// What the canary's baseline trials said (the summary's first limit).
		var res struct {
			Elapsed    float64 `json:"elapsed_s"`
			Candidates []struct {
				ID     string
				Trials []struct {
					BitsPerSecond float64 `json:"bits_per_second"`
					Verdict       string
				}
			}
		}
		json.Unmarshal(b, &res)
		t.Logf("the canary's tune took %.0f s", res.Elapsed)
		for _, tr := range res.Candidates[0].Trials {
			t.Logf("canary's %s: %.1f Mbit/s: %s", res.Candidates[0].ID, tr.BitsPerSecond/1e6, tr.Verdict)
		}
	}
	refServersStopped(t, "after the rollout")
	// Back to where the hosts were: h1's choice (for its 1 Gbit/s × 50 ms
	// path) on h2 and h3 changes what the mesh below measures.
	_, r = f.playbook(play, "-e", "step=rollback")
	each(t, "rollback of the rollout", r, func(r recap) bool { return r.failed == 0 && r.changed == 1 }, mesh...)
	if v := sysctl(t, "h2", "net.ipv4.tcp_wmem"); v != wmem2 {
		t.Errorf("h2 after rolling the rollout back: %s, want %s", v, wmem2)
	}

	// A batch that does worse stops the rollout: rollout_from (no canary)
	// a result whose choice is made worse on purpose (tcp_wmem max 32
	// KiB, a quarter of h2's BDP to the reference) makes h2, alone in the
	// first batch, measure worse than before, and better again once it is
	// rolled back: it stays rolled back, h3 is
	// never touched, the summary says so, and the reference servers are
	// stopped.
	wmem3 := sysctl(t, "h3", "net.ipv4.tcp_wmem")
	os.Remove(summary)
	worse := worseResult(t, canary, filepath.Join(f.dir, "rollout-worse.json"))
	out, r = f.playbook("tcptune.tcptune.rollout", "-l", "h2:h3:ref:localhost", "-e", "rollout_group=mesh", "-e", "reference_server="+refAddr,
		"-e", "rollout_from="+worse, "-e", "rollout_time=1", "-e", "rollout_repeat=1", "-e", "rollout_batch=1", "-e", "rollout_noise=0.2",
		"-e", "rollout_summary_file="+summary)
	if r["h2"].failed != 1 || r["h3"] != (recap{}) || sysctl(t, "h2", "net.ipv4.tcp_wmem") != wmem2 || sysctl(t, "h3", "net.ipv4.tcp_wmem") != wmem3 {
		t.Errorf("a worse batch: h2 %+v tcp_wmem %s (want failed, %s), h3 %+v tcp_wmem %s (want untouched, %s)\n%s",
			r["h2"], sysctl(t, "h2", "net.ipv4.tcp_wmem"), wmem2, r["h3"], sysctl(t, "h3", "net.ipv4.tcp_wmem"), wmem3, out)
	}
	// Worse is the change's only when rolling it back restored the rate:
	// h2 was measured a third time, without the change.
	if !regexp.MustCompile(`h2 did worse after the canary's choice \([\d.]+ against [\d.]+ Mbit/s before, [\d.]+ with it rolled back\)`).MatchString(out) {
		t.Errorf("a worse batch: no measurement with the change rolled back\n%s", out)
	}
	if b, err := os.ReadFile(summary); err != nil || !regexp.MustCompile(`(?m)^h2 +fleet +group .* worse: rolled back$`).Match(b) || strings.Contains(string(b), "h3") {
		t.Errorf("the summary of a stopped rollout: %v\n%s", err, b)
	}
	refServersStopped(t, "after a stopped rollout")

	results := filepath.Join(f.dir, "mesh")
	out, r = f.playbook("tcptune.tcptune.mesh", "-e", "mesh_results="+results, "-e", "mesh_time=3", "-e", "mesh_repeat=1")
	each(t, "mesh", r, func(r recap) bool { return r.failed == 0 && r.unreachable == 0 }, mesh...)
	files, _ := filepath.Glob(filepath.Join(results, "*_to_*.json"))
	if len(files) != 6 || !strings.Contains(out, "from \\\\ to") {
		t.Fatalf("mesh.yml: %d results\n%s", len(files), out)
	}
	// h2's link is the slowest: every pair through it is slow, and says
	// why. (Runs of 3 s: a flow across the hub, 60 ms between h1 and h3,
	// spends 0.6 s in slow start, and 1-s runs of it read no more than
	// h2's 100 Mbit/s.)
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); len(l) < 300 && strings.HasPrefix(strings.TrimLeft(l, `" `), "h") && strings.Contains(l, "Mbit/s") {
			t.Logf("mesh: %s", l)
		}
	}
	if !regexp.MustCompile(`h1 → h2: \d+(\.\d+)? Mbit/s, `).MatchString(out) {
		t.Errorf("the slow pairs are not listed:\n%s", out)
	}
	browser, flags := testutil.Chromium(t)
	dom, errOut, err := testutil.Run(t, 2*time.Minute, browser, append(flags, "--dump-dom", "file://"+filepath.Join(results, "mesh.html"))...)
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, errOut)
	}
	if n := strings.Count(dom, "data-from="); n != 6 || !strings.Contains(dom, `class="slow"`) {
		t.Fatalf("the HTML matrix has %d pair cells:\n%.3000s", n, dom)
	}

	// Nothing on the real host: its binary, persist file and backups are
	// as they were (absent, or untouched).
	if after := snapshot(); !reflect.DeepEqual(after, realBefore) {
		t.Errorf("the real host changed: before %v, after %v", realBefore, after)
	}
}

// refServersStopped fails when a tcptune serve of rollout.yml or
// tune.yml still listens on the reference host (ports 5201 and up).
func refServersStopped(t *testing.T, when string) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "exec", "tcptune-fref-b", "ss", "-Hltnp", "sport", ">=", ":5201", "and", "sport", "<=", ":5210").CombinedOutput()
	if err != nil || strings.Contains(string(out), "tcptune") {
		t.Errorf("%s, the reference servers still listen: %v\n%s", when, err, out)
	}
}

// packageDeb is the .deb for this machine's architecture that make
// package builds (packaging's test builds it first in make test), built
// here when it is missing or older than the binary under test.
func packageDeb(t *testing.T) string {
	t.Helper()
	root := testutil.ModuleRoot()
	deb := filepath.Join(root, "dist", fmt.Sprintf("tcptune_%s-1_%s.deb", version.Version, runtime.GOARCH))
	fi, err := os.Stat(deb)
	bi, berr := os.Stat(testutil.Binary(t))
	if err == nil && berr == nil && !fi.ModTime().Before(bi.ModTime()) {
		return deb
	}
	cmd := exec.Command("make", "--no-print-directory", "package", "ARCHES="+runtime.GOARCH)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make package: %v\n%s", err, out)
	}
	return deb
}

// worseResult writes a copy of the tune result at from whose choice sets
// tcp_wmem's maximum to 32 KiB, and returns its path.
func worseResult(t *testing.T, from, to string) string {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	for _, c := range res["candidates"].([]any) {
		c := c.(map[string]any)
		if c["id"] != res["choice"] {
			continue
		}
		var settings []any
		for _, s := range c["settings"].([]any) {
			if s.(map[string]any)["key"] != "net.ipv4.tcp_wmem" {
				settings = append(settings, s)
			}
		}
		c["settings"] = append(settings, map[string]any{"key": "net.ipv4.tcp_wmem", "value": "4096 16384 32768"})
	}
	b, _ = json.Marshal(res)
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}
