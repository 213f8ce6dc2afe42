// Package view is one direction of a test as tcptune judges it: the
// payload delivered, over how long and whose kernel counted it, and,
// when the sender's view is at hand, its window, send buffer, RTT, bytes
// in flight, retransmits and MSS, with the typed limit. Build makes the
// directions once, from this side's engine totals and the peer's
// "tcptune" extension; bench's attribution, serve's metrics and tune's
// trials all read them. The package is also the one place that turns
// engine totals into the wire's shapes (ext.go), so the engine knows
// nothing of the wire.
package view

import (
	"runtime"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/wire"
)

// Counter says whose count a direction's payload is.
type Counter string

const (
	// Sender: the sender's tcpi_delivered × its average segment payload;
	// it does not jump when a hole is filled, and runs ahead of the path
	// only by the ACKs held up at the period's start (0.02–0.16% in short
	// trials at 2.5 Gbit/s in the lab).
	Sender Counter = "sender"
	// Receiver: the receiver's tcpi_bytes_received, where the sender's
	// count is out of reach (a stock iperf3 sending), or where both ends
	// counted and it was the smaller: it jumps when a retransmission
	// fills a hole, and never runs ahead of what arrived.
	Receiver Counter = "receiver"
	// Application: the bytes the application moved, where TCP_INFO is
	// missing.
	Application Counter = "application"
)

// Side is the end of the test that builds the views.
type Side int

const (
	Client Side = iota
	Server
)

// Direction is one direction of a test.
type Direction struct {
	Name       string // limits.ClientToServer or limits.ServerToClient
	LocalSends bool   // this side sent in it
	Streams    int
	// Delivered payload bytes over Seconds (the measured period), as
	// CountedBy counted them.
	Delivered int64
	Seconds   float64
	CountedBy Counter
	// Senders is the sender's view of each stream; nil when it is out of
	// reach (a stock iperf3 peer sending, or no TCP_INFO). The figures
	// below come from it: the largest window the receiver advertised and
	// send buffer, the mean RTT and in flight, the smallest RTT, the
	// retransmits (-1 unknown) and how many of them the receiver reported
	// as duplicates (Spurious: not loss), and the MSS (without it, the
	// MSS this side received at).
	Senders                  []wire.ExtStream
	Window, SndBuf, Inflight int64
	RTT, MinRTT              time.Duration
	Retransmits, Spurious    int64
	MSS                      int
	// Verdict is what limited it (unavailable, and why, without the
	// sender's view; none for UDP).
	Verdict limits.Verdict
	// Judged is what the verdict was judged from (TCP), so that it can be
	// judged again once the path's rate is known (Rejudge).
	Judged *limits.Direction `json:"-"`
}

// Rejudge is the direction judged again with the path's goodput at
// pathRate (bit/s, counted at the MSS the first judgement had): a test
// run before the path's rate was estimated could not tell a full path
// from the buffer that held it at that rate. Without the inputs (UDP),
// the direction as it was.
func (d Direction) Rejudge(pathRate float64) Direction {
	if d.Judged == nil {
		return d
	}
	ld := *d.Judged
	ld.Context.PathRate = pathRate
	d.Verdict, d.Judged = limits.Attribute(ld), &ld
	return d
}

// BitsPerSecond is the direction's rate, as CountedBy counted it.
func (d Direction) BitsPerSecond() float64 {
	if d.Seconds <= 0 {
		return 0
	}
	return float64(d.Delivered) * 8 / d.Seconds
}

// Limit is the verdict's limit.
func (d Direction) Limit() attrib.Limit { return d.Verdict.Result.Limit }

