package server

import (
	"encoding/json"
	"runtime"
	"time"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/report"
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

// record builds the test's record from this side's totals and the
// client's results. The sender's view of client→server streams comes
// from a tcptune client's extension; with another client that
// direction's verdict says it is unavailable.
func (t *session) record(m report.Meta, totals []engine.StreamTotal, peer *wire.Results, cpu, peerCPU float64) TestRecord {
	rec := TestRecord{UDP: t.params.UDP, Completed: true}
	var peerExt wire.Ext
	if len(peer.Tcptune) > 0 {
		json.Unmarshal(peer.Tcptune, &peerExt)
	}
	peerViews := map[int]wire.ExtStream{}
	for _, e := range peerExt.Streams {
		peerViews[e.ID] = e
	}
	peerCores := peerExt.Cores
	peerStreams := map[int]wire.StreamResult{}
	for _, s := range peer.Streams {
		peerStreams[s.ID] = s
	}
	local, remote := "", ""
	if len(m.Connected) > 0 {
		local, remote = m.Connected[0].LocalHost, m.Connected[0].RemoteHost
	}
	for _, serverSends := range []bool{false, true} {
		d := DirectionRecord{Name: limits.ClientToServer, Retransmits: -1}
		dir := limits.Direction{Name: d.Name, Context: limits.Context{
			TargetRate: float64(t.params.Bandwidth), Window: t.params.Window,
			Sender: remote, Receiver: local, SenderCPU: peerCPU, SenderCores: peerCores, ReceiverCPU: cpu,
		}}
		if serverSends {
			d.Name, dir.Name = limits.ServerToClient, limits.ServerToClient
			dir.Context.Sender, dir.Context.Receiver, dir.Context.SenderIsLocal = local, remote, true
			dir.Context.SenderCPU, dir.Context.SenderCores, dir.Context.ReceiverCPU = cpu, runtime.NumCPU(), peerCPU
		}
		present := false
		var rttSum, rttN int64
		for _, tt := range totals {
			if tt.Sender != serverSends {
				continue
			}
			present = true
			var view wire.ExtStream
			var ok bool
			if serverSends {
				if ps, seen := peerStreams[tt.ID]; seen && tt.Seconds > 0 {
					d.BitsPerSecond += float64(ps.Bytes) * 8 / tt.Seconds
				}
				view, ok = tt.Ext()
			} else {
				if tt.Seconds > 0 {
					d.BitsPerSecond += float64(tt.Bytes) * 8 / tt.Seconds
				}
				view, ok = peerViews[tt.ID]
			}
			switch {
			case ok:
				dir.Streams = append(dir.Streams, view)
				d.Retransmits = max(d.Retransmits, 0) + view.Retransmits
				if view.RTT > 0 {
					rttSum += int64(view.RTT)
					rttN++
				}
			case serverSends:
				dir.Unavailable = "TCP_INFO is not available on " + runtime.GOOS
			default:
				dir.Unavailable = "the client sends in this direction and only a tcptune client reports its TCP_INFO"
			}
		}
		if !present {
			continue
		}
		if rttN > 0 {
			d.RTT = time.Duration(rttSum/rttN) * time.Microsecond
		}
		if !t.params.UDP {
			d.Verdict = limits.Attribute(dir)
		}
		rec.Directions = append(rec.Directions, d)
	}
	return rec
}
