package tune

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/cores"
	"github.com/tcptune/tcptune/internal/drops"
	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/view"
	"github.com/tcptune/tcptune/internal/window"
	"github.com/tcptune/tcptune/internal/wire"
)

// Measurer runs tune's measurements in this process, against a tcptune
// or iperf3 server: the RTT from a short test, and trials through the
// client package. In a lab it dials from end a's namespace.
type Measurer struct {
	Host  string
	Port  int
	NetNS string // the namespace to dial from; "" = this one
	// PeerNetNS, in a lab, is end b's namespace, Self end a's address
	// and Device end a's interface: a reverse trial's sender is end b,
	// whose transmit queue's drops count, named as Device (the name
	// tune knows the lab's interfaces by).
	PeerNetNS, Self, Device string
}

// RTT is the smallest RTT of one short test (-n 256 KB, this end
// sending): its control connection's and its stream's tcpi_min_rtt. A
// server logs it as an ordinary test, where bare TCP connects leave
// "no cookie" errors in a production iperf3's log (and may upset its
// next test).
func (m Measurer) RTT(ctx context.Context) (time.Duration, error) {
	o := client.Options{
		Host: m.Host, Port: m.Port, Interval: time.Second, ConnectTimeout: 10 * time.Second,
		Params: wire.Params{Parallel: 1, Num: 256 << 10, ServerAffinity: -1, PacingTimer: 1000},
	}
	var out *client.Outcome
	err := nsx.Do(m.NetNS, func() error {
		var err error
		out, err = client.Run(ctx, o, client.Discard{})
		return err
	})
	if err != nil {
		return 0, err
	}
	if d := out.MinRTT(); d > 0 {
		return d, nil
	}
	return 0, errors.New("the RTT is out of reach: no TCP_INFO on this system")
}

// Trial runs one test. pathRate and idleRTT let the attribution tell a
// full path from a buffer limit.
func (m Measurer) Trial(ctx context.Context, s TrialSpec, pathRate float64, idleRTT time.Duration) (Trial, error) {
	o := client.Options{
		Host: m.Host, Port: m.Port, Interval: time.Second, ConnectTimeout: 5 * time.Second,
		Params: wire.Params{Parallel: max(1, s.Parallel), Reverse: s.Direction == Reverse, ServerAffinity: -1,
			PacingTimer: 1000, Congestion: s.Congestion, ZeroCopy: s.ZeroCopy, Time: 1},
		Omit: s.Omit, Time: s.Time, PathRate: pathRate, PathMSS: s.PathMSS, IdleRTT: idleRTT,
		// -C stands for hosts whose default it is: the control runs from
		// the first packet (set once connected, a connection begun under
		// a pacing default such as the lab's BBR would keep pacing).
		CongestionFromStart: true,
	}
	var out *client.Outcome
	var rose drops.Counters
	var loads []cores.Load
	sender := m.senderQueue(s.Direction)
	txBefore, txErr := sender()
	err := nsx.Do(m.NetNS, func() error {
		peer := net.ParseIP(m.Host)
		if peer == nil {
			if ips, err := net.DefaultResolver.LookupIP(ctx, "ip", m.Host); err == nil && len(ips) > 0 {
				peer = ips[0]
			}
		}
		before, berr := drops.Snapshot("/", peer)
		cpuBefore, cerr := cores.Read("/")
		var err error
		out, err = client.Run(ctx, o, client.Discard{})
		if after, aerr := drops.Snapshot("/", peer); berr == nil && aerr == nil {
			rose = after.Since(before)
		}
		if cpuAfter, aerr := cores.Read("/"); cerr == nil && aerr == nil {
			loads = cpuAfter.Since(cpuBefore)
		}
		return err
	})
	if err != nil {
		return Trial{}, err
	}
	if txAfter, err := sender(); txErr == nil && err == nil && s.Direction == Reverse && m.PeerNetNS != "" {
		tx := txAfter.Since(txBefore)
		rose.Iface, rose.TxDrop, rose.Qdisc, rose.TxQLen = m.Device, tx.TxDrop, tx.Qdisc, tx.TxQLen
	}
	t, err := trialOf(out, s.Direction, pathRate, s.PathMSS)
	withDrops(&t, rose)
	withCores(&t, loads)
	t.Congestion, t.ZeroCopy = s.Congestion, s.ZeroCopy
	if s.Parallel > 1 {
		t.Parallel = s.Parallel
	}
	return t, err
}

// senderQueue reads, in a lab's reverse trial, the sending end's
// (end b's) queue counters toward end a; elsewhere nothing.
func (m Measurer) senderQueue(d Direction) func() (drops.Counters, error) {
	return func() (drops.Counters, error) {
		var c drops.Counters
		if d != Reverse || m.PeerNetNS == "" {
			return c, nil
		}
		err := nsx.Do(m.PeerNetNS, func() error {
			var err error
			c, err = drops.Snapshot("/", net.ParseIP(m.Self))
			return err
		})
		return c, err
	}
}

