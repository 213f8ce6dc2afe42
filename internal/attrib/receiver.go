package attrib

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/units"
)

// End names whose view a verdict was decided from.
type End string

// The two ends of a direction.
const (
	FromSender   End = "sender"
	FromReceiver End = "receiver"
)

// Receiver is what the receiving socket saw of a flow: the window it
// advertised, the buffer behind it and its own estimate of the RTT.
// Where the sender's view is out of reach (a stock iperf3 sends: bench
// -R, serve receiving) it is the evidence there is.
type Receiver struct {
	// Window is the window it advertised (tcpi_rcv_wnd, Linux 6.2+),
	// bytes, the mean over the period: the largest overstates a window
	// the application's reads kept below it; 0 where the kernel does not
	// report it, and then the window model's share of RcvBuf stands for
	// it.
	Window uint64
	// RcvBuf is the socket's receive buffer at the end (sk_rcvbuf), and
	// BufMax the most it could have grown to: tcp_rmem max when
	// autotuned, the granted buffer with -w (0 = unknown).
	RcvBuf, BufMax uint64
	// RTTUS is the receiver's RTT estimate under load (tcpi_rcv_rtt,
	// mean over the period), µs; 0 = not measured.
	RTTUS uint64
}

// Judge is the verdict of one direction from the views it has: the
// sender's decides wherever it is at hand (in.From is FromSender); the
// receiver's (in.From is FromReceiver, in.ReceiverView set) decides what a
// receiver can see: its own window, the requested rate, a full path;
// else it says what it ruled out.
func Judge(in Input) Result {
	if in.From != FromReceiver {
		r := Attribute(in)
		if r.Limit != Unknown || r.From == "" {
			r.From = FromSender
		}
		return r
	}
	return receiverView(in)
}

// window is the window the receiver advertised, as reported or as the
// model makes it of the buffer.
func (rv Receiver) window(in Input) (uint64, string) {
	if rv.Window > 0 {
		return rv.Window, "advertised"
	}
	if rv.RcvBuf > 0 {
		return uint64(in.model().RecvWindow(int64(rv.RcvBuf))), "its buffer allows"
	}
	return 0, ""
}

// rtt is the receiver's RTT under load, never below the idle one.
func (rv Receiver) rtt(in Input) uint64 {
	return max(rv.RTTUS, in.idleRTT())
}

// receiverView decides from the receiving socket. A flow that fills the
// path (Full, as the sender's view decides it) is at capacity, whatever
// its window. Else the window held the
// flow when what the rate keeps in flight over the receiver's RTT
// (rate × RTT) came near the window it advertised (binds, as for the
// sender's bytes in flight); then the advice names this host's buffer.
// Otherwise the window is ruled out, and the rest (the sender's buffer
// and congestion control, the path) is for the sender's view to decide.
func receiverView(in Input) Result {
	if in.WallUS == 0 {
		return Unavailable("no measured time")
	}
	if in.ReceiverView == nil {
		return Unavailable("neither the sender's nor the receiver's view is at hand")
	}
	rv := *in.ReceiverView
	n := max(in.Streams, 1)
	perFlow := in.BitsPerSecond / float64(n)
	if app, ok := application(in, n, Shares{}); ok {
		app.From = FromReceiver
		return app
	}
	win, how := rv.window(in)
	rtt := rv.rtt(in)
	if win == 0 || rtt == 0 {
		return Result{Limit: Unknown, From: FromReceiver, Verdict: "limit attribution unavailable: the receiver reported neither its window nor its RTT"}
	}
	need := perFlow / 8 * float64(rtt) / 1e6
	r := Result{From: FromReceiver}
	if Full(in.BitsPerSecond, in.PathRate) {
		// A flow that fills the path was held short by nothing: its
		// window may sit at rate × RTT, the excess over the BDP queued.
		r.Limit, r.Share, r.CapBPS = PathFull, 1, in.PathRate
		r.Verdict = fmt.Sprintf("link at capacity (%s of %s)", units.FormatRateShort(in.BitsPerSecond), units.FormatRateShort(in.PathRate))
		r.Advice = "more buffer only adds delay"
		return r
	}
	if need >= binds*float64(win) {
		r.Limit, r.Share = ReceiverWindow, 1
		r.CapBPS = float64(win) * 8 / (float64(rtt) / 1e6)
		r.Verdict = fmt.Sprintf("limited by the receiver's window: %s %s, and the rate keeps %s in flight over the receiver's RTT of %s (%s × RTT)",
			units.FormatSize(float64(win)), how, units.FormatSize(need), fmtRTT(rtt), units.FormatRateShort(perFlow))
		if need < 0.95*float64(win) {
			r.Verdict += "; near it, not at it: the sender's own buffer may hold it as well, which only the sender's view can tell"
		}
		switch {
		case in.Window > 0:
		case rv.BufMax > 0 && rv.RcvBuf+rv.RcvBuf/8 < rv.BufMax:
			r.Verdict += fmt.Sprintf("; the buffer had grown to %s of the %s it may reach (autotuning still growing)",
				units.FormatSize(float64(rv.RcvBuf)), units.FormatSize(float64(rv.BufMax)))
		case rv.BufMax > 0:
			r.Verdict += fmt.Sprintf("; the buffer sat at its %s maximum", units.FormatSize(float64(rv.BufMax)))
		}
		r.Advice = rwndAdvice(in)
		return r
	}
	r.Limit = Unknown
	r.RuledOut = []Limit{ReceiverWindow}
	if in.TargetRate > 0 {
		r.RuledOut = append(r.RuledOut, Application)
	}
	r.Verdict = fmt.Sprintf("not the receiver's window (%s %s, %s needed at %s and RTT %s): the sender's send buffer or congestion control, or the path",
		units.FormatSize(float64(win)), how, units.FormatSize(need), units.FormatRateShort(perFlow), fmtRTT(rtt))
	r.Advice = "the sender's view decides which: run tcptune (bench or serve) at the sending end"
	return r
}

// binds is the share of a window from which the bytes in flight sit at
// it: a window-limited flow keeps its window full but for the ACKs on
// their way and the segments being sent.
const binds = 0.8

// full is the share of the path's goodput from which a direction fills
// the path: nothing below it held the rate back by more than the
// trials' own spread.
const full = 0.97

// Full reports whether a rate fills a path of goodput path (0 =
// unknown: never). Attribution and tune share this one definition.
func Full(rate, path float64) bool { return path > 0 && rate >= full*path }
