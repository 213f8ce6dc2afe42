package watch

import (
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/sockdiag"
)

// judge is what limited a socket over the interval between two
// samples, from the one attribution bench, serve and tune use: the
// sender's view where the socket sent data in it, the receiver's where
// it only received; ok is false for a socket that moved nothing (or
// has no TCP_INFO in either sample). A sender's RTT and bytes in flight
// are the means of the samples within the interval where there were
// any (v), else cur's.
func judge(prev, cur sockdiag.Socket, dt float64, v *seen) (attrib.Result, bool) {
	in, ok := input(prev, cur, dt)
	if !ok {
		return attrib.Result{}, false
	}
	if in.From != attrib.FromReceiver {
		v.apply(&in)
	}
	return attrib.Judge(in), true
}

// input is the attribution's input for a socket over the interval
// between two samples, its instantaneous figures (window, cwnd, RTT, in
// flight) from cur.
func input(prev, cur sockdiag.Socket, dt float64) (attrib.Input, bool) {
	p, c := prev.Info, cur.Info
	if p == nil || c == nil || dt <= 0 {
		return attrib.Input{}, false
	}
	wall := uint64(dt * 1e6)
	sent := c.DeliveredSince(p)
	received := c.ReceivedSince(p)
	in := attrib.Input{WallUS: wall, Streams: 1, MinRTTUS: uint64(c.MinRTT), MSS: uint64(c.SndMSS)}
	switch {
	case sent > 0 && sent >= received:
		in.BusyUS = sub(c.BusyTime, p.BusyTime)
		in.RwndLimitedUS = sub(c.RwndLimited, p.RwndLimited)
		in.SndbufLimitUS = sub(c.SndbufLimited, p.SndbufLimited)
		in.SndWnd, in.CwndBytes, in.RTTUS = uint64(c.SndWnd), c.CwndBytes(), uint64(c.RTT)
		in.Retransmits = int64(c.TotalRetrans) - int64(p.TotalRetrans)
		in.Spurious = int64(c.DsackDups) - int64(p.DsackDups)
		in.BitsPerSecond = float64(sent) * 8 / dt
		in.InflightBytes, in.NotsentBytes = c.InflightBytes(), uint64(c.NotsentBytes)
		if m := cur.Mem; m != nil {
			in.SndBuf = uint64(m.Sndbuf)
		}
		in.SenderIsLocal = true
	case received > 0:
		in.From, in.Retransmits = attrib.FromReceiver, -1
		in.BitsPerSecond = float64(received) * 8 / dt
		in.MSS = uint64(c.RcvMSS)
		rv := &attrib.Receiver{Window: uint64(c.RcvWnd), RTTUS: uint64(c.RcvRTT)}
		if m := cur.Mem; m != nil {
			rv.RcvBuf = uint64(m.Rcvbuf)
		}
		in.ReceiverView = rv
	default:
		return attrib.Input{}, false
	}
	in.Sender, in.Receiver = cur.Local.Addr().String(), cur.Remote.Addr().String()
	if in.From == attrib.FromReceiver {
		in.Sender, in.Receiver = in.Receiver, in.Sender
	}
	return in, true
}
