// Package limits says what limited each direction of a test, through
// package attrib: from the sending side's view (its TCP_INFO
// chronographs, windows and RTT, as wire.ExtStream carries them) where
// it is at hand, else from the receiving side's (the window it
// advertised, its buffer and RTT, as wire.ExtReceived carries them).
// The client attributes both directions of its tests, the server those
// of the tests it serves, tune its trials; all build Directions and
// call Attribute.
package limits

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/window"
	"github.com/tcptune/tcptune/internal/wire"
)

// Verdict is the limit attribution of one direction of a test.
type Verdict struct {
	Direction string        `json:"direction"` // "client→server" or "server→client"
	Result    attrib.Result `json:"result"`
	Streams   []StreamLimit `json:"streams,omitempty"`
}

// StreamLimit is one stream's attribution.
type StreamLimit struct {
	ID     int           `json:"id"`
	Result attrib.Result `json:"result"`
}

// Line is the verdict as printed under the report.
func (v Verdict) Line() string {
	return fmt.Sprintf("Limit (%s): %s", v.Direction, v.Result)
}

// The directions' names.
const (
	ClientToServer = "client→server"
	ServerToClient = "server→client"
)

// Direction is one direction of a test: the sender's view of each of
// its streams, or why there is none, and the receiver's.
type Direction struct {
	Name    string
	Streams []wire.ExtStream
	// Unavailable, if set, says why the sender's view is missing; the
	// receiver's view (Received) then decides what it can, and the
	// verdict says so rather than guess.
	Unavailable string
	// Received is the receiver's view of each stream (this host's
	// receiving sockets), used where the sender's is missing.
	Received []wire.ExtReceived
	Context  Context
}

// Context is what the sender's TCP_INFO does not know.
type Context struct {
	TargetRate       float64 // -b per stream, bit/s
	Window           int     // -w, bytes
	PathRate         float64 // the path's goodput, bit/s (0 = unknown)
	PathMSS          int     // the MSS PathRate is counted at (0 = the stream's own)
	IdleRTTUS        uint64  // its unloaded RTT (0 = unknown)
	Sender, Receiver string  // addresses, for the advice
	SenderIsLocal    bool    // the sender is the host that attributes
	SenderCPU        float64 // % of one core
	SenderCores      int
	ReceiverCPU      float64 // % of one core (0 = unknown)
	// RecvBufMax is the most the receiving socket's buffer may grow to
	// when autotuned (the receiving host's tcp_rmem max; 0 = unknown).
	RecvBufMax int64
	// Concurrent: the other direction ran at the same time (--bidir).
	Concurrent bool
}

// Input turns one stream's sender-side view into attribution input. The
// rate is what the kernel delivered (no jump when a hole is filled), or the
// application's writes where the sender did not count it.
func Input(e wire.ExtStream) attrib.Input {
	bps, n := 0.0, e.Bytes
	if e.Delivered > 0 {
		n = e.Delivered
	}
	if e.Seconds > 0 {
		bps = float64(n) * 8 / e.Seconds
	}
	return attrib.Input{
		WallUS: uint64(e.Seconds * 1e6), BusyUS: e.BusyUS, RwndLimitedUS: e.RwndUS, SndbufLimitUS: e.SndbufUS,
		SndWnd: e.SndWnd, SndBuf: e.SndBuf, CwndBytes: e.Cwnd, RTTUS: uint64(e.RTT), MinRTTUS: uint64(e.MinRTT),
		Retransmits: e.Retransmits, Spurious: e.Spurious, BitsPerSecond: bps, Streams: 1,
		InflightBytes: e.Inflight, NotsentBytes: e.Notsent, MSS: uint64(e.MSS),
		RTTSamples: e.RTTSamples, QueuedSamples: e.QueuedSamples,
	}
}

// receiverViews reports whether every stream's receiver saw its window
// (or its buffer) and the period.
func receiverViews(rs []wire.ExtReceived) bool {
	for _, r := range rs {
		if (r.RcvWnd == 0 && r.RcvBuf == 0) || r.Seconds <= 0 {
			return false
		}
	}
	return len(rs) > 0
}

// ReceiverInput turns one stream's receiver-side view into attribution
// input.
func ReceiverInput(r wire.ExtReceived) attrib.Input {
	bps := 0.0
	if r.Seconds > 0 {
		bps = float64(r.Bytes) * 8 / r.Seconds
	}
	return attrib.Input{
		From: attrib.FromReceiver, WallUS: uint64(r.Seconds * 1e6), BitsPerSecond: bps, Streams: 1,
		MinRTTUS: uint64(r.MinRTT), MSS: uint64(r.MSS), Retransmits: -1,
		ReceiverView: &attrib.Receiver{Window: r.RcvWnd, RcvBuf: r.RcvBuf, RTTUS: uint64(r.RcvRTT)},
	}
}

func (c Context) apply(in *attrib.Input) {
	in.Concurrent = c.Concurrent
	if rv := in.ReceiverView; rv != nil {
		rv.BufMax = uint64(max(c.RecvBufMax, 0))
		if c.Window > 0 {
			rv.BufMax = rv.RcvBuf
		}
	}
	in.TargetRate, in.Window = c.TargetRate, c.Window
	in.PathRate, in.IdleRTTUS = c.PathRate, c.IdleRTTUS
	if c.PathMSS > 0 && in.MSS > 0 {
		// The same packets carry more or less payload at the stream's
		// MSS (timestamps off, another MTU).
		in.PathRate = window.Payload(c.PathRate, c.PathMSS, int(in.MSS), c.PathMSS)
	}
	in.Sender, in.Receiver, in.SenderIsLocal = c.Sender, c.Receiver, c.SenderIsLocal
	in.SenderCPU, in.SenderCores, in.ReceiverCPU = c.SenderCPU, c.SenderCores, c.ReceiverCPU
}

// Attribute is the direction's verdict: the streams merged, and each
// stream's own when there are several.
func Attribute(d Direction) Verdict {
	v := Verdict{Direction: d.Name}
	var ins []attrib.Input
	var ids []int
	switch {
	case d.Unavailable == "" && len(d.Streams) > 0:
		for _, e := range d.Streams {
			ins, ids = append(ins, Input(e)), append(ids, e.ID)
		}
	case receiverViews(d.Received):
		for _, r := range d.Received {
			ins, ids = append(ins, ReceiverInput(r)), append(ids, r.ID)
		}
	default:
		why := d.Unavailable
		if why == "" {
			why = "no stream sent in this direction"
		}
		v.Result = attrib.Unavailable(why)
		return v
	}
	var per []StreamLimit
	for i := range ins {
		d.Context.apply(&ins[i])
		per = append(per, StreamLimit{ID: ids[i], Result: attrib.Judge(ins[i])})
	}
	v.Result = attrib.Judge(attrib.Merge(ins))
	if len(per) > 1 {
		v.Streams = per
	}
	return v
}
