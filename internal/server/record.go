package server

import (
	"encoding/json"
	"runtime"
	"time"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/result"
	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/view"
	"github.com/tcptune/tcptune/internal/wire"
)

// TestRecord is what one finished test left, for Options.OnTestEnd
// (serve --prometheus): per direction, the rate the receiver counted,
// the sender's retransmits and RTT, and what limited it.
type TestRecord struct {
	UDP        bool
	Completed  bool // results were exchanged; false: the test failed or was cut short
	Directions []DirectionRecord
}

// DirectionRecord is one direction of a finished test.
type DirectionRecord struct {
	Name          string  // limits.ClientToServer or limits.ServerToClient
	BitsPerSecond float64 // counted by the receiver
	Retransmits   int64   // by the sender; -1 unknown
	RTT           time.Duration
	Verdict       limits.Verdict
}

// verdicts are the record's verdicts, client→server first.
func (r TestRecord) verdicts() []limits.Verdict {
	var out []limits.Verdict
	for _, d := range r.Directions {
		out = append(out, d.Verdict)
	}
	return out
}

// documentExt is the "tcptune" object of serve's own report (its text
// and -J output): what it sends the client, and its verdict on each
// direction of the test.
type documentExt struct {
	wire.Ext
	Limits []limits.Verdict `json:"limits,omitempty"`
}

// record builds the test's record from this side's totals and the
// client's results. The sender's view of client→server streams comes
// from a tcptune client's extension; with another client that
// direction's verdict says it is unavailable.
func (t *session) record(m result.Meta, totals []engine.StreamTotal, peer *wire.Results, cpu, peerCPU float64) TestRecord {
	rec := TestRecord{UDP: t.params.UDP, Completed: true}
	var peerExt wire.Ext
	if len(peer.Tcptune) > 0 {
		json.Unmarshal(peer.Tcptune, &peerExt)
	}
	peerStreams := map[int]wire.StreamResult{}
	for _, s := range peer.Streams {
		peerStreams[s.ID] = s
	}
	local, remote := "", ""
	if len(m.Connected) > 0 {
		local, remote = m.Connected[0].LocalHost, m.Connected[0].RemoteHost
	}
	peerDrops := int64(-1)
	if peerExt.RcvbufErrors != nil {
		peerDrops = *peerExt.RcvbufErrors
	}
	localDrops := int64(-1)
	if t.test != nil {
		localDrops = t.test.RcvbufErrors()
	}
	views := view.Build(view.Input{Side: view.Server, Totals: totals, Peer: peerExt.Streams, PeerReceived: peerExt.Received, UDP: t.params.UDP,
		PeerStreams: peer.Streams, LocalRcvbufErrors: localDrops, PeerRcvbufErrors: peerDrops,
		Context: func(serverSends bool) limits.Context {
			c := limits.Context{
				TargetRate: float64(t.params.Bandwidth), Window: t.params.Window,
				Sender: remote, Receiver: local, SenderCPU: peerCPU, SenderCores: peerExt.Cores, ReceiverCPU: cpu,
				RecvBufMax: sysctl.Host().Int("net.ipv4.tcp_rmem", 2), Concurrent: t.params.Bidirectional,
			}
			if serverSends {
				c.RecvBufMax = 0
				c.Sender, c.Receiver, c.SenderIsLocal = local, remote, true
				c.SenderCPU, c.SenderCores, c.ReceiverCPU = cpu, runtime.NumCPU(), peerCPU
			}
			return c
		}})
	for _, v := range views {
		d := DirectionRecord{Name: v.Name, Retransmits: v.Retransmits, RTT: v.RTT, Verdict: v.Verdict}
		// The rate the receiver counted: the client's results for what
		// this side sent, this side's own bytes for what it received.
		for _, tt := range totals {
			if tt.Sender != v.LocalSends || tt.Seconds <= 0 {
				continue
			}
			n := tt.Bytes
			if v.LocalSends {
				n = peerStreams[tt.ID].Bytes
			}
			d.BitsPerSecond += float64(n) * 8 / tt.Seconds
		}
		rec.Directions = append(rec.Directions, d)
	}
	return rec
}
