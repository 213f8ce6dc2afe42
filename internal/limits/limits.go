// Package limits says what limited each direction of a test, from the
// sending side's view (its TCP_INFO chronographs, windows and RTT, as
// wire.ExtStream carries them), through package attrib. The client
// attributes both directions of its tests, the server those of the tests
// it serves; both build Directions and call Attribute.
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
// its streams, or why there is none.
type Direction struct {
	Name    string
	Streams []wire.ExtStream
	// Unavailable, if set, says why the sender's view is missing (the
	// verdict then says so rather than guess).
	Unavailable string
	Context     Context
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
		Retransmits: e.Retransmits, BitsPerSecond: bps, Streams: 1,
		InflightBytes: e.Inflight, NotsentBytes: e.Notsent, MSS: uint64(e.MSS),
	}
}

func (c Context) apply(in *attrib.Input) {
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
	if d.Unavailable != "" || len(d.Streams) == 0 {
		why := d.Unavailable
		if why == "" {
			why = "no stream sent in this direction"
		}
		v.Result = attrib.Unavailable(why)
		return v
	}
	var ins []attrib.Input
	var per []StreamLimit
	for _, e := range d.Streams {
		in := Input(e)
		d.Context.apply(&in)
		ins = append(ins, in)
		per = append(per, StreamLimit{ID: e.ID, Result: attrib.Attribute(in)})
	}
	v.Result = attrib.Attribute(attrib.Merge(ins))
	if len(per) > 1 {
		v.Streams = per
	}
	return v
}
