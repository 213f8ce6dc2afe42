// Package attrib decides what limited a TCP transfer — the receiver's
// window, the sender's buffer, the network, or the CPU/application —
// from the sender's TCP_INFO chronographs (busy, rwnd_limited,
// sndbuf_limited), its window, RTT and retransmits, and CPU use, and
// phrases the verdict with the figure to change. It is pure logic.
package attrib

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/window"
)

// Limit names what bounded a transfer.
type Limit string

// The limits tcptune distinguishes.
const (
	ReceiverWindow Limit = "receiver-window"
	SendBuffer     Limit = "send-buffer"
	Network        Limit = "network"
	CPU            Limit = "cpu"
	Application    Limit = "application"
	PathFull       Limit = "path-full"
	Unknown        Limit = "unknown"
)

// Input is what the sender's side observed over the measured period.
type Input struct {
	WallUS        uint64 // measured period, µs
	BusyUS        uint64 // Δ tcpi_busy_time
	RwndLimitedUS uint64 // Δ tcpi_rwnd_limited
	SndbufLimitUS uint64 // Δ tcpi_sndbuf_limited
	SndWnd        uint64 // peer's advertised window (bytes), largest seen
	SndBuf        uint64 // sender's SO_SNDBUF (sk_sndbuf) at the end
	CwndBytes     uint64 // largest cwnd × MSS
	RTTUS         uint64 // mean smoothed RTT
	MinRTTUS      uint64 // minimum RTT
	Retransmits   int64  // segments retransmitted, -1 if unknown
	// Spurious is how many of them the receiver reported as duplicates
	// (DSACK, tcpi_dsack_dups): the original had arrived, reordered or
	// late. They are not loss: decisions read Lost.
	Spurious      int64
	BitsPerSecond float64 // achieved throughput of this stream (or the test)
	Streams       int     // number of streams summed in this Input
	SenderCPU     float64 // sender process CPU, % of one core
	SenderCores   int     // cores available to the sender
	ReceiverCPU   float64 // receiver process CPU, % of one core (0 = unknown)
	TargetRate    float64 // -b per stream, bit/s (0 = unlimited)
	Window        int     // -w requested, bytes (0 = autotuned)
	Receiver      string  // receiver's address, for advice
	Sender        string  // sender's address
	SenderIsLocal bool
	// RTTSamples counts the sender's samples of its smoothed RTT under
	// load, QueuedSamples those that showed a queue (Queued against the
	// socket's least RTT); 0 samples = not counted.
	RTTSamples, QueuedSamples uint64
	// InflightBytes and NotsentBytes are the sender's measured bytes in
	// flight (unacked × MSS) and not yet sent, per stream, averaged; 0 =
	// not measured.
	InflightBytes, NotsentBytes uint64
	// PathRate is the path's goodput when known or estimated (bit/s, 0 =
	// unknown); IdleRTTUS its round-trip time without load (0 = use
	// MinRTTUS). Caps are computed at the idle RTT, not the queued one.
	PathRate  float64
	IdleRTTUS uint64
	// Model is the kernel's buffer-to-window model (zero = Linux 6.6+).
	Model window.Model
	// MSS is the sender's MSS (0 = unknown): the kernel's send-buffer
	// target depends on it.
	MSS uint64
	// Concurrent: the opposite direction carried data at the same time
	// (--bidir), so a queue the RTT shows may be its own, delaying this
	// direction's ACKs, and the RTT alone cannot say this one is full.
	Concurrent bool
	// From is whose view the figures above are: the sender's (the zero
	// value) or, where the sender's is out of reach, the receiver's, in
	// Receiver; then only the context, the rate and the period are set.
	From         End
	ReceiverView *Receiver
}

// Queued reports whether an RTT (µs) shows a queue over the idle one:
// longer by more than 20% and by more than a millisecond.
func Queued(rttUS, idleUS uint64) bool {
	return idleUS > 0 && rttUS > idleUS+1000 && float64(rttUS) > 1.2*float64(idleUS)
}

// queueStood reports whether a queue stood under load: most of the RTT
// samples the sender took showed one (Queued, each against the
// socket's least RTT), where it counted them; else the mean RTT
// against the idle one. A mean alone cannot tell a queue that stood
// from a few stalls of a router or emulator, which the mean of a
// short test's samples carries whole.
func (in Input) queueStood() bool {
	if in.RTTSamples > 0 {
		return 2*in.QueuedSamples > in.RTTSamples
	}
	return Queued(in.RTTUS, in.idleRTT())
}

