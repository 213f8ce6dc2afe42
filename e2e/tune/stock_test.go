//go:build linux

package tune_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/tcptune/tcptune/internal/testutil"
)

// The paths users have: a stock iperf3 3.22 server, hosts running cubic
// (-C cubic: this machine's namespaces can only default to the host's
// allowed controls), and a router queue of 0.2 × BDP, both directions.
// This end's 4 MiB tcp_wmem holds forward; the peer sends reverse with
// no sender's view. Once, tune kept nothing here: reverse's
// flat figures ended forward's climb and trimmed its raise away, the
// cubic flow was called "congestion window" with nothing to raise, and
// the RTT probe's bare connects filled iperf3's log with errors.
func TestTunePeerStockIperf3CubicShallow(t *testing.T) {
	heavy(t)
	iperf3 := testutil.NeedIperf3Newest(t)
	p := newPeerLabOn(t, "tt-tstock", []string{"--rate", "1gbit", "--rtt", "40ms", "--queue", "0.2bdp"}, iperf3, "-s", "-p", "5201")
	if out, err := exec.Command("ip", "netns", "exec", p.ns, "sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 4194304").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	before := p.sysctl("net.ipv4.tcp_wmem")
	out, errOut, err := p.tune("tt-tstock", nil, "-C", "cubic", "--trials", "2", "--time", "1.5", "--json")
	if err != nil {
		t.Fatalf("tune --peer: %v\n%s\n%s", err, out, errOut)
	}
	var s summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var res struct {
		RTTms float64 `json:"rtt_ms"`
		Steps []string
	}
	json.Unmarshal([]byte(out), &res)
	t.Logf("RTT %.1f ms; steps:\n%s", res.RTTms, strings.Join(res.Steps, "\n"))
	// The quiet probe measured the RTT from a test's connections: never
	// below the link's 40 ms, and no error in the server's log.
	if res.RTTms < 40 || res.RTTms > 48 {
		t.Errorf("RTT %.1f ms on a 40 ms link", res.RTTms)
	}
	if log := p.server.Stdout.String() + p.server.Stderr.String(); strings.Contains(log, "cookie") || strings.Contains(log, "reset by peer") {
		t.Errorf("the server logged errors:\n%s", log)
	}
	// Every trial runs cubic, but the forward trials of a candidate with
	// a control of its own (this host's control sends only forward: the
	// stock iperf3's own sends reverse), and the one reverse trial that
	// asks the peer's sockets for bbr (reported, where reverse falls short).
	for _, c := range s.Cands {
		for _, tr := range c.Trials {
			own := c.Congestion != "" && tr.Direction == "forward" && tr.Congestion == c.Congestion ||
				c.ID == "peer-bbr" && tr.Direction == "reverse" && tr.Congestion == "bbr"
			if tr.Congestion != "cubic" && !own {
				t.Errorf("%s (control %q): a %s trial with congestion control %q, want cubic", c.ID, c.Congestion, tr.Direction, tr.Congestion)
			}
		}
	}
	// The baseline's window, held with the send buffer at its cap and no
	// loss, may be the buffer's: a trial of this host's tcp_wmem above it
	// with cubic (the search's, or a reference profile's, which is an
	// observation too) comes before anything is learned of cubic's
	// window (once it went straight to BBR), and the choice keeps a
	// raise of tcp_wmem or a control that did better: the baseline fell
	// short of the best full set beyond the noise, so a kept choice
	// gained in forward, and one rolled back was worse than the
	// baseline in forward (the only direction this host's change acts
	// on that it judges) beyond the 5% the safety net allows.
	steps := strings.Join(res.Steps, "\n")
	raised := false
	for _, c := range s.Cands {
		raised = raised || ((c.Origin == "search" || c.Origin == "reference") && c.Congestion == "" && c.WmemMax > 4194304 && len(c.Trials) > 0)
	}
	if !raised {
		t.Errorf("no trial of cubic with more tcp_wmem:\n%s", steps)
	}
	if ch := s.find(s.Choice); ch == nil || (ch.WmemMax <= 4194304 && ch.Congestion == "") {
		t.Errorf("choice %+v raises neither tcp_wmem nor the control:\n%s", ch, steps)
	}
	if s.Verify == nil {
		t.Errorf("no verification: %s", s.Why)
	} else if b, a := s.find("baseline").Summary["forward"], s.Verify.Summary["forward"]; s.Kept && a.Mean <= b.Mean || !s.Kept && a.Median >= 0.95*b.Median {
		t.Errorf("kept %v (%s), forward: after %.0f (median %.0f), before %.0f (median %.0f)", s.Kept, s.Why, a.Mean, a.Median, b.Mean, b.Median)
	}
	// Reverse is the stock iperf3's to send: judged only by its rate, and
	// the report says the evidence does not decide what holds it.
	if len(s.PeerAdvice) == 0 || !strings.Contains(strings.Join(s.PeerAdvice, "\n"), "counted only at this receiver") {
		t.Errorf("peer advice %q", s.PeerAdvice)
	}
	if got := p.sysctl("net.ipv4.tcp_wmem"); got != before {
		t.Errorf("tcp_wmem left at %q, was %q (no --apply)", got, before)
	}
}

