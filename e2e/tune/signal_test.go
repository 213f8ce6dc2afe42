//go:build linux

package tune_test

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// A dropped SSH session (SIGHUP) and a closed output (tune … | head)
// undo as Ctrl-C does: the lab link and its namespaces are removed.
func TestTuneSignals(t *testing.T) {
	light(t) // a low rate on its own link: beside the heavy test of the moment
	bin := setup(t)
	for _, how := range []string{"SIGHUP", "closed stderr"} {
		cmd := exec.Command(bin, "tune", "--lab", "--name", "tt-tsig", "--rate", "100mbit", "--rtt", "20ms", "--time", "3")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			if strings.Contains(sc.Text(), "==> baseline") {
				seen = true
				break
			}
		}
		if !seen {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s: no baseline stage", how)
		}
		if how == "SIGHUP" {
			cmd.Process.Signal(syscall.SIGHUP)
		} else {
			stderr.Close() // the next progress line meets a closed pipe
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%s: tune did not end", how)
		}
		if ns, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(ns), "tcptune-tt-tsig") {
			t.Errorf("%s: namespaces left behind:\n%s", how, ns)
			exec.Command(bin, "lab", "down", "tt-tsig").Run()
		}
		if ls, _, _ := testutil.Run(t, time.Minute, bin, "lab", "ls"); strings.Contains(ls, "tt-tsig") {
			t.Errorf("%s: lab link left behind:\n%s", how, ls)
			exec.Command(bin, "lab", "down", "tt-tsig").Run()
		}
	}
}