// withDrops adds the host's queue drops during a trial to it and its
// verdict: they are what retransmits alone cannot tell apart from a full
// path.
func withDrops(t *Trial, rose drops.Counters) {
	if !rose.Rose() {
		return
	}
	t.Drops = &rose
	t.addVerdict(rose.Verdict())
}

// withCores adds the busiest core to a trial and its verdict when it ran
// flat out: one saturated core (a sender's thread, or softirq at a
// receiver) can hold a flow while the host looks half idle.
func withCores(t *Trial, loads []cores.Load) {
	b, ok := cores.Busiest(loads)
	if !ok || !b.Saturated() {
		return
	}
	t.Core = &b
	t.addVerdict(coreVerdict(b))
}

func coreVerdict(b cores.Load) string { return "a core ran flat out: " + b.String() }

func (t *Trial) addVerdict(s string) {
	if t.Verdict != "" {
		t.Verdict += "; "
	}
	t.Verdict += s
}

// attribute sets the trial's verdict from the attribution's result r,
// with the host's queue drops and a saturated core it saw.
func (t *Trial) attribute(r attrib.Result) {
	t.Limit, t.Verdict, t.Advice, t.Capped, t.Recovering = string(r.Limit), r.Verdict, r.Advice, r.Capped, r.Recovering
	t.RuledOut = nil
	for _, l := range r.RuledOut {
		t.RuledOut = append(t.RuledOut, string(l))
	}
	if t.Drops != nil {
		t.addVerdict(t.Drops.Verdict())
	}
	if t.Core != nil {
		t.addVerdict(coreVerdict(*t.Core))
	}
}

// judgedAt is the path's goodput t's verdict was judged at (bit/s), or
// -1 where its inputs are out of reach (it cannot be judged again).
func (t *Trial) judgedAt() float64 {
	if t.judged == nil || t.judged.Judged == nil {
		return -1
	}
	return t.judged.Judged.Context.PathRate
}

// rejudge judges t again at the path's goodput g (bit/s), when it was
// judged at another (a trial run before the path's rate was estimated
// cannot tell a full path from the buffer that held it there). A trial
// without the attribution's inputs (the tests' fakes) stays as it is.
func (t *Trial) rejudge(g float64) {
	if a := t.judgedAt(); a < 0 || a == g {
		return
	}
	v := t.judged.Rejudge(g)
	t.judged = &v
	t.attribute(v.Verdict.Result)
}

// trialOf is the trial of direction d: the client's view of the
// direction this host sends in (forward) or receives in (reverse), with
// its payload as the view counted it (the sender's delivered payload;
// this receiver's kernel count against a stock iperf3, which sends no
// view; the application's bytes without TCP_INFO), and the per-interval
// rates counted the same way on this side, none above the path's
// goodput path (counted at MSS pathMSS; view.Rates; 0 = unknown).
func trialOf(out *client.Outcome, d Direction, path float64, pathMSS int) (Trial, error) {
	t := Trial{Direction: d, Retransmits: -1, From: out.From, To: out.To}
	localSends := d == Forward
	var v *view.Direction
	for i := range out.Views {
		if out.Views[i].LocalSends == localSends {
			v = &out.Views[i]
		}
	}
	if v == nil {
		return t, fmt.Errorf("the trial has no %s direction", d)
	}
	if v.Seconds <= 0 {
		return t, errors.New("the trial measured no time")
	}
	t.BitsPerSecond, t.CountedBy, t.Seconds = v.BitsPerSecond(), string(v.CountedBy), v.Seconds
	if t.BitsPerSecond <= 0 {
		return t, errors.New("no data was delivered")
	}
	if localSends {
		for _, st := range out.Totals {
			if st.Sender && st.Last != nil {
				t.Delivered += st.Last.DeliveredSince(nil)
			}
		}
	}
	if v.CountedBy != view.Application {
		if pathMSS > 0 && v.MSS > 0 {
			// The goodput at the trial's own MSS (another MTU carries
			// more or less payload in the same packets).
			path = window.Payload(path, pathMSS, v.MSS, pathMSS)
		}
		var early float64
		t.Intervals, early = view.Rates(out.Intervals, localSends, path)
		if own := map[bool]view.Counter{true: view.Sender, false: view.Receiver}[localSends]; v.CountedBy == own {
			// The total is the same count: short of what crossed before.
			t.BitsPerSecond -= early / t.Seconds
		}
	}
	t.Window, t.SndBuf, t.Inflight, t.Retransmits, t.Spurious, t.MSS = v.Window, v.SndBuf, v.Inflight, v.Retransmits, v.Spurious, v.MSS
	t.RTTus, t.MinRTTus = float64(v.RTT.Microseconds()), float64(v.MinRTT.Microseconds())
	t.judged = v
	t.attribute(v.Verdict.Result)
	return t, nil
}