// model is the window model at the flow's MSS.
func (in Input) model() window.Model {
	m := in.Model
	if m.Recv == 0 || m.Send == 0 {
		m = window.Linux66
	}
	return m.ForMSS(int64(in.MSS))
}

// idleRTT is the RTT without queueing: given, else the minimum seen,
// else the mean.
func (in Input) idleRTT() uint64 {
	switch {
	case in.IdleRTTUS > 0:
		return in.IdleRTTUS
	case in.MinRTTUS > 0:
		return in.MinRTTUS
	}
	return in.RTTUS
}

// Shares of the measured period spent in each state (sum ≈ 1).
type Shares struct {
	ReceiverWindow float64 `json:"receiver_window"`
	SendBuffer     float64 `json:"send_buffer"`
	Network        float64 `json:"network"`
	Idle           float64 `json:"idle"` // no data to send: CPU or application
}

// Result is a verdict with its evidence.
type Result struct {
	Limit  Limit   `json:"limit"`
	Share  float64 `json:"share"` // share of time in that state, 0..1
	Shares Shares  `json:"shares"`
	CapBPS float64 `json:"cap_bits_per_second,omitempty"`
	// Capped names a buffer that sat at its cap while another limit
	// bound ("send-buffer"): below what the kernel's autotuning wanted
	// for the window, or full only because a queue stretched the RTT.
	// The buffer to try raising: only a trial tells whether it helps.
	Capped string `json:"capped,omitempty"`
	// Recovering: the flow was recovering from loss when it sat at the
	// limit (its send buffer also held what was sent beyond each hole).
	Recovering bool `json:"recovering,omitempty"`
	// From is whose view decided: "sender" or "receiver".
	From End `json:"from,omitempty"`
	// RuledOut names the limits the evidence excluded when it could not
	// name the one that held (Limit is then "unknown").
	RuledOut []Limit `json:"ruled_out,omitempty"`
	Verdict  string  `json:"verdict"`
	Advice   string  `json:"advice,omitempty"`
}

// Unavailable is the verdict when the sender's view is missing.
func Unavailable(why string) Result {
	return Result{Limit: Unknown, Verdict: "limit attribution unavailable: " + why}
}

