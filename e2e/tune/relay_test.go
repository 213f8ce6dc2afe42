//go:build linux

package tune_test

import (
	"context"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/tune"
)

// snapshot is the relay's count of payload delivered one way, at the
// time it published it.
type snapshot struct {
	at      time.Time
	payload float64
}

// relayPayload polls the relay's published counters until stop: TCP
// payload is the wire bytes less 52 bytes (IPv4, TCP, timestamps) per
// segment.
func relayPayload(name string, ab bool, stop <-chan struct{}) []snapshot {
	var out []snapshot
	for {
		links, _ := lab.List()
		for _, l := range links {
			if l.Name != name || l.Stats == nil {
				continue
			}
			d := l.Stats.BA
			if ab {
				d = l.Stats.AB
			}
			if len(out) == 0 || l.Stats.Updated.After(out[len(out)-1].at) {
				out = append(out, snapshot{l.Stats.Updated, float64(d.Bytes) - 52*float64(d.Segments)})
			}
		}
		select {
		case <-stop:
			return out
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// inside is the first and the last of the relay's snapshots that fall
// inside [from, to] (it publishes about once a second): at least two
// are needed.
func inside(ss []snapshot, from, to time.Time) (first, last snapshot, ok bool) {
	var in []snapshot
	for _, s := range ss {
		if !s.at.Before(from) && !s.at.After(to) {
			in = append(in, s)
		}
	}
	if len(in) < 2 {
		return first, last, false
	}
	return in[0], in[len(in)-1], true
}

// counted is the trial's payload (bits) from its start to at, from its
// per-interval rates: the intervals split [From, To] evenly, and within
// one the rate is taken as constant. The relay's snapshots fall between
// interval ends, so comparing the relay with the trial's whole period
// would set a sub-period's rate against another's when the rate moves
// (a CPU shared with other work).
func counted(tr tune.Trial, at time.Time) float64 {
	n := len(tr.Intervals)
	if n == 0 {
		return 0
	}
	each := tr.To.Sub(tr.From).Seconds() / float64(n)
	x := at.Sub(tr.From).Seconds()
	var bits float64
	for _, r := range tr.Intervals {
		if x <= 0 {
			break
		}
		bits += r * min(x, each)
		x -= each
	}
	return bits
}

// A trial's rate (the kernel's delivered count, in process) agrees with
// what the lab's relay delivered over the same period within 2%, and is
// never above rate × MSS/MTU: window-limited forward, and reverse at
// line rate (the smaller of the tcptune server's sender count and this
// receiver's).
func TestTrialAgainstRelay(t *testing.T) {
	heavy(t)
	bin := setup(t)
	c := lab.Config{Name: "tt-trelay", Rate: 1e9, RTT: 20 * time.Millisecond, MTU: 1500}
	if out, errOut, err := testutil.Run(t, time.Minute, bin, "lab", "up", c.Name, "--rate", "1gbit", "--rtt", "20ms"); err != nil {
		t.Fatalf("lab up: %v\n%s%s", err, out, errOut)
	}
	t.Cleanup(func() { exec.Command(bin, "lab", "down", c.Name).Run() })
	st, err := lab.ReadState(c.Name)
	if err != nil {
		t.Fatal(err)
	}
	srv := testutil.Start(t, bin, "lab", "exec", c.Name, "b", "--", bin, "serve", "-p", "5201")
	testutil.WaitListeningPID(t, srv.Cmd.Process.Pid, 5201)
	// End a's send buffer holds about 0.65 × 2 MiB: ≈545 Mbit/s at 20 ms.
	if out, err := exec.Command("ip", "netns", "exec", st.NSA, "sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 2097152").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	goodput := c.Rate * 1448 / 1500
	m := tune.Measurer{Host: st.AddrB, Port: 5201, NetNS: st.NSA}
	for _, d := range []tune.Direction{tune.Forward, tune.Reverse} {
		stop := make(chan struct{})
		var snaps []snapshot
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); snaps = relayPayload(c.Name, d == tune.Forward, stop) }()
		tr, err := m.Trial(context.Background(), tune.TrialSpec{Direction: d, Time: 4 * time.Second, Omit: 1500 * time.Millisecond, Parallel: 1}, goodput, c.RTT)
		time.Sleep(2500 * time.Millisecond) // a published count after the end
		close(stop)
		wg.Wait()
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		first, last, ok := inside(snaps, tr.From, tr.To)
		if !ok {
			t.Fatalf("%s: fewer than two relay counts inside %v–%v (%d snapshots)", d, tr.From, tr.To, len(snaps))
		}
		secs := last.at.Sub(first.at).Seconds()
		relay := (last.payload - first.payload) * 8 / secs
		trial := (counted(tr, last.at) - counted(tr, first.at)) / secs
		var sum float64
		for _, iv := range tr.Intervals {
			sum += iv
		}
		mean := sum / float64(len(tr.Intervals))
		t.Logf("%s: trial %.1f Mbit/s (counted by the %s; its intervals %.1f, over the relay's %.2f s %.1f), relay %.1f Mbit/s, goodput %.1f",
			d, tr.BitsPerSecond/1e6, tr.CountedBy, mean/1e6, secs, trial/1e6, relay/1e6, goodput/1e6)
		// Both ends are tcptune: without retransmits the smaller of the
		// sender's and the receiver's kernel counts, never the
		// application's bytes.
		if tr.CountedBy != "sender" && tr.CountedBy != "receiver" {
			t.Errorf("%s: counted by the %s", d, tr.CountedBy)
		}
		// The trial's intervals over the relay's own period.
		if r := trial / relay; r < 0.98 || r > 1.02 {
			t.Errorf("%s: trial %.1f vs relay %.1f Mbit/s over %v–%v (%.3f)", d, trial/1e6, relay/1e6, first.at, last.at, r)
		}
		// The trial's total against its intervals: counted by this
		// end's kernel, the same count over the same clock. Counted by
		// the other end's, it covers that end's period, which starts
		// and ends a control message later; with the rate moving (a
		// shared CPU) that alone differs by a percent or two, but an
		// omitted second counted in, or the application's bytes, would
		// not hide in 5%.
		own := map[tune.Direction]string{tune.Forward: "sender", tune.Reverse: "receiver"}[d]
		tol := 0.005
		if tr.CountedBy != own {
			tol = 0.05
		}
		if r := tr.BitsPerSecond / mean; r < 1-tol || r > 1+tol {
			t.Errorf("%s: trial %.1f Mbit/s (counted by the %s) vs its intervals' mean %.1f (%.3f)", d, tr.BitsPerSecond/1e6, tr.CountedBy, mean/1e6, r)
		}
		if tr.BitsPerSecond > goodput*1.001 {
			t.Errorf("%s: %.1f Mbit/s above the goodput %.1f", d, tr.BitsPerSecond/1e6, goodput/1e6)
		}
		for _, iv := range tr.Intervals {
			if iv > goodput*1.01 {
				t.Errorf("%s: an interval of %.1f Mbit/s, above the goodput", d, iv/1e6)
			}
		}
	}
}

// On a lossy path a receiver's in-order count releases at once what
// arrived beyond a hole when a retransmission fills it; no interval of
// a trial, and no trial, may read above the path's goodput for it, in
// either direction, against a stock iperf3 (reverse: counted at this
// receiver) and tcptune serve. BBR keeps the rate at the goodput
// through 0.5% loss, where the release shows.
func TestTrialIntervalsOnALossyPath(t *testing.T) {
	light(t) // 100 Mbit/s on its own link: beside the heavy test of the moment
	bin := setup(t)
	const name = "tt-tloss"
	if out, errOut, err := testutil.Run(t, time.Minute, bin, "lab", "up", name, "--rate", "100mbit", "--rtt", "20ms", "--loss", "0.5%", "--seed", "7"); err != nil {
		t.Fatalf("lab up: %v\n%s%s", err, out, errOut)
	}
	t.Cleanup(func() { exec.Command(bin, "lab", "down", name).Run() })
	st, err := lab.ReadState(name)
	if err != nil {
		t.Fatal(err)
	}
	goodput := 100e6 * 1448 / 1500
	for _, srv := range [][]string{{bin, "serve", "-p", "5201"}, {testutil.NeedIperf3(t), "-s", "-p", "5202"}} {
		p := testutil.Start(t, bin, append([]string{"lab", "exec", name, "b", "--"}, srv...)...)
		port := 5201
		if srv[0] != bin {
			port = 5202
		}
		testutil.WaitListeningPID(t, p.Cmd.Process.Pid, port)
		m := tune.Measurer{Host: st.AddrB, Port: port, NetNS: st.NSA}
		for _, d := range []tune.Direction{tune.Forward, tune.Reverse} {
			tr, err := m.Trial(context.Background(), tune.TrialSpec{Direction: d, Time: 4 * time.Second, Omit: time.Second, Parallel: 1, Congestion: "bbr"}, goodput, 20*time.Millisecond)
			if err != nil {
				t.Fatalf("%s against %s: %v", d, srv[0], err)
			}
			t.Logf("%s against %s: %.1f Mbit/s counted by the %s, %d retransmits, intervals %.1f", d, srv[0], tr.BitsPerSecond/1e6, tr.CountedBy, tr.Retransmits, tr.Intervals)
			for _, iv := range tr.Intervals {
				if iv > goodput*1.01 {
					t.Errorf("%s against %s: an interval of %.1f Mbit/s, above the goodput %.1f", d, srv[0], iv/1e6, goodput/1e6)
				}
			}
			if tr.BitsPerSecond > goodput*1.002 {
				t.Errorf("%s against %s: %.2f Mbit/s, above the goodput %.2f", d, srv[0], tr.BitsPerSecond/1e6, goodput/1e6)
			}
		}
	}
}
