package watch

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/metricsrv"
	"github.com/tcptune/tcptune/internal/procnet"
	"github.com/tcptune/tcptune/internal/sockdiag"
	"github.com/tcptune/tcptune/internal/sockopt"
)

// counting is a source whose PruneCalled grows by 5 a sample.
type counting struct{ n *int }

func (c counting) Sample() (Sample, error) {
	*c.n++
	return Sample{Time: time.Unix(int64(*c.n), 0), Counters: procnet.Counters{"TcpExt.PruneCalled": int64(5 * *c.n)}}, nil
}

func TestRunEmitsCountIntervals(t *testing.T) {
	n := 0
	var got []Report
	err := Run(context.Background(), counting{&n}, time.Millisecond, 3, func(r Report) error { got = append(got, r); return nil })
	// Three intervals after the first sample, each spanning its own
	// samples (the source's clock: a second a sample), as many as the
	// cost of a sample, measured as it runs, leaves room for (up to ten:
	// samplesPer).
	if err != nil || len(got) != 3 {
		t.Fatalf("err %v, %d reports from %d samples", err, len(got), n)
	}
	sum := 0.0
	for _, r := range got {
		if r.Seconds < 1 || r.Seconds > maxSamples {
			t.Errorf("interval %g s, want 1 to %d samples' seconds", r.Seconds, maxSamples)
		}
		sum += r.Seconds
	}
	if float64(n) != 1+sum {
		t.Errorf("%d samples, the intervals span %g", n, sum)
	}
	// A sample that costs nothing leaves room for ten per interval.
	if p := samplesPer(time.Millisecond, 0); p != maxSamples {
		t.Errorf("samples per interval at no cost: %d", p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, counting{&n}, time.Hour, 0, func(Report) error { t.Error("emitted after the end"); return nil }); err != nil {
		t.Fatalf("an ended context is a normal end: %v", err)
	}
}

func TestPrinterFormats(t *testing.T) {
	r := Diff(Sample{Time: time.Unix(1, 0)}, Sample{Time: time.Unix(2, 0)})
	var b strings.Builder
	Printer(&b, JSONLines)(r)
	var back Report
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("not one JSON line: %v %q", err, b.String())
	}
	b.Reset()
	Printer(&b, Screen)(r)
	if !strings.HasPrefix(b.String(), "\033[H\033[2J") {
		t.Fatalf("screen: %q", b.String())
	}
}

// --json wins; else a terminal is redrawn and a pipe gets blocks.
func TestFormatOf(t *testing.T) {
	for _, c := range []struct {
		json, term bool
		want       string
	}{{true, true, JSONLines}, {true, false, JSONLines}, {false, true, Screen}, {false, false, Text}} {
		if got := FormatOf(c.json, c.term); got != c.want {
			t.Errorf("json %v terminal %v: %q, want %q", c.json, c.term, got, c.want)
		}
	}
}

func TestServeMetricsOnLoopback(t *testing.T) {
	n := 0
	at, stop, err := metricsrv.Serve(":0", NewCollector(counting{&n}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(at.String(), "127.0.0.1:") {
		t.Fatalf("listening on %s, want loopback", at)
	}
	resp, err := http.Get("http://" + at.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "PruneCalled") && !strings.Contains(string(body), "prune") {
		t.Fatalf("metrics:\n%.2000s", body)
	}
}

// The samples within an interval cost at most 2% of it: ten where a
// sample is cheap, fewer where a host's dump takes long, always the
// interval's end.
func TestSamplesPer(t *testing.T) {
	for _, c := range []struct {
		interval, cost time.Duration
		want           int
	}{
		{time.Second, 0, 10},
		{time.Second, time.Millisecond, 10},
		{time.Second, 5 * time.Millisecond, 4},
		{time.Second, 50 * time.Millisecond, 1},
		{100 * time.Millisecond, time.Millisecond, 2},
	} {
		if got := samplesPer(c.interval, c.cost); got != c.want {
			t.Errorf("samplesPer(%v, %v) = %d, want %d", c.interval, c.cost, got, c.want)
		}
	}
}

// A receiver-window-bound sender whose RTT a stall stretched just before
// the interval's end (20.5 ms → 24.6 ms in the last sample only): from
// the last sample alone the path reads full; over the interval's ten
// samples only one showed a queue, and the window holds it.
func TestVerdictOverTheInterval(t *testing.T) {
	t0 := time.Unix(1000, 0)
	sock := func(rtt uint32, segs uint32, busyS float64) sockdiag.Socket {
		return sockdiag.Socket{Local: here, Remote: peer, Cookie: 1, State: "ESTAB", Info: &sockopt.TCPInfo{
			SndMSS: 1448, RcvMSS: 536, RTT: rtt, MinRTT: 20400, SndCwnd: 400, SndSsthresh: 0x7fffffff, SndWnd: 258e3,
			Unacked: 179, BusyTime: uint64(busyS * 1e6), RwndLimited: uint64(0.85 * busyS * 1e6),
			BytesSent: uint64(segs) * 1448, BytesAcked: uint64(segs) * 1448, Delivered: segs, DataSegsOut: segs}}
	}
	prev := Sample{Time: t0, Sockets: []sockdiag.Socket{sock(20500, 0, 0)}}
	ev := Evidence{}
	var cur Sample
	for k := 1; k <= 10; k++ {
		rtt := uint32(20500)
		if k == 10 {
			rtt = 24600
		}
		cur = Sample{Time: t0.Add(time.Duration(k) * 100 * time.Millisecond), Sockets: []sockdiag.Socket{sock(rtt, uint32(742*k), 0.1*float64(k))}}
		ev.Add(cur)
	}
	limit := func(r Report) attrib.Limit {
		if len(r.Sockets) != 1 || r.Sockets[0].Limit == nil {
			t.Fatalf("no verdict: %+v", r.Sockets)
		}
		return r.Sockets[0].Limit.Limit
	}
	if l := limit(Diff(prev, cur)); l != attrib.PathFull {
		t.Fatalf("from the last sample alone: %s, want the stall read as a full path (the case this guards)", l)
	}
	if l := limit(DiffOver(prev, cur, ev)); l != attrib.ReceiverWindow {
		t.Errorf("over the interval's samples: %s, want receiver-window", l)
	}
}