// Attribute classifies one stream or one test.
func Attribute(in Input) Result {
	if in.WallUS == 0 {
		return Unavailable("no measured time")
	}
	wall := float64(in.WallUS)
	busy := math.Min(float64(in.BusyUS), wall)
	rw := math.Min(float64(in.RwndLimitedUS), busy)
	sb := math.Min(float64(in.SndbufLimitUS), busy-rw)
	sh := Shares{
		ReceiverWindow: rw / wall,
		SendBuffer:     sb / wall,
		Network:        math.Max(0, busy-rw-sb) / wall,
		Idle:           math.Max(0, wall-busy) / wall,
	}
	n := in.Streams
	if n < 1 {
		n = 1
	}
	r := Result{Shares: sh}
	rtt := float64(in.idleRTT()) / 1e6
	perFlow := in.BitsPerSecond / float64(n)
	state := max4(sh)
	if app, ok := application(in, n, sh); ok {
		return app
	}
	if state != "idle" {
		if h, ok := heldShort(in, n, sh); ok {
			return h
		}
		if full, ok := capacity(in, n, sh); ok {
			return full
		}
		if m, ok := measured(in, n, sh); ok {
			return m
		}
	}

	switch state {
	case "rwnd":
		r.Limit, r.Share = ReceiverWindow, sh.ReceiverWindow
		win := float64(in.SndWnd)
		detail := ""
		if win > 0 && rtt > 0 {
			r.CapBPS = win * 8 / rtt
			detail = fmt.Sprintf(" (window %s at RTT %s caps one flow at %s)", units.FormatSize(win), fmtRTT(in.idleRTT()), units.FormatRateShort(r.CapBPS))
		}
		r.Verdict = fmt.Sprintf("limited by the receiver's window %.0f%% of the time%s", 100*r.Share, detail)
		r.Advice = rwndAdvice(in)
	case "sndbuf":
		r.Limit, r.Share = SendBuffer, sh.SendBuffer
		detail := ""
		if in.SndBuf > 0 && rtt > 0 {
			r.CapBPS = in.model().SendCap(int64(in.SndBuf), time.Duration(in.idleRTT())*time.Microsecond)
			detail = fmt.Sprintf(" (send buffer %s at RTT %s caps one flow near %s)", units.FormatSize(float64(in.SndBuf)), fmtRTT(in.idleRTT()), units.FormatRateShort(r.CapBPS))
		}
		r.Verdict = fmt.Sprintf("limited by the send buffer %.0f%% of the time%s", 100*r.Share, detail)
		r.Advice = sndbufAdvice(in)
	case "network":
		if cpu, who := busiestCPU(in, n); cpu >= 75 && in.MinRTTUS > 0 && in.MinRTTUS < 1000 {
			// On loopback or a LAN the "congestion window" state of a
			// CPU-bound sender is the CPU, not the path.
			r.Limit, r.Share = CPU, sh.Network
			r.Verdict = fmt.Sprintf("limited by CPU: the %s used %.0f%% of a core per stream on a path with %s minimum RTT", who, cpu, fmtRTT(in.MinRTTUS))
			r.Advice = "the buffers are not the bottleneck; use more streams (-P), faster cores, or offloads"
			break
		}
		r.Limit, r.Share = Network, sh.Network
		var parts []string
		if in.CwndBytes > 0 {
			parts = append(parts, "cwnd "+units.FormatSize(float64(in.CwndBytes)))
		}
		if in.Retransmits >= 0 {
			parts = append(parts, in.retransmits())
		}
		if in.RTTUS > 0 {
			rttPart := "RTT " + fmtRTT(in.RTTUS)
			if in.queueStood() {
				rttPart += fmt.Sprintf(" (min %s: a queue is filling)", fmtRTT(in.MinRTTUS))
			}
			parts = append(parts, rttPart)
		}
		r.Verdict = fmt.Sprintf("limited by the network (congestion window) %.0f%% of the time", 100*r.Share)
		if len(parts) > 0 {
			r.Verdict += " (" + strings.Join(parts, ", ") + ")"
		}
		r.Advice = "the buffers are not the bottleneck: the path's capacity, loss or the congestion control is"
	default:
		r.Share = sh.Idle
		if in.TargetRate > 0 && perFlow <= in.TargetRate*1.05 {
			r.Limit = Application
			r.Verdict = fmt.Sprintf("limited by the requested bitrate (-b %s per stream): the socket was idle %.0f%% of the time", units.FormatRateShort(in.TargetRate), 100*sh.Idle)
			r.Advice = "raise or drop -b to measure the path"
			break
		}
		if cpu, who := busiestCPU(in, n); cpu >= 70 {
			r.Limit = CPU
			r.Verdict = fmt.Sprintf("limited by CPU: the sender had no data queued %.0f%% of the time while the %s used %.0f%% of a core per stream", 100*sh.Idle, who, cpu)
			r.Advice = "the buffers are not the bottleneck; use more streams (-P), faster cores, or offloads"
		} else {
			r.Limit = Application
			r.Verdict = fmt.Sprintf("limited by the application: the sender had no data queued %.0f%% of the time", 100*sh.Idle)
			r.Advice = "the buffers are not the bottleneck; the sending application did not supply data fast enough"
		}
	}
	return r
}

// rwndAdvice is what to change when the receiver's window limits.
func rwndAdvice(in Input) string {
	if in.Window > 0 {
		return fmt.Sprintf("the -w %s socket buffer fixes the receiver's window and turns autotuning off: raise -w (it is capped by net.core.rmem_max on the receiver %s) or drop it", units.FormatIEC(float64(in.Window)), in.Receiver)
	}
	return "raise net.ipv4.tcp_rmem max on the receiver" + where(in.Receiver, !in.SenderIsLocal)
}

// sndbufAdvice is what to change when the send buffer limits.
func sndbufAdvice(in Input) string {
	if in.Window > 0 {
		return fmt.Sprintf("the -w %s socket buffer fixes the sender's buffer: raise -w (capped by net.core.wmem_max on the sender %s) or drop it", units.FormatIEC(float64(in.Window)), in.Sender)
	}
	return "raise net.ipv4.tcp_wmem max on the sender" + where(in.Sender, in.SenderIsLocal)
}

// busiestCPU is the higher per-stream CPU use of sender and receiver.
func busiestCPU(in Input, streams int) (float64, string) {
	cores := in.SenderCores
	if cores < 1 {
		cores = 1
	}
	div := math.Min(float64(streams), float64(cores))
	s, r := in.SenderCPU/div, in.ReceiverCPU/div
	if r > s {
		return r, "receiver"
	}
	return s, "sender"
}

