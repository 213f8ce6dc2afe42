package attrib

import (
	"slices"
	"testing"
)

// The receiver's view: the lab's 500 Mbit/s × 40 ms path with a stock
// iperf3 sending to this host (bench -R), figures as measured there.
func TestReceiverView(t *testing.T) {
	rcv := func(win, buf, max, rtt uint64) *Receiver {
		return &Receiver{Window: win, RcvBuf: buf, BufMax: max, RTTUS: rtt}
	}
	for _, c := range []struct {
		name     string
		in       Input
		want     Limit
		ruledOut []Limit
	}{
		{"tcp_rmem max 0.2 × BDP: its window holds", Input{BitsPerSecond: 64.8e6, ReceiverView: rcv(345e3, 524288, 524288, 40300)}, ReceiverWindow, nil},
		{"window from the buffer (before 6.2)", Input{BitsPerSecond: 64.8e6, ReceiverView: rcv(0, 524288, 524288, 40300)}, ReceiverWindow, nil},
		{"the sender's send buffer (0.2 × BDP)", Input{BitsPerSecond: 80.1e6, ReceiverView: rcv(2.9e6, 4.4e6, 33554432, 41000)}, Unknown, []Limit{ReceiverWindow}},
		{"a loaded RTT needs more window", Input{BitsPerSecond: 451e6, ReceiverView: rcv(4.4e6, 6.7e6, 6.7e6, 64000)}, ReceiverWindow, nil},
		{"the same rate and window at the idle RTT", Input{BitsPerSecond: 451e6, ReceiverView: rcv(4.4e6, 6.7e6, 6.7e6, 0)}, Unknown, []Limit{ReceiverWindow}},
		{"the path's goodput reached", Input{BitsPerSecond: 480e6, PathRate: 484e6, ReceiverView: rcv(22e6, 33e6, 33e6, 64000)}, PathFull, nil},
		// tune's choice against a stock 3.22 (800 Mbit/s × 60 ms): the
		// window at rate × the loaded RTT, the excess over the BDP queued.
		{"the goodput reached with the window at rate × RTT", Input{BitsPerSecond: 772e6, PathRate: 772e6, ReceiverView: rcv(7.0e6, 10.6e6, 10.6e6, 72000)}, PathFull, nil},
		{"-b delivered", Input{BitsPerSecond: 100e6, TargetRate: 100e6, ReceiverView: rcv(22e6, 33e6, 33e6, 40000)}, Application, nil},
		{"-b not delivered", Input{BitsPerSecond: 60e6, TargetRate: 100e6, ReceiverView: rcv(22e6, 33e6, 33e6, 40000)}, Unknown, []Limit{ReceiverWindow, Application}},
	} {
		in := c.in
		in.From, in.WallUS, in.Streams, in.MinRTTUS, in.Retransmits = FromReceiver, 4e6, 1, 40000, -1
		r := Judge(in)
		if r.Limit != c.want || r.From != FromReceiver || !slices.Equal(r.RuledOut, c.ruledOut) {
			t.Errorf("%s: %s from %s, ruled out %v; want %s, ruled out %v\n%s", c.name, r.Limit, r.From, r.RuledOut, c.want, c.ruledOut, r)
		}
	}
	if r := Judge(Input{From: FromReceiver, WallUS: 1e6, BitsPerSecond: 1e6}); r.Limit != Unknown {
		t.Errorf("no receiver's figures: %s", r)
	}
}

// A merged receiver's view is per stream: the mean window against the
// per-stream rate.
func TestMergeReceivers(t *testing.T) {
	one := Input{From: FromReceiver, WallUS: 4e6, BitsPerSecond: 32e6, Streams: 1, MinRTTUS: 40000,
		ReceiverView: &Receiver{Window: 170e3, RcvBuf: 262144, RTTUS: 40000}}
	m := Merge([]Input{one, one})
	if m.ReceiverView == nil || m.ReceiverView.Window != 170e3 || m.BitsPerSecond != 64e6 || m.Streams != 2 {
		t.Fatalf("%+v %+v", m, m.ReceiverView)
	}
	if r := Judge(m); r.Limit != ReceiverWindow {
		t.Fatalf("%s", r)
	}
}

// With --bidir the other direction's queue delays this one's ACKs: the
// RTT stretched (80 → 142 ms) while this host's 1 MB send buffer held
// forward to 60 Mbit/s of a 500 Mbit/s path. That is the send buffer,
// not "the path is full".
func TestBidirQueueIsNotThisDirections(t *testing.T) {
	in := Input{WallUS: 5e6, BusyUS: 5e6, SndbufLimitUS: 1e6, SndWnd: 12e6, SndBuf: 1 << 20, CwndBytes: 3e6,
		RTTUS: 142000, MinRTTUS: 80000, Retransmits: 0, BitsPerSecond: 60e6, Streams: 1, SenderIsLocal: true,
		InflightBytes: 1e6, MSS: 1448}
	if r := Attribute(in); r.Limit != PathFull {
		t.Fatalf("alone, a stretched RTT with a surplus in flight reads as a queue this flow built: %s", r)
	}
	in.Concurrent = true
	if r := Attribute(in); r.Limit != SendBuffer {
		t.Fatalf("--bidir: %s", r)
	}
}

func TestFull(t *testing.T) {
	for _, c := range []struct {
		rate, path float64
		want       bool
	}{{970, 1000, true}, {969, 1000, false}, {1000, 0, false}, {1200, 1000, true}} {
		if got := Full(c.rate, c.path); got != c.want {
			t.Errorf("Full(%v, %v) = %v", c.rate, c.path, got)
		}
	}
}
