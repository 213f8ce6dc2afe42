package attrib

import (
	"fmt"
	"math"
	"time"

	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

// binding says which limit the measured bytes in flight sit at: the
// peer's window, the send buffer's share that holds payload, or the
// congestion window, whichever in-flight comes closest to (at least
// 80% of it). Ties within 5% go to the window, then the send buffer:
// a window-limited flow's cwnd stops growing near what is in flight.
func binding(in Input, n int) (what string, ratio float64) {
	fl := float64(in.InflightBytes)
	if fl <= 0 {
		return "", 0
	}
	type lim struct {
		name string
		v    float64
	}
	lims := []lim{
		{"rwnd", float64(in.SndWnd)},
		{"sndbuf", float64(in.model().SendWindow(int64(in.SndBuf)))},
		{"cwnd", float64(in.CwndBytes)},
	}
	for _, l := range lims {
		if l.v <= 0 {
			continue
		}
		r := fl / l.v
		if r > ratio+0.05 {
			what, ratio = l.name, r
		}
	}
	if ratio < binds {
		return "", ratio
	}
	return what, ratio
}

// heldShort is the verdict for a flow that sat at a buffer most of the
// time, without loss, short of a known goodput: the bytes in flight
// and the chronograph both name that buffer. A queue that stretched
// the RTT does not clear it (capacity and queued would: the surplus in
// flight sat in the queue), because the link was not kept busy: in
// flight must cover the RTT under load, and the buffer held it below.
func heldShort(in Input, n int, sh Shares) (Result, bool) {
	if in.PathRate <= 0 || in.Lost() != 0 || Full(in.BitsPerSecond, in.PathRate) {
		return Result{}, false
	}
	what, _ := binding(in, n)
	r := Result{Shares: sh, CapBPS: in.BitsPerSecond / float64(n)}
	var buf string
	switch {
	case what == "sndbuf" && sh.SendBuffer >= 0.5:
		r.Limit, r.Share, r.Advice = SendBuffer, sh.SendBuffer, sndbufAdvice(in)
		buf = fmt.Sprintf("the send buffer (%s in flight of %s)", units.FormatSize(float64(in.InflightBytes)), units.FormatSize(float64(in.SndBuf)))
	case what == "rwnd" && sh.ReceiverWindow >= 0.5:
		r.Limit, r.Share, r.Advice = ReceiverWindow, sh.ReceiverWindow, rwndAdvice(in)
		buf = fmt.Sprintf("the receiver's window (%s in flight of %s)", units.FormatSize(float64(in.InflightBytes)), units.FormatSize(float64(in.SndWnd)))
	default:
		return Result{}, false
	}
	r.Verdict = fmt.Sprintf("limited by %s %.0f%% of the time, at %.1f%% of the path's goodput (%s of %s)",
		buf, 100*r.Share, 100*in.BitsPerSecond/in.PathRate, units.FormatRateShort(in.BitsPerSecond), units.FormatRateShort(in.PathRate))
	if idle := in.idleRTT(); idle > 0 && in.RTTUS > idle {
		r.Verdict += fmt.Sprintf(": in flight must cover the RTT under load (%s → %s)", fmtRTT(idle), fmtRTT(in.RTTUS))
	}
	return r, true
}

// capacity is the verdict "the path is full": the rate fills the path's
// known goodput (Full); or, when the goodput is not known, the RTT
// under load exceeds the idle RTT by more than 20% (a queue is building)
// while no window binds, or while more is in flight than the rate needs
// at the idle RTT (the surplus sits in a queue), and the flow's loss
// does not account for its rate by itself (lossExplains). A known goodput that
// the rate is well below overrules the RTT: the delay then comes from
// somewhere else (a busy receiver or emulator), not a full path. So
// does a flow the other way at the same time (--bidir): its queue, in
// the other direction, delays this one's ACKs, and the RTT cannot tell
// whose data stretched it.
func capacity(in Input, n int, sh Shares) (Result, bool) {
	idle := in.idleRTT()
	full := Full(in.BitsPerSecond, in.PathRate)
	queue := in.queueStood()
	if !full && (!queue || in.PathRate > 0 || in.Concurrent) {
		return Result{}, false
	}
	if !full {
		if lossExplains(in, n) {
			return Result{}, false
		}
		what, _ := binding(in, n)
		need := in.BitsPerSecond / float64(n) / 8 * float64(idle) / 1e6
		surplus := in.InflightBytes > 0 && float64(in.InflightBytes) > 1.15*need
		if (what == "rwnd" || what == "sndbuf") && !surplus || what == "sndbuf" && writerBursts(in, n) {
			return Result{}, false
		}
	}
	r := Result{Limit: PathFull, Share: sh.Network + sh.ReceiverWindow + sh.SendBuffer, Shares: sh, CapBPS: in.PathRate}
	var why string
	switch {
	case full && queue:
		why = fmt.Sprintf("link at capacity (%s of %s), queue building (RTT %s → %s)", units.FormatRateShort(in.BitsPerSecond), units.FormatRateShort(in.PathRate), fmtRTT(idle), fmtRTT(in.RTTUS))
	case full:
		why = fmt.Sprintf("link at capacity (%s of %s)", units.FormatRateShort(in.BitsPerSecond), units.FormatRateShort(in.PathRate))
	default:
		why = fmt.Sprintf("the path is full: a queue is building (RTT %s → %s under load)", fmtRTT(idle), fmtRTT(in.RTTUS))
	}
	r.Verdict = why
	r.Advice = "more buffer only adds delay"
	if in.Lost() > 0 {
		r.Advice += fmt.Sprintf(" (%s: the queue overflows)", in.retransmits())
	}
	return r, true
}

// writerBursts reports whether a flow its send buffer held could have
// stretched its own RTT as much as it did: the kernel wakes a writer
// whose buffer is full when a third of it is free, and what the
// congestion window leaves room for (cwnd less what is in flight) of
// that third goes out at once and waits in the bottleneck's queue for
// at most its size over the rate (the bottleneck is at least as fast).
// A mean stretch within that wait does not decide that a standing queue
// built: bursts of an unpaced writer queue briefly on a path with room.
func writerBursts(in Input, n int) bool {
	rate := in.BitsPerSecond / float64(n) / 8
	if rate <= 0 || in.SndBuf == 0 || in.CwndBytes <= in.InflightBytes {
		return false
	}
	burst := min(float64(in.SndBuf)/3, float64(in.CwndBytes-in.InflightBytes))
	return float64(in.RTTUS-in.idleRTT()) <= burst/rate*1e6
}

// lossExplains reports whether the flow's own loss accounts for its
// rate without any queue: at the idle RTT, a control that cuts its
// window at each loss carries no more than window.LossRate under the
// loss the retransmits show (their count's lower one-sigma bound,
// k − √k of the segments sent: a second's few losses say little). Then
// an RTT above the idle one does not decide that a queue built: a
// small window's RTT samples also wait on delayed ACKs and recovery,
// and the path may have had room to spare (a 1% lossy path's cubic
// flow: 6 Mbit/s on a 500 Mbit/s link, RTT 20 → 25 ms).
func lossExplains(in Input, n int) bool {
	if in.Lost() <= 0 || in.MSS == 0 || in.WallUS == 0 || n <= 0 {
		return false
	}
	segs := in.BitsPerSecond * float64(in.WallUS) / 1e6 / 8 / float64(in.MSS)
	if segs <= 0 {
		return false
	}
	k := float64(in.Lost())
	p := (k - math.Sqrt(k)) / segs
	idle := time.Duration(in.idleRTT()) * time.Microsecond
	return in.BitsPerSecond/float64(n) <= window.LossRate(int64(in.MSS), idle, p)
}

// measured decides from what is in flight when the sender measured it:
// the limit it sits at is the limit, whatever the chronographs caught.
func measured(in Input, n int, sh Shares) (Result, bool) {
	what, _ := binding(in, n)
	if what == "" {
		return Result{}, false
	}
	idle := time.Duration(in.idleRTT()) * time.Microsecond
	fl := units.FormatSize(float64(in.InflightBytes))
	r := Result{Shares: sh}
	switch what {
	case "rwnd":
		r.Limit, r.Share = ReceiverWindow, sh.ReceiverWindow
		r.CapBPS = float64(in.SndWnd) * 8 / idle.Seconds()
		r.Verdict = fmt.Sprintf("limited by the receiver's window: %s in flight of a %s window (window at RTT %s caps one flow at %s)", fl, units.FormatSize(float64(in.SndWnd)), fmtRTT(in.idleRTT()), units.FormatRateShort(r.CapBPS))
		r.Advice = rwndAdvice(in)
	case "sndbuf":
		r.Limit, r.Share = SendBuffer, sh.SendBuffer
		// The model's payload share, or the one this flow showed when it
		// held more: a cap is never below what the same run measured.
		share, how := in.model().Send, "≈%.0f%% holds payload"
		if f := float64(in.InflightBytes) / float64(in.SndBuf); f > share {
			share, how = f, "%.0f%% held payload in flight"
		}
		recovering := in.Lost() > 0 && float64(in.InflightBytes) >= recoveryFill*float64(in.SndBuf)
		if c := window.Rate(share*float64(in.SndBuf), idle) * float64(n); in.PathRate > 0 && c >= in.PathRate && in.RTTUS > in.idleRTT() && !recovering {
			// At the idle RTT the buffer allows more than the path: what
			// is in flight reached it only because a queue built up.
			return queued(in, sh, fl, c), true
		}
		if recovering {
			// In flight fills the buffer while loss is recovered: the
			// buffer also keeps what was sent beyond each hole (SACKed,
			// not yet acknowledged) until the hole is filled, so the
			// sender had no room left, whatever a queue added.
			r.CapBPS = max(in.BitsPerSecond/float64(n), 1)
			r.Recovering = true
			r.Verdict = fmt.Sprintf("limited by the send buffer: %s in flight fills %.0f%% of the %s send buffer while loss is recovered (%s: the buffer also keeps what was sent beyond each hole until it is filled)",
				fl, 100*float64(in.InflightBytes)/float64(in.SndBuf), units.FormatSize(float64(in.SndBuf)), in.retransmits())
			r.Advice = sndbufAdvice(in)
			return r, true
		}
		r.CapBPS = max(window.Rate(share*float64(in.SndBuf), idle), in.BitsPerSecond/float64(n))
		r.Verdict = fmt.Sprintf("limited by the send buffer: %s in flight of a %s send buffer, of which "+how+" (caps one flow near %s at RTT %s)", fl, units.FormatSize(float64(in.SndBuf)), 100*share, units.FormatRateShort(r.CapBPS), fmtRTT(in.idleRTT()))
		r.Advice = sndbufAdvice(in)
	default:
		r.Limit, r.Share = Network, sh.Network
		r.Verdict = fmt.Sprintf("limited by the congestion window: %s in flight, cwnd %s", fl, units.FormatSize(float64(in.CwndBytes)))
		r.Advice = cwndAdvice(in)
		switch {
		case in.Lost() > 0:
			r.Verdict += ", " + in.retransmits()
		case sndbufCapped(in):
			r.Capped = string(SendBuffer)
			r.Verdict += fmt.Sprintf(", %s, with the send buffer at its cap (%s, below the %s the kernel sizes for this window)",
				in.retransmits(), units.FormatSize(float64(in.SndBuf)), units.FormatSize(float64(window.SendTarget(int64(in.CwndBytes), int64(in.MSS)))))
			r.Advice = "no loss holds the window, and it grows slowly behind a capped send buffer (cubic after an early exit from slow start): a larger tcp_wmem max on the sender" + where(in.Sender, in.SenderIsLocal) + " may let it grow; only a trial tells (tcptune tune tries it)"
		}
	}
	return r, true
}

// recoveryFill is the share of the send buffer in flight from which a
// lossy flow has no room left for new data: the rest holds what loss
// recovery keeps. Measured on the lab's 300 Mbit/s × 150 ms path with
// 0.1% loss and BBR: in flight at 92–98% of the buffer, and each raise
// of tcp_wmem max paid (201 → 217 → 250 Mbit/s from 1.5 to 3 × BDP);
// the satellite's queue-built flow (BBR overshooting, no random loss)
// held 70% and gained nothing.
const recoveryFill = 0.9

// sndbufCapped reports whether an autotuned send buffer (no -w) sat
// below the size the kernel's autotuning wanted for the congestion
// window, with no loss and the path not known to be full: capped by
// tcp_wmem max.
func sndbufCapped(in Input) bool {
	if in.Window > 0 || in.Lost() != 0 || in.SndBuf == 0 || in.MSS == 0 {
		return false
	}
	if Full(in.BitsPerSecond, in.PathRate) {
		return false
	}
	return int64(in.SndBuf) < window.SendTarget(int64(in.CwndBytes), int64(in.MSS))
}

// queued is the verdict for a flow whose bytes in flight reached the
// send buffer although the buffer allows more than the path at the idle
// RTT (capBPS): the surplus sat in a queue, so the buffer is not what
// held the rate; loss, if any, is.
func queued(in Input, sh Shares, fl string, capBPS float64) Result {
	// The send buffer was full: raising it lets more into flight, which
	// helps where the queue is the path's and hurts where it overflows;
	// only a trial tells.
	r := Result{Limit: Network, Share: sh.Network, Shares: sh, Advice: cwndAdvice(in), Capped: string(SendBuffer)}
	r.Verdict = fmt.Sprintf("limited by the congestion window: %s in flight reached the send buffer only through a queue (RTT %s → %s); at the idle RTT the buffer allows %s, more than the path's %s",
		fl, fmtRTT(in.idleRTT()), fmtRTT(in.RTTUS), units.FormatRateShort(capBPS), units.FormatRateShort(in.PathRate))
	if in.Retransmits > 0 {
		r.Verdict += ", " + in.retransmits()
	}
	return r
}

// cwndAdvice is the advice for a flow the congestion window holds.
func cwndAdvice(in Input) string {
	if in.Lost() > 0 {
		return "loss holds the congestion window down: buffers are not the lever; parallel streams (-P) may be, or for a control that cuts its window at each loss (cubic, reno) one that does not (-C bbr)"
	}
	return "the buffers are not the bottleneck: the congestion control is still growing or the path limits it"
}

// appDelivered is the share of a -b rate from which the sender delivered
// what it asked for: a paced sender's own rounding stays within it.
const appDelivered = 0.95

// appSlack is how far below its tightest window a sender stays, with
// nothing unsent, to be held by its application: under half of it, no
// window, buffer or congestion control was near binding. Unless the
// kernel saw the writer wait on a full send buffer for longer than it
// saw the socket without data (its send-buffer chronograph runs only
// while a writer waits for room, and never overcounts): then the buffer,
// which autotuning may have grown during the test past what the flow
// kept in flight, held it, not the application.
const appSlack = 0.5

// application is the verdict for a sender its application held rather
// than TCP: it asked for a rate (-b) and delivered it; or, measured, it
// had next to nothing waiting unsent (under a tenth of what was in
// flight) while what it had in flight stayed under half of the tightest
// of its windows (the peer's, the send buffer's payload share, the
// congestion window). The busy chronograph cannot tell: a paced or slow
// writer keeps the socket busy with what little it gives it, and a
// congestion window that grew while nothing filled it is not a limit.
// A flow that carried the path's goodput was held by the path: its
// writer kept up with it over the period, whatever a sample of its
// queue caught (a writer descheduled at the moment of a live sample).
func application(in Input, n int, sh Shares) (Result, bool) {
	perFlow := in.BitsPerSecond / float64(n)
	_, ratio := binding(in, n)
	r := Result{Limit: Application, Share: sh.Network + sh.Idle, Shares: sh, CapBPS: perFlow}
	flight := ""
	if in.InflightBytes > 0 && ratio > 0 {
		flight = fmt.Sprintf(" (%s in flight, %.0f%% of the tightest window: TCP held nothing back)", units.FormatSize(float64(in.InflightBytes)), 100*ratio)
	}
	switch {
	case in.TargetRate > 0 && perFlow >= appDelivered*in.TargetRate:
		r.Verdict = fmt.Sprintf("limited by the requested bitrate: -b %s per stream, delivered %s%s", units.FormatRateShort(in.TargetRate), units.FormatRateShort(perFlow), flight)
		r.Advice = "raise or drop -b to measure what the path and buffers allow"
	case in.TargetRate == 0 && !Full(in.BitsPerSecond, in.PathRate) && in.InflightBytes > 0 && ratio > 0 && ratio < appSlack && in.NotsentBytes*10 < in.InflightBytes && sh.SendBuffer <= sh.Idle:
		r.Verdict = fmt.Sprintf("limited by the application: it had next to nothing waiting to be sent (%s unsent)%s", units.FormatSize(float64(in.NotsentBytes)), flight)
		r.Advice = "the buffers and the congestion window allowed more; the sending application did not write faster"
	default:
		return Result{}, false
	}
	return r, true
}
