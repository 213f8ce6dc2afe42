// Package tunesim is a simulated path for judging tune's search against
// an exhaustive oracle. Its truth is not tune's window model: each
// seed draws its own buffer shares; cubic has two modes behind a
// shallow queue (an early exit from slow start, then slow growth); BBR
// overfills a shallow queue and loses, and its send buffer also holds
// what was sent beyond each hole; random loss caps a loss-based
// control; a core saturates; a short transmit ring drops bursts; a path
// may carry jumbo frames; a stock peer sends no sender's view. Each
// trial is judged by the real attribution (attrib.Judge) from the view
// the truth implies, so the search reads what it would read on a real
// path. The oracle evaluates the truth, without noise, over a grid of
// settings. bench/tunesim.sh prints the baseline table.
package tunesim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Scenario is a path and the hosts at its ends.
type Scenario struct {
	Name  string
	Rate  float64       // the bottleneck's wire rate, bit/s
	RTT   time.Duration // idle round-trip time
	Queue float64       // the bottleneck's drop-tail queue, × BDP
	Loss  float64       // random loss per packet
	// Peer mode (Both false): the peer's maxima are fixed; Stock: the
	// peer is a stock iperf3 (no sender's view in reverse).
	Both, Stock        bool
	PeerRmem, PeerWmem int64
	Rmem, Wmem         int64  // this host's (and in the lab both ends') maxima at the start
	CC                 string // the default congestion control
	// CPUCap is what one stream moves with its core flat out (bit/s, 0 =
	// none); TxqNeed the txqueuelen below which forward's bursts overflow
	// the transmit ring (0 = none); PathMTU what the path carries (0 =
	// 1500).
	CPUCap  float64
	TxqNeed int64
	PathMTU int
}

// truth is one seed's hidden facts.
type truth struct {
	recvShare, sendShare float64 // of the buffers, as window and payload in flight
	noise                float64 // σ of a trial's rate, relative
	earlyExit            float64 // cubic behind a shallow queue: the chance a trial exits slow start early
}

func drawTruth(rng *rand.Rand) truth {
	return truth{
		recvShare: 0.58 + 0.10*rng.Float64(),
		sendShare: 0.74 + 0.12*rng.Float64(),
		noise:     0.02 + 0.03*rng.Float64(),
		earlyExit: 0.3 + 0.4*rng.Float64(),
	}
}

// point is the settings a trial runs with, as the truth sees them.
type point struct {
	rcv, snd int64 // the receiver's rmem max and the sender's wmem max
	cc       string
	mtu      int
	txq      int64
	parallel int
	zerocopy bool
}

// onset is the share of the goodput from which a window lets unpaced
// slow start leave early behind a shallow queue: where the advertised
// window reaches the BDP, a flow carries about 0.95 of the path (in the
// lab at 2 Gbit/s × 25 ms behind half a BDP, cubic from its first
// packet: a receiver's tcp_rmem max of 8.75 MiB read 1807–1828 Mbit/s
// in four of four tests, 9 MiB, a 6.26 MB window, 1128–1837).
const onset = 0.95

// flow is the truth's outcome of one trial in one direction.
type flow struct {
	bps         float64
	bind        string // "path", "rwnd", "sndbuf", "cwnd", "cpu"
	rttLoaded   time.Duration
	inflight    float64 // bytes
	window      float64 // the window the receiver advertised, bytes
	retransmits int64
	cwnd        float64
	queueDrops  int64 // the transmit ring's drops
	cpu         bool  // a core ran flat out
}

// goodput is the path's payload rate at MTU mtu.
func (s Scenario) goodput(mtu int) float64 {
	return s.Rate * float64(mtu-52) / float64(mtu)
}

func (s Scenario) bdp(rate float64) float64 { return rate / 8 * s.RTT.Seconds() }

