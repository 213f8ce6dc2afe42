package view

import (
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/sockopt"
	"github.com/tcptune/tcptune/internal/wire"
)

// A sending stream of this side, send-buffer limited: 3.1 MB in flight
// of a 4 MiB send buffer at 50 ms, 5 s measured.
func sending(id int) engine.StreamTotal {
	return engine.StreamTotal{ID: id, Sender: true, HasTCPInfo: true, Bytes: 290e6, Seconds: 5, Retransmits: 0,
		MaxCwnd: 6.2e6, MaxSndWnd: 20e6, MinRTT: 50000, MeanRTT: 51000, SndBuf: 4 << 20,
		Delivered: 280e6, DeliveredBy: "sender", MeanInflight: 3.1e6, BusyUS: 5e6,
		Last: &sockopt.TCPInfo{SndMSS: 1448, PMTU: 1500, MinRTT: 50000}}
}

// A receiving stream of this side, counted by its kernel.
func receiving(id int) engine.StreamTotal {
	return engine.StreamTotal{ID: id, Bytes: 270e6, Seconds: 5, Delivered: 268e6, DeliveredBy: "receiver", Retransmits: -1}
}

func ctx(bool) limits.Context { return limits.Context{PathRate: 965e6, IdleRTTUS: 50000} }

// The client against a stock iperf3 (no peer view), --bidir: forward is
// counted and judged by this sender; reverse by this receiver's kernel
// count alone, with the verdict saying why it has none.
func TestBuildClientStockPeer(t *testing.T) {
	vs := Build(Input{Side: Client, Totals: []engine.StreamTotal{sending(1), receiving(2)}, Context: ctx})
	if len(vs) != 2 {
		t.Fatalf("%d directions", len(vs))
	}
	f, r := vs[0], vs[1]
	if f.Name != limits.ClientToServer || !f.LocalSends || f.CountedBy != Sender || f.Delivered != 280e6 || f.Seconds != 5 {
		t.Errorf("forward %+v", f)
	}
	if f.BitsPerSecond() != 448e6 || f.Window != 20e6 || f.SndBuf != 4<<20 || f.Inflight != 3.1e6 || f.MSS != 1448 || f.Retransmits != 0 || f.MinRTT != 50*time.Millisecond {
		t.Errorf("forward figures %+v", f)
	}
	if f.Limit() != attrib.SendBuffer {
		t.Errorf("forward limit %s: %s", f.Limit(), f.Verdict.Result)
	}
	// Retransmits the receiver reported as duplicates (DSACK) carry over
	// to the view, and to a peer's through its extension.
	s := sending(1)
	s.Retransmits, s.Spurious = 45, 40
	if d := Build(Input{Side: Client, Totals: []engine.StreamTotal{s}, Context: ctx})[0]; d.Retransmits != 45 || d.Spurious != 40 {
		t.Errorf("spurious: %d of %d", d.Spurious, d.Retransmits)
	}
	if e, _ := Ext(s); e.Spurious != 40 {
		t.Errorf("the extension's spurious %d", e.Spurious)
	}
	if r.Name != limits.ServerToClient || r.LocalSends || r.CountedBy != Receiver || r.Delivered != 268e6 || r.Senders != nil || r.Retransmits != -1 {
		t.Errorf("reverse %+v", r)
	}
	if r.Limit() != attrib.Unknown || !strings.Contains(r.Verdict.Result.Verdict, "only a tcptune server reports") {
		t.Errorf("reverse verdict %s", r.Verdict.Result)
	}
}

// The server with a tcptune client's view: the client→server direction
// is counted and judged by the client's sender view.
func TestBuildServerWithPeerView(t *testing.T) {
	e, _ := Ext(sending(1))
	recv := receiving(1)
	recv.Delivered = 279e6
	vs := Build(Input{Side: Server, Totals: []engine.StreamTotal{recv}, Peer: []wire.ExtStream{e}, Context: ctx})
	if len(vs) != 1 {
		t.Fatalf("%d directions", len(vs))
	}
	v := vs[0]
	// Without retransmits the smaller of the two counts: this
	// receiver's 279 MB against the sender's 280.
	if v.Name != limits.ClientToServer || v.LocalSends || v.CountedBy != Receiver || v.Delivered != 279e6 || v.Limit() != attrib.SendBuffer {
		t.Errorf("%+v: %s", v, v.Verdict.Result)
	}
	// A stock iperf3 client: the server's receiver count, no verdict.
	v = Build(Input{Side: Server, Totals: []engine.StreamTotal{receiving(1)}, Context: ctx})[0]
	if v.CountedBy != Receiver || !strings.Contains(v.Verdict.Result.Verdict, "only a tcptune client reports") {
		t.Errorf("%+v: %s", v, v.Verdict.Result)
	}
}