// Against a stock iperf3, 3.12 and 3.22, on a lossy long path with the
// peer's sockets on cubic (-C cubic, as iperf3 sets it on the server's
// sockets in a reverse test): reverse, which the peer sends with no
// sender's view, is held by cubic's cut at each loss. One trial with
// -C bbr on the peer's sending sockets lifts it (the peer's tcp_wmem,
// 4 MiB, then holds it near 230 Mbit/s; cubic read 66–143 at 0.02%
// loss), and the peer's command names its congestion control.
//
// The two peers' runs go side by side, each on its own link: 500 Mbit/s
// each, a gigabit between them, as one heavy test.
func TestTunePeerCongestionLever(t *testing.T) {
	heavy(t)
	type run struct {
		name, bin, out, errOut string
		err                    error
	}
	runs := []*run{{name: "312", bin: testutil.NeedIperf3(t)}, {name: "322", bin: testutil.NeedIperf3Newest(t)}}
	var wg sync.WaitGroup
	for _, r := range runs {
		name := "tt-tpcc" + r.name
		p := newPeerLabOn(t, name, []string{"--rate", "500mbit", "--rtt", "80ms", "--loss", "0.05%", "--seed", "7", "--queue", "0.5bdp"}, r.bin, "-s", "-p", "5201")
		wg.Go(func() {
			r.out, r.errOut, r.err = p.tune(name, nil, "-C", "cubic", "--direction", "reverse", "--trials", "2", "--time", "2", "--compare=none", "--json")
		})
	}
	wg.Wait()
	for _, r := range runs {
		t.Run("iperf3-"+r.name, func(t *testing.T) {
			out, errOut, err := r.out, r.errOut, r.err
			if err != nil {
				t.Fatalf("tune --peer: %v\n%s\n%s", err, out, errOut)
			}
			var s summary
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			advice := strings.Join(s.PeerAdvice, "\n")
			t.Logf("levers %+v\npeer advice:\n%s", s.Levers, advice)
			helped := false
			for _, l := range s.Levers {
				helped = helped || l.Direction == "reverse" && strings.Contains(l.Name, "-C bbr on the peer's sending sockets") && l.Helped && l.Gain >= 1.5
			}
			if !helped || !strings.Contains(advice, "its congestion control holds reverse") || !strings.Contains(advice, "sysctl -w net.ipv4.tcp_congestion_control=bbr") {
				t.Errorf("the peer's control was not found holding reverse")
			}
			// Its one trial asked the peer for bbr; every other reverse
			// trial ran the peer's sockets on cubic.
			n := 0
			for _, c := range s.Cands {
				for _, tr := range c.Trials {
					switch {
					case tr.Direction != "reverse":
					case c.ID == "peer-bbr" && tr.Congestion == "bbr":
						n++
					case tr.Congestion != "cubic":
						t.Errorf("%s: a reverse trial with %q", c.ID, tr.Congestion)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d trials asked the peer's sockets for bbr, want 1", n)
			}
		})
	}
}
