//go:build linux

package tune_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/testutil"
)

// waitTrial waits until a trial's backup ("trial_pid") is in dir: a
// candidate is applied. It fails the test after a minute.
func waitTrial(t *testing.T, dir string, cmd *exec.Cmd) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			var b struct {
				ID       string `json:"id"`
				TrialPID int    `json:"trial_pid"`
			}
			if data, err := os.ReadFile(f); err == nil && json.Unmarshal(data, &b) == nil && b.TrialPID == cmd.Process.Pid {
				return b.ID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("no trial's backup appeared in %s", dir)
	return ""
}

// tune --peer killed with SIGKILL while a candidate is live: its backup
// stays; the next tune refuses to measure over it and names the
// rollback; doctor names it too; the rollback it names restores.
func TestTunePeerKilled(t *testing.T) {
	heavy(t)
	p := newPeerLab(t, "tt-tkill", testutil.Binary(t), "serve", "-p", "5201")
	if out, err := exec.Command("ip", "netns", "exec", p.ns, "sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 4194304").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before := p.sysctl("net.ipv4.tcp_wmem")
	cmd := exec.Command(p.bin, "lab", "exec", "tt-tkill", "a", "--", "sh", "-c", `exec "$0" tune --peer "$TCPTUNE_PEER" --rate 1gbit --direction forward --trials 2 --time 1`, p.bin)
	cmd.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+p.stateDir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitTrial(t, filepath.Join(p.stateDir, "backups"), cmd)
	// The backup is on disk before the write: wait for the value itself.
	for end := time.Now().Add(10 * time.Second); p.sysctl("net.ipv4.tcp_wmem") == before && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	// The live trial's backup (an earlier one, the path MTU's probe, is
	// discarded when it is undone).
	id := waitTrial(t, filepath.Join(p.stateDir, "backups"), cmd)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if p.sysctl("net.ipv4.tcp_wmem") == before {
		t.Fatal("the trial's value never went live before the kill")
	}
	_, errOut, err := p.tune("tt-tkill", nil, "--direction", "forward", "--trials", "2", "--time", "1")
	if err == nil || !strings.Contains(errOut, "was interrupted") || !strings.Contains(errOut, "tcptune rollback "+id) {
		t.Errorf("tune after a killed run: err %v\n%s", err, errOut)
	}
	doctor := func() string {
		c := exec.Command("ip", "netns", "exec", p.ns, p.bin, "doctor", "--json", "--peer", p.peer)
		c.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+p.stateDir)
		out, _ := c.Output()
		var rs []struct{ Check, Verdict, Evidence, Fix string }
		json.Unmarshal(out, &rs)
		for _, r := range rs {
			if r.Check == "interrupted-tune" {
				return r.Verdict + " " + r.Fix
			}
		}
		return "no interrupted-tune check in: " + string(out)
	}
	fix := strings.TrimPrefix(doctor(), "fail ")
	if fix != "tcptune rollback "+id {
		t.Fatalf("doctor: %q, want the fix tcptune rollback %s", fix, id)
	}
	// The fix runs as printed.
	c := exec.Command("ip", append([]string{"netns", "exec", p.ns, p.bin}, strings.Fields(fix)[1:]...)...)
	c.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+p.stateDir)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", fix, err, out)
	}
	if got := p.sysctl("net.ipv4.tcp_wmem"); got != before {
		t.Errorf("after %s: %q, want %q", fix, got, before)
	}
	if v := doctor(); !strings.HasPrefix(v, "ok") {
		t.Errorf("doctor after the rollback: %s", v)
	}
}

// tune --lab killed with SIGKILL leaves its link: lab ls marks it as
// orphaned, and lab down --orphaned removes it, namespaces and all.
func TestTuneLabKilled(t *testing.T) {
	light(t) // a low rate on its own link: beside the heavy test of the moment
	bin := setup(t)
	t.Cleanup(func() { exec.Command(bin, "lab", "down", "tt-tkl").Run() })
	cmd := exec.Command(bin, "tune", "--lab", "--name", "tt-tkl", "--rate", "200mbit", "--rtt", "20ms", "--direction", "forward", "--trials", "2", "--time", "1", "--force")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitTrial(t, filepath.Join(lab.StateDir("tt-tkl"), "tune-backups"), cmd)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	out, _, err := testutil.Run(t, time.Minute, bin, "lab", "ls", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var ls []struct {
		Name     string `json:"name"`
		Owner    int    `json:"owner"`
		Orphaned bool   `json:"orphaned"`
	}
	if err := json.Unmarshal([]byte(out), &ls); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	found := false
	for _, l := range ls {
		if l.Name == "tt-tkl" {
			found = true
			if !l.Orphaned || l.Owner != cmd.Process.Pid {
				t.Errorf("lab ls: %+v, want orphaned, owner %d", l, cmd.Process.Pid)
			}
		}
	}
	if !found {
		t.Fatalf("the killed run's link is not listed:\n%s", out)
	}
	if out, errOut, err := testutil.Run(t, time.Minute, bin, "lab", "down", "--orphaned"); err != nil || !strings.Contains(out, "lab tt-tkl down") {
		t.Fatalf("lab down --orphaned: %v\n%s%s", err, out, errOut)
	}
	if ns, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(ns), "tcptune-tt-tkl") {
		t.Errorf("namespaces left:\n%s", ns)
	}
	if _, err := os.Stat(lab.StateDir("tt-tkl")); !os.IsNotExist(err) {
		t.Errorf("state left: %v", err)
	}
}

// tune --peer ended by INT, TERM or HUP while a candidate is live
// restores the starting values and discards the trial's backup. (The
// signal test of --lab signals before any candidate; this one after.)
func TestTunePeerSignalledMidTrial(t *testing.T) {
	heavy(t)
	p := newPeerLab(t, "tt-tsigp", testutil.Binary(t), "serve", "-p", "5201")
	if out, err := exec.Command("ip", "netns", "exec", p.ns, "sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 4194304").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before := p.sysctl("net.ipv4.tcp_wmem")
	// TERM here; INT and HUP take the same path (one context cancelled
	// by every signal that ends the process: TestTuneSignals sends HUP).
	for _, sig := range []syscall.Signal{syscall.SIGTERM} {
		cmd := exec.Command(p.bin, "lab", "exec", "tt-tsigp", "a", "--", "sh", "-c", `exec "$0" tune --peer "$TCPTUNE_PEER" --rate 1gbit --direction forward --trials 2 --time 1`, p.bin)
		cmd.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+p.stateDir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitTrial(t, filepath.Join(p.stateDir, "backups"), cmd)
		for end := time.Now().Add(10 * time.Second); p.sysctl("net.ipv4.tcp_wmem") == before && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		if p.sysctl("net.ipv4.tcp_wmem") == before {
			t.Fatalf("%v: the trial's value never went live", sig)
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: tune did not end", sig)
		}
		if got := p.sysctl("net.ipv4.tcp_wmem"); got != before {
			t.Errorf("%v: tcp_wmem left at %q, was %q", sig, got, before)
		}
		if files, _ := filepath.Glob(filepath.Join(p.stateDir, "backups", "*.json")); len(files) != 0 {
			t.Errorf("%v: backups left: %v", sig, files)
		}
	}
}