// Input is what Build takes.
type Input struct {
	Side   Side
	Totals []engine.StreamTotal // this side's streams
	// Peer is the peer's sender view of the streams it sent (its
	// extension's streams); nil from a stock iperf3. PeerReceived is its
	// receiver count of the streams this side sent (a tcptune peer).
	Peer         []wire.ExtStream
	PeerReceived []wire.ExtReceived
	// Context gives the attribution what TCP_INFO does not know, per
	// direction.
	Context func(localSends bool) limits.Context
	UDP     bool
	// For UDP: the peer's results (its streams' datagrams and losses,
	// where it received), and each host's socket-buffer drops over the
	// test (Udp RcvbufErrors; -1 unknown).
	PeerStreams                         []wire.StreamResult
	LocalRcvbufErrors, PeerRcvbufErrors int64
}

// Build makes the test's directions, client→server first.
func Build(in Input) []Direction {
	peer := map[int]wire.ExtStream{}
	for _, e := range in.Peer {
		peer[e.ID] = e
	}
	var out []Direction
	for _, c2s := range []bool{true, false} {
		localSends := c2s == (in.Side == Client)
		d := Direction{Name: limits.ClientToServer, LocalSends: localSends, Retransmits: -1}
		if !c2s {
			d.Name = limits.ServerToClient
		}
		var unavailable string
		var local []engine.StreamTotal
		for _, t := range in.Totals {
			if t.Sender != localSends {
				continue
			}
			local = append(local, t)
			e, ok := peer[t.ID]
			if localSends {
				e, ok = Ext(t)
			}
			switch {
			case ok:
				d.Senders = append(d.Senders, e)
			case localSends:
				unavailable = "TCP_INFO is not available on " + runtime.GOOS
			case in.Side == Client:
				unavailable = "the server sends in this direction and only a tcptune server reports its TCP_INFO; the attribution needs the sender's view (run tcptune serve there)"
			default:
				unavailable = "the client sends in this direction and only a tcptune client reports its TCP_INFO"
			}
		}
		if len(local) == 0 {
			continue
		}
		if unavailable != "" {
			d.Senders = nil
		}
		d.Streams = len(local)
		d.count(local)
		d.senderFigures()
		if d.MSS == 0 && !localSends {
			// No sender's view: the MSS this receiver saw.
			for _, t := range local {
				if t.Last != nil {
					d.MSS = max(d.MSS, int(t.Last.RcvMSS))
				}
			}
		}
		if !in.UDP && d.CountedBy == Sender && d.Retransmits == 0 {
			d.smaller(receiverCounts(in, local, localSends))
		}
		var ctx limits.Context
		if in.Context != nil {
			ctx = in.Context(localSends)
		}
		if in.UDP {
			d.Verdict = limits.Verdict{Direction: d.Name, Result: attrib.AttributeUDP(udpInput(in, local, localSends, ctx))}
		} else {
			ld := limits.Direction{Name: d.Name, Streams: d.Senders, Unavailable: unavailable, Context: ctx}
			if !localSends {
				ld.Received = Received(local)
			}
			d.Verdict, d.Judged = limits.Attribute(ld), &ld
		}
		out = append(out, d)
	}
	return out
}

// count sets the payload: the sender's delivered count where every
// stream has it, else this receiver's kernel count, else the
// application's bytes.
func (d *Direction) count(local []engine.StreamTotal) {
	if len(d.Senders) == len(local) {
		var n int64
		var secs float64
		for _, e := range d.Senders {
			n += e.Delivered
			secs = max(secs, e.Seconds)
		}
		if n > 0 && secs > 0 {
			d.Delivered, d.Seconds, d.CountedBy = n, secs, Sender
			return
		}
	}
	var kernel, app int64
	var secs float64
	byKernel := true
	for _, t := range local {
		app += t.Bytes
		secs = max(secs, t.Seconds)
		if t.DeliveredBy == "" {
			byKernel = false
		}
		kernel += t.Delivered
	}
	switch {
	case byKernel && kernel > 0:
		d.Delivered, d.CountedBy = kernel, Counter(local[0].DeliveredBy)
	default:
		d.Delivered, d.CountedBy = app, Application
	}
	d.Seconds = secs
}