// flowOf is the truth's mean outcome (mode chosen by early, a draw in
// [0,1) for cubic's two modes; 1 = never early).
func (s Scenario) flowOf(t truth, p point, early float64) flow {
	g := s.goodput(p.mtu)
	bdp := s.bdp(g)
	q := s.Queue * bdp
	rtt := s.RTT.Seconds()
	streams := float64(max(p.parallel, 1))
	win := t.recvShare * float64(p.rcv)
	send := t.sendShare * float64(p.snd)
	f := flow{window: win}
	// What the windows let in flight (per stream, × streams) against
	// what the path holds: BDP plus the queue.
	limit, bind := math.Min(win, send)*streams, "rwnd"
	if send < win {
		bind = "sndbuf"
	}
	rate := limit * 8 / rtt
	if rate >= g {
		rate, bind = g, "path"
	}
	lossy := false
	switch p.cc {
	case "bbr":
		// BBR keeps about 2 × BDP in flight: a queue under one BDP
		// overflows, and the send buffer also holds what was sent
		// beyond each hole, so it needs more than its window.
		if s.Queue < 1 && limit > bdp*(1+s.Queue) {
			lossy = true
			rate = math.Min(rate, 0.94*g)
			held := t.sendShare * 0.8 * float64(p.snd) * streams * 8 / rtt
			if held < rate {
				rate, bind = held, "sndbuf"
			}
		}
		if s.Loss > 0 {
			lossy = true
			rate *= 1 - 2*s.Loss
		}
	default:
		// A window beyond what the path holds (the BDP and the queue)
		// overflows a shallow queue: losses (the lab's cubic with a 32
		// MiB window behind half a BDP lost 148–467 segments in each
		// 10 s). Behind a queue of a BDP or more, cubic's backoff keeps
		// the path full and its losses cost nothing: not modelled.
		lossy = s.Queue < 1 && limit > bdp+q
		if s.Loss > 0 {
			mss := float64(p.mtu - 52)
			c := streams * 1.5 * mss * 8 / rtt / math.Sqrt(s.Loss)
			if c < rate {
				rate, bind, lossy = c, "cwnd", true
			}
		}
		if s.Queue < 1 && limit*8/rtt >= onset*g && early < t.earlyExit*(1-s.Queue) {
			// Out of slow start early behind a shallow queue (HyStart:
			// unpaced slow start's bursts raise the RTT), even where the
			// buffers clamp the window just over the BDP; cubic's growth
			// then takes longer than a trial.
			rate, bind = rate*(0.55+0.3*s.Queue), "cwnd"
		}
	}
	if s.CPUCap > 0 {
		c := s.CPUCap * math.Min(streams, 2)
		if p.zerocopy {
			c *= 1.5
		}
		if p.mtu >= 9000 {
			c *= 1.6
		}
		if c < rate {
			rate, bind, f.cpu = c, "cpu", true
		}
	}
	f.bps, f.bind = rate, bind
	// A queue stands where the flow reaches the path, or where BBR's
	// gain overfills it; a loss-based flow short of the path (its slow
	// mode, a random loss's bound) keeps none, whatever it lost.
	occupancy := 0.0
	if bind == "path" || lossy && p.cc == "bbr" {
		occupancy = math.Max(0, math.Min(limit-bdp, q))
	}
	f.rttLoaded = time.Duration((rtt + occupancy*8/g) * float64(time.Second))
	f.inflight = rate / 8 * f.rttLoaded.Seconds() / streams
	f.cwnd = f.inflight * 1.1
	if bind == "cwnd" || bind == "path" {
		f.cwnd = f.inflight
	}
	if lossy {
		f.retransmits = int64(math.Max(1, rate/8/float64(p.mtu-52)*math.Max(s.Loss, 0.002)))
	}
	return f
}

// forward is the truth for what this host sends (txq applies).
func (s Scenario) forward(t truth, p point, early float64) flow {
	f := s.flowOf(t, p, early)
	if s.TxqNeed > 0 && p.txq < s.TxqNeed {
		f.queueDrops = 40
		f.retransmits += 40
		if p.cc == "bbr" {
			f.bps *= 0.9
		} else {
			f.bps, f.bind = f.bps*0.1, "cwnd"
		}
	}
	return f
}

// mean is the truth's expected rate: cubic's two modes weighted.
func (s Scenario) mean(t truth, p point, fwd bool) float64 {
	at := func(early float64) float64 {
		if fwd {
			return s.forward(t, p, early).bps
		}
		return s.flowOf(t, p, early).bps
	}
	e := t.earlyExit * (1 - s.Queue)
	if p.cc == "bbr" || s.Queue >= 1 || e <= 0 {
		return at(1)
	}
	return e*at(0) + (1-e)*at(1)
}