// Without TCP_INFO (other systems) a sender's figure is the
// application's; UDP gets no verdict.
func TestBuildApplicationAndUDP(t *testing.T) {
	s := engine.StreamTotal{ID: 1, Sender: true, Bytes: 100e6, Seconds: 2}
	v := Build(Input{Side: Client, Totals: []engine.StreamTotal{s}, Context: ctx})[0]
	if v.CountedBy != Application || v.BitsPerSecond() != 400e6 || v.Limit() != attrib.Unknown {
		t.Errorf("%+v", v)
	}
	// UDP: the loss as the receiver counted it (the peer's results where
	// this side sent), and the receiving host's socket-buffer drops.
	snd := engine.StreamTotal{ID: 1, Sender: true, UDP: true, Bytes: 100e6, Seconds: 2}
	v = Build(Input{Side: Client, Totals: []engine.StreamTotal{snd}, UDP: true, PeerStreams: []wire.StreamResult{{ID: 1, Packets: 10000, Errors: 1500}},
		LocalRcvbufErrors: -1, PeerRcvbufErrors: 1490, Context: ctx})[0]
	if v.Limit() != attrib.ReceiveBuffer {
		t.Errorf("UDP, peer's socket full: %s", v.Verdict.Result)
	}
	rcv := engine.StreamTotal{ID: 1, UDP: true, Bytes: 100e6, Seconds: 2, Packets: 10000, Lost: 20}
	v = Build(Input{Side: Client, Totals: []engine.StreamTotal{rcv}, UDP: true, LocalRcvbufErrors: 0, PeerRcvbufErrors: -1, Context: ctx})[0]
	if v.Limit() != attrib.Network {
		t.Errorf("UDP -R, no socket drops here: %s", v.Verdict.Result)
	}
	if _, ok := Ext(receiving(1)); ok {
		t.Error("a receiving stream has no sender's view")
	}
}

// Where both ends counted, a direction without retransmits takes the
// smaller: the sender's tcpi_delivered runs ahead when ACKs were held
// up at the period's start. With retransmits the sender's stays (the
// receiver's in-order count falls short while a hole is open).
func TestBuildTakesTheSmallerCount(t *testing.T) {
	peer := func(b int64) []wire.ExtReceived { return []wire.ExtReceived{{ID: 1, Seconds: 5, Bytes: b}} }
	for _, tc := range []struct {
		name  string
		recv  []wire.ExtReceived
		retr  int64
		want  int64
		count Counter
	}{
		{"the receiver's is smaller", peer(279e6), 0, 279e6, Receiver},
		{"the sender's is smaller", peer(281e6), 0, 280e6, Sender},
		// Not the same period (the server's an RTT longer, idle at its
		// end: 82.6 against 94.8 Mbit/s at 600 ms): the sender's stays.
		{"the receiver's is 12% smaller", peer(246e6), 0, 280e6, Sender},
		{"with retransmits", peer(270e6), 12, 280e6, Sender},
		{"a stock iperf3 server", nil, 0, 280e6, Sender},
	} {
		s := sending(1)
		s.Retransmits = tc.retr
		f := Build(Input{Side: Client, Totals: []engine.StreamTotal{s}, PeerReceived: tc.recv, Context: ctx})[0]
		if f.Delivered != tc.want || f.CountedBy != tc.count {
			t.Errorf("%s: %d by %s, want %d by %s", tc.name, f.Delivered, f.CountedBy, tc.want, tc.count)
		}
	}
	// Reverse at the client: the peer's sender view against this side's
	// own receiver count.
	e, _ := Ext(sending(2))
	recv := receiving(2)
	recv.Delivered = 278e6
	r := Build(Input{Side: Client, Totals: []engine.StreamTotal{recv}, Peer: []wire.ExtStream{e}, Context: ctx})[0]
	if r.Delivered != 278e6 || r.CountedBy != Receiver || r.Senders == nil {
		t.Errorf("reverse: %d by %s", r.Delivered, r.CountedBy)
	}
	// The wire: Received lists only kernel-counted receiving streams.
	got := Received([]engine.StreamTotal{sending(1), receiving(2)})
	if len(got) != 1 || got[0] != (wire.ExtReceived{ID: 2, Seconds: 5, Bytes: 268e6}) {
		t.Errorf("Received: %+v", got)
	}
}

// A direction judged before the path's rate was known is judged again
// at it: a flow at the path's goodput that filled its send buffer is
// the path's, a flow short of it stays the buffer's; UDP keeps its
// verdict (no inputs).
func TestRejudgeAtThePathRate(t *testing.T) {
	unknown := func(bool) limits.Context { return limits.Context{IdleRTTUS: 50000} }
	f := Build(Input{Side: Client, Totals: []engine.StreamTotal{sending(1)}, Context: unknown})[0]
	if f.Limit() != attrib.SendBuffer {
		t.Fatalf("without the path's rate: %s", f.Verdict.Result)
	}
	for _, c := range []struct {
		path float64
		want attrib.Limit
	}{{448e6, attrib.PathFull}, {965e6, attrib.SendBuffer}} {
		if v := f.Rejudge(c.path); v.Limit() != c.want || v.Judged.Context.PathRate != c.path {
			t.Errorf("at %.0f Mbit/s: %s (judged at %g), want %s", c.path/1e6, v.Verdict.Result, v.Judged.Context.PathRate, c.want)
		}
	}
	if f.Judged.Context.PathRate != 0 {
		t.Errorf("rejudging changed the inputs: %+v", f.Judged.Context)
	}
	u := Direction{Verdict: limits.Verdict{Direction: "x", Result: attrib.Unavailable("udp")}}
	if v := u.Rejudge(1e9); v.Limit() != u.Limit() {
		t.Errorf("without inputs: %s", v.Verdict.Result)
	}
}