// receiverCounts are the receiver's counts of a direction's streams:
// the peer's where this side sends, this side's own where it receives;
// nil unless every stream has one.
func receiverCounts(in Input, local []engine.StreamTotal, localSends bool) []wire.ExtReceived {
	if !localSends {
		return Received(local)
	}
	var out []wire.ExtReceived
	for _, t := range local {
		for _, r := range in.PeerReceived {
			if r.ID == t.ID {
				out = append(out, r)
			}
		}
	}
	return out
}

// countsAgree is how far below the sender's rate the receiver's may
// read and still count the same bytes: the ACKs' catch-up it corrects is
// a fraction of a percent.
const countsAgree = 0.01

// smaller takes the receiver's count, for a direction without
// retransmits, where every stream has one and it is the smaller rate by
// less than countsAgree: what crossed the path is no more than either
// end counted. The sender's tcpi_delivered runs ahead when ACKs were
// held up at the period's start (0.16% in a 1.25 s trial at 2.5 Gbit/s
// in the lab, whose ACK path ran 1–20 ms late). Further apart, the two
// did not count the same period: the server's runs about an RTT longer
// than the client's, and at 600 ms its end idles (82.6 Mbit/s by the
// receiver's count where the sender's read 94.8, the same flow), so
// the sender's stays. With loss the receiver's in-order count jumps
// when a hole is filled and falls short while one is open (up to an RTT
// of data at the period's end), so the sender's stays too.
func (d *Direction) smaller(recv []wire.ExtReceived) {
	if len(recv) == 0 || len(recv) != d.Streams {
		return
	}
	var n int64
	var secs float64
	for _, r := range recv {
		n += r.Bytes
		secs = max(secs, r.Seconds)
	}
	if n <= 0 || secs <= 0 {
		return
	}
	if got, sent := float64(n)*8/secs, d.BitsPerSecond(); got < sent && got >= (1-countsAgree)*sent {
		d.Delivered, d.Seconds, d.CountedBy = n, secs, Receiver
	}
}

// senderFigures reads the window, buffer, RTT, in flight, retransmits
// and MSS from the sender's view.
func (d *Direction) senderFigures() {
	if len(d.Senders) == 0 {
		return
	}
	var rtt, fl int64
	d.Retransmits, d.Spurious = 0, 0
	for _, e := range d.Senders {
		d.Window = max(d.Window, int64(e.SndWnd))
		d.SndBuf = max(d.SndBuf, int64(e.SndBuf))
		rtt += int64(e.RTT)
		fl += int64(e.Inflight)
		if m := time.Duration(e.MinRTT) * time.Microsecond; m > 0 && (d.MinRTT == 0 || m < d.MinRTT) {
			d.MinRTT = m
		}
		if e.Retransmits > 0 {
			d.Retransmits += e.Retransmits
			d.Spurious += e.Spurious
		}
		d.MSS = int(e.MSS)
	}
	n := int64(len(d.Senders))
	d.RTT = time.Duration(rtt/n) * time.Microsecond
	d.Inflight = fl / n
}

// udpInput is a UDP direction's loss as its receiver counted it: this
// side's streams where it received, the peer's results where it sent.
func udpInput(in Input, local []engine.StreamTotal, localSends bool, ctx limits.Context) attrib.UDPInput {
	u := attrib.UDPInput{RcvbufErrors: in.LocalRcvbufErrors, Window: ctx.Window, TargetRate: ctx.TargetRate,
		Streams: len(local), Receiver: ctx.Receiver, ReceiverIsLocal: !ctx.SenderIsLocal}
	if localSends {
		u.RcvbufErrors = in.PeerRcvbufErrors
		peer := map[int]wire.StreamResult{}
		for _, r := range in.PeerStreams {
			peer[r.ID] = r
		}
		for _, t := range local {
			u.Packets += peer[t.ID].Packets
			u.Lost += peer[t.ID].Errors
		}
		return u
	}
	for _, t := range local {
		u.Packets += t.Packets
		u.Lost += t.Lost
	}
	return u
}
