package client

import (
	"testing"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/wire"
)

// Every field bench's "tcptune" object can carry is in the schema users
// read (docs/json/tcptune.schema.json), with its type: a field added to
// the Go types and not to the schema fails here.
func TestExtensionMatchesSchema(t *testing.T) {
	drops := int64(3)
	res := attrib.Result{Limit: attrib.Unknown, Share: 0.5, Shares: attrib.Shares{ReceiverWindow: 0.1, SendBuffer: 0.2, Network: 0.3, Idle: 0.4},
		CapBPS: 1e9, Capped: string(attrib.SendBuffer), Recovering: true, From: attrib.FromReceiver,
		RuledOut: []attrib.Limit{attrib.ReceiverWindow}, Verdict: "not the receiver's window", Advice: "run tcptune at the sending end"}
	stream := wire.ExtStream{ID: 1, Seconds: 2, Bytes: 3, BusyUS: 4, RwndUS: 5, SndbufUS: 6, SndWnd: 7, SndBuf: 8, Cwnd: 9, RTT: 10, MinRTT: 11,
		Retransmits: -1, MSS: 1448, PMTU: 1500, Delivered: 12, Inflight: 13, Notsent: 14}
	ext := Extension{
		Version: "test", Buffers: Buffers{Requested: 0, SndBufActual: 16384, RcvBufActual: 131072},
		Peer: &wire.Ext{Version: "test", Cores: 2, SndBuf: 1, RcvBuf: 2, Streams: []wire.ExtStream{stream}, IntervalsLeftOut: 1, RcvbufErrors: &drops,
			Received: []wire.ExtReceived{{ID: 1, Seconds: 2, Bytes: 3, RcvWnd: 4, RcvBuf: 5, RcvRTT: 6, MinRTT: 7, MSS: 1448}}},
		Streams: []wire.ExtStream{stream},
		Limits:  []Verdict{{Direction: limits.ClientToServer, Result: res, Streams: []limits.StreamLimit{{ID: 1, Result: res}}}},
		Repeat:  &Repeat{Runs: []RepeatRun{{Run: 1, BitsPerSecond: 1e9, Seconds: 2}}, Summary: stats.Summarize([]float64{1, 2, 3}, 0.95)},
	}
	testutil.CheckSchema(t, ext, "")
	for _, l := range []attrib.Limit{attrib.ReceiverWindow, attrib.SendBuffer, attrib.Network, attrib.CPU, attrib.Application, attrib.PathFull, attrib.ReceiveBuffer, attrib.Unknown} {
		testutil.CheckSchema(t, l, "/$defs/limit")
	}
}