func where(addr string, local bool) string {
	switch {
	case local && addr != "":
		return " (this host, " + addr + ")"
	case local:
		return " (this host)"
	case addr != "":
		return " (" + addr + ")"
	}
	return ""
}

func fmtRTT(us uint64) string {
	ms := float64(us) / 1000
	switch {
	case ms >= 10:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f µs", float64(us))
}

func max4(s Shares) string {
	best, name := s.Idle, "idle"
	if s.Network > best {
		best, name = s.Network, "network"
	}
	if s.SendBuffer > best {
		best, name = s.SendBuffer, "sndbuf"
	}
	if s.ReceiverWindow > best {
		name = "rwnd"
	}
	return name
}

// Merge sums per-stream inputs into one for the whole test: times and
// counts add, windows and RTTs take the mean, throughput adds.
func Merge(ins []Input) Input {
	if len(ins) == 0 {
		return Input{}
	}
	out := ins[0]
	out.Streams = 0
	out.WallUS, out.BusyUS, out.RwndLimitedUS, out.SndbufLimitUS = 0, 0, 0, 0
	out.BitsPerSecond, out.Retransmits, out.Spurious = 0, 0, 0
	out.RTTSamples, out.QueuedSamples = 0, 0
	var wnd, sbuf, cwnd, rtt, minrtt, fl, ns uint64
	unknownRetr := false
	for _, in := range ins {
		out.WallUS += in.WallUS
		out.BusyUS += in.BusyUS
		out.RwndLimitedUS += in.RwndLimitedUS
		out.SndbufLimitUS += in.SndbufLimitUS
		out.BitsPerSecond += in.BitsPerSecond
		out.RTTSamples += in.RTTSamples
		out.QueuedSamples += in.QueuedSamples
		if in.Retransmits < 0 {
			unknownRetr = true
		} else {
			out.Retransmits += in.Retransmits
			out.Spurious += in.Spurious
		}
		wnd += in.SndWnd
		sbuf += in.SndBuf
		cwnd += in.CwndBytes
		rtt += in.RTTUS
		fl += in.InflightBytes
		ns += in.NotsentBytes
		if minrtt == 0 || (in.MinRTTUS > 0 && in.MinRTTUS < minrtt) {
			minrtt = in.MinRTTUS
		}
		out.Streams += max(in.Streams, 1)
	}
	k := uint64(len(ins))
	if out.ReceiverView != nil {
		var rv Receiver
		for _, in := range ins {
			if in.ReceiverView != nil {
				rv.Window += in.ReceiverView.Window
				rv.RcvBuf += in.ReceiverView.RcvBuf
				rv.RTTUS += in.ReceiverView.RTTUS
				rv.BufMax = in.ReceiverView.BufMax
			}
		}
		rv.Window, rv.RcvBuf, rv.RTTUS = rv.Window/k, rv.RcvBuf/k, rv.RTTUS/k
		out.ReceiverView = &rv
	}
	out.SndWnd, out.SndBuf, out.CwndBytes, out.RTTUS, out.MinRTTUS = wnd/k, sbuf/k, cwnd/k, rtt/k, minrtt
	out.InflightBytes, out.NotsentBytes = fl/k, ns/k
	if unknownRetr {
		out.Retransmits, out.Spurious = -1, 0
	}
	return out
}

// Lost is the retransmits that repaired a loss (Lost).
func (in Input) Lost() int64 { return Lost(in.Retransmits, in.Spurious) }

// Lost is the retransmits that repaired a loss: all of them less the
// spurious ones, those the receiver reported as duplicates (-1: unknown).
func Lost(retransmits, spurious int64) int64 {
	if retransmits < 0 {
		return -1
	}
	return retransmits - min(max(spurious, 0), retransmits)
}

// retransmits says the retransmits for a verdict, with those that were
// not loss.
func (in Input) retransmits() string {
	if s := in.Retransmits - in.Lost(); in.Retransmits > 0 && s > 0 {
		return fmt.Sprintf("%d retransmits, %d of them spurious (the receiver had the original: reordering)", in.Retransmits, s)
	}
	return fmt.Sprintf("%d retransmits", in.Retransmits)
}

// String is the one-line verdict with its advice.
func (r Result) String() string {
	if r.Advice == "" {
		return r.Verdict
	}
	return r.Verdict + ": " + r.Advice
}
