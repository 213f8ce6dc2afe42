package linkem

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Config describes one direction of a link.
type Config struct {
	Rate  float64 // bit/s; 0 = unlimited
	Delay int64   // one-way propagation delay, ns
	Loss  float64 // per-segment drop probability, 0..1
	Queue int64   // drop-tail queue, bytes; 0 = unlimited
	Path  Path    // the path's MTU (none when zero)
	// Bursty is the Gilbert-Elliott loss model (none when its P is
	// zero), in place of Loss.
	Bursty GilbertElliott
	// Capacity, if set, is a rate that changes over time in place of
	// Rate (which then holds its mean, for the queue's BDP).
	Capacity *Capacity
	// Reorder holds a share of packets back so that later ones overtake
	// them (none when its Share is zero).
	Reorder Reorder
	// Jitter varies each packet's delay (none when its Amount is zero).
	Jitter Jitter
	// CoDel manages the bottleneck's queue (off when its Target is
	// zero); Queue stays its hard limit.
	CoDel CoDel
	// Police drops what exceeds a contract rate at the link's entry
	// (none when its Rate is zero), before the shaper's queue.
	Police Policer
}

// GilbertElliott is netem's "loss gemodel p r 1-h 1-k": a two-state
// chain, good and bad, evaluated per segment; in each state a segment is
// lost with that state's probability. Losses come in bursts of 1 ÷ R
// segments on average (with LossBad 1 and LossGood 0), at a rate of
// P ÷ (P + R).
type GilbertElliott struct {
	P        float64 `json:"p"`         // good → bad, per segment
	R        float64 `json:"r"`         // bad → good, per segment
	LossBad  float64 `json:"loss_bad"`  // 1 − h: loss in the bad state
	LossGood float64 `json:"loss_good"` // 1 − k: loss in the good state
}

// Jitter varies the one-way delay of each packet by a draw from a
// distribution of spread Amount (uniform: ±Amount; normal: σ = Amount;
// pareto: a heavy tail of σ = Amount, centred), never below zero in all.
// Unless Overtake, packets do not overtake one another: one drawn
// shorter than the one before leaves right after it (a queue on the path
// keeps its order).
type Jitter struct {
	Amount int64  `json:"amount_ns"`
	Dist   string `json:"distribution"` // uniform (""), normal or pareto
	// Overtake lets a packet drawn a shorter delay leave before the one
	// ahead of it (as netem's jitter does), reordering them.
	Overtake bool `json:"overtake,omitempty"`
}

// Reorder holds back a Share of the packets by Gap on top of their
// delay; the packets behind them are not held, and overtake them (as a
// second path or a link aggregate's other member does).
type Reorder struct {
	Share float64 `json:"share"`  // 0..1
	Gap   int64   `json:"gap_ns"` // ns
}

// Reorders reports whether the model lets packets overtake one another:
// their releases are then not in the order they came.
func (m *Model) Reorders() bool {
	return m.cfg.Reorder.Share > 0 || m.cfg.Jitter.Amount > 0 && m.cfg.Jitter.Overtake
}

// JitterDists are the distributions Jitter draws from.
var JitterDists = []string{"uniform", "normal", "pareto"}

// CoDel is RFC 8289's controlled delay: a segment whose time in the
// queue (its sojourn) stayed above Target for an Interval is dropped as
// it reaches the head, and drops come closer together (Interval ÷ √count)
// while it stays above. The model knows each segment's sojourn when it
// arrives (the queue is first in, first out at a fixed rate), so it
// decides then, in the order the segments would leave; a dropped segment
// takes no time on the wire.
type CoDel struct {
	Target   int64 `json:"target_ns"`   // ns; 0 = off
	Interval int64 `json:"interval_ns"` // ns
}

// codelState is CoDel's control state.
type codelState struct {
	firstAbove, dropNext int64
	count, lastCount     int
	dropping             bool
}

// Policer is a token bucket, as a provider's edge enforces a contract
// rate: a segment that finds fewer tokens than its wire bytes is dropped,
// where the shaper would queue it. The bucket starts full.
type Policer struct {
	Rate  float64 // bit/s the bucket fills at; 0 = none
	Burst int64   // its depth, bytes
}

// Validate checks the ranges tcptune supports.
func (c Config) Validate() error {
	switch {
	case c.Rate < 0 || c.Rate > 100e9:
		return fmt.Errorf("rate %g bit/s out of range (1 kbit/s .. 100 Gbit/s, or 0 for unlimited)", c.Rate)
	case c.Rate > 0 && c.Rate < 1e3:
		return fmt.Errorf("rate %g bit/s out of range (at least 1 kbit/s)", c.Rate)
	case c.Delay < 0 || c.Delay > 5e9:
		return fmt.Errorf("one-way delay %d ns out of range (0 .. 5 s)", c.Delay)
	case c.Loss < 0 || c.Loss > 0.5 || math.IsNaN(c.Loss):
		return fmt.Errorf("loss %g out of range (0 .. 50%%)", c.Loss)
	case c.Queue < 0 || c.Queue > 4<<30:
		return fmt.Errorf("queue %d bytes out of range (0 .. 4 GiB)", c.Queue)
	case c.Queue > 0 && c.Queue < 1600:
		return fmt.Errorf("queue %d bytes is smaller than one packet (at least 1600 bytes)", c.Queue)
	case c.Path.MTU != 0 && (c.Path.MTU < 576 || c.Path.MTU > 65535):
		return fmt.Errorf("path MTU %d out of range (576 .. 65535)", c.Path.MTU)
	case c.Bursty.P < 0 || c.Bursty.P > 1 || c.Bursty.R < 0 || c.Bursty.R > 1 || c.Bursty.LossBad < 0 || c.Bursty.LossBad > 1 ||
		c.Bursty.LossGood < 0 || c.Bursty.LossGood > 1 || c.Bursty.P > 0 && c.Bursty.R == 0:
		return fmt.Errorf("Gilbert-Elliott loss %+v out of range (probabilities 0 .. 1, R above 0)", c.Bursty)
	case c.Bursty.P > 0 && c.Loss > 0:
		return errors.New("random and Gilbert-Elliott loss together: give one")
	case c.Capacity != nil && c.Capacity.validate() != nil:
		return c.Capacity.validate()
	case c.Reorder.Share < 0 || c.Reorder.Share > 0.5 || c.Reorder.Share > 0 && (c.Reorder.Gap <= 0 || c.Reorder.Gap > 1e9):
		return fmt.Errorf("reordering of %g held back by %d ns out of range (0 .. 50%%, the gap above 0 and at most 1 s)", c.Reorder.Share, c.Reorder.Gap)
	case c.Jitter.Amount < 0 || c.Jitter.Amount > 5e9 || !slices.Contains(append([]string{""}, JitterDists...), c.Jitter.Dist):
		return fmt.Errorf("jitter %d ns %q out of range (0 .. 5 s; %s)", c.Jitter.Amount, c.Jitter.Dist, strings.Join(JitterDists, ", "))
	case c.CoDel.Target < 0 || c.CoDel.Target > 0 && (c.CoDel.Interval <= c.CoDel.Target || c.CoDel.Interval > 10e9):
		return fmt.Errorf("CoDel target %d ns, interval %d ns out of range (the interval above the target, at most 10 s)", c.CoDel.Target, c.CoDel.Interval)
	case c.Police.Rate < 0 || c.Police.Rate > 100e9 || c.Police.Rate > 0 && c.Police.Rate < 1e3:
		return fmt.Errorf("police rate %g bit/s out of range (1 kbit/s .. 100 Gbit/s, or 0 for none)", c.Police.Rate)
	case c.Police.Rate > 0 && (c.Police.Burst < 1600 || c.Police.Burst > 1<<30):
		return fmt.Errorf("police burst %d bytes out of range (1600 .. 1 GiB: at least one packet)", c.Police.Burst)
	}
	return nil
}

// Stats counts what one direction did. Segments are TCP/UDP segments
// (a super-packet counts as many), drops are per segment.
type Stats struct {
	Packets   uint64 `json:"packets"`
	Segments  uint64 `json:"segments"`
	Bytes     uint64 `json:"bytes"` // wire bytes forwarded
	LossDrops uint64 `json:"loss_drops"`
	// LossRuns counts the runs of consecutive lost segments (a burst of
	// losses is one run).
	LossRuns uint64 `json:"loss_runs"`
	// HeldBack counts packets the reordering held back.
	HeldBack uint64 `json:"held_back"`
	// CoDelDrops are segments CoDel dropped at the queue's head.
	CoDelDrops uint64 `json:"codel_drops"`
	// PoliceDrops are segments the policer dropped above its rate.
	PoliceDrops uint64    `json:"police_drops"`
	QueueDrops  uint64    `json:"queue_drops"`
	RingDrops   uint64    `json:"ring_drops"`
	Splits      uint64    `json:"splits"`
	MaxBacklog  int64     `json:"max_backlog"`
	Path        PathStats `json:"path"`
}

// Drops is every segment the link dropped.
func (s Stats) Drops() uint64 {
	return s.LossDrops + s.PoliceDrops + s.CoDelDrops + s.QueueDrops + s.RingDrops
}

// Piece is a packet (or part of one) to deliver at Release (ns).
type Piece struct {
	Data    []byte
	Release int64
}

// Model is one direction's state. It is not safe for concurrent use.
type Model struct {
	cfg      Config
	rng      *rand.Rand
	freeAt   int64 // virtual time the serialiser is next free, ns
	Stats    Stats
	keep     []bool
	doneTime []int64
	tokens   float64 // the policer's bucket, bytes
	filledAt int64   // when it was last filled, ns
	primed   bool    // the bucket has been filled (it starts full)
	codel    codelState
	lastOut  int64 // the last release: jittered packets keep their order
	// lossy and extra say whether loss, and anything beyond rate, delay
	// and a drop-tail queue, is configured: a plain link's segments skip
	// their checks (at 10 Gbit/s each costs).
	lossy, extra bool
	served       float64 // a Capacity's bytes the serialiser has used (or let pass idle)
	bad          bool    // the Gilbert-Elliott chain is in its bad state
	lostLast     bool    // the last segment was lost (a run goes on)
}

// New returns a model; seed makes loss reproducible.
func New(cfg Config, seed uint64) *Model {
	return &Model{cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		lossy: cfg.Loss > 0 || cfg.Bursty.P > 0,
		extra: cfg.Police.Rate > 0 || cfg.CoDel.Target > 0 || cfg.Jitter.Amount > 0 || cfg.Reorder.Share > 0 || cfg.Capacity != nil}
}

// Admit applies the path's MTU to pkt before Enqueue (see Path.Admit).
func (m *Model) Admit(pkt []byte) (fits bool, frags [][]byte, reply []byte) {
	return m.cfg.Path.Admit(pkt, &m.Stats.Path)
}

// Enqueue runs one packet read at now (ns) through loss, queue and
// serialiser. It returns the pieces to deliver (none if all segments
// were dropped). pkt is not retained except as a returned piece.
func (m *Model) Enqueue(pkt []byte, now int64) []Piece {
	s := parse(pkt)
	m.Stats.Packets++
	m.Stats.Segments += uint64(s.segments)
	if cap(m.keep) < s.segments {
		m.keep = make([]bool, s.segments)
		m.doneTime = make([]int64, s.segments)
	}
	keep, done := m.keep[:s.segments], m.doneTime[:s.segments]
	kept := 0
	for j := 0; j < s.segments; j++ {
		w := int64(s.segWire(j))
		keep[j] = false
		if m.lossy && m.lose() {
			m.Stats.LossDrops++
			if !m.lostLast {
				m.Stats.LossRuns++
			}
			m.lostLast = true
			continue
		}
		m.lostLast = false // a run of losses ends (read only where loss is configured)
		if m.extra && !m.police(w, now) {
			m.Stats.PoliceDrops++
			continue
		}
		backlog := int64(0)
		switch {
		case m.extra && m.cfg.Capacity != nil:
			backlog = max(0, int64(m.served-m.cfg.Capacity.bytesBy(now)))
		case m.cfg.Rate > 0 && m.freeAt > now:
			backlog = int64(float64(m.freeAt-now) * m.cfg.Rate / 8e9)
		}
		if m.cfg.Queue > 0 && backlog+w > m.cfg.Queue {
			m.Stats.QueueDrops++
			continue
		}
		if m.extra && m.codelDrops(backlog, w, now) {
			m.Stats.CoDelDrops++
			continue
		}
		if backlog+w > m.Stats.MaxBacklog {
			m.Stats.MaxBacklog = backlog + w
		}
		switch {
		case m.extra && m.cfg.Capacity != nil:
			m.freeAt = m.serve(w, now)
			done[j] = m.freeAt
		case m.cfg.Rate > 0:
			m.freeAt = max(m.freeAt, now) + int64(float64(w)*8e9/m.cfg.Rate)
			done[j] = m.freeAt
		default:
			done[j] = now
		}
		keep[j] = true
		kept++
		m.Stats.Bytes += uint64(w)
	}
	if kept == 0 {
		return nil
	}
	if kept == s.segments {
		return []Piece{{Data: pkt, Release: m.release(done[s.segments-1])}}
	}
	if !s.tcp4 {
		// Only IPv4 TCP super-packets are split; anything else partly
		// dropped is dropped whole (and counted so).
		m.Stats.QueueDrops += uint64(kept)
		return nil
	}
	var out []Piece
	for j := 0; j < s.segments; {
		if !keep[j] {
			j++
			continue
		}
		k := j
		for k+1 < s.segments && keep[k+1] {
			k++
		}
		out = append(out, Piece{Data: split(pkt, s, j, k), Release: m.release(done[k])})
		m.Stats.Splits++
		j = k + 1
	}
	return out
}

// lose draws whether the next segment is lost: at random, or by the
// Gilbert-Elliott chain, with the loss of the state it is in, then its
// transition (as netem does).
func (m *Model) lose() bool {
	g := m.cfg.Bursty
	if g.P == 0 {
		return m.cfg.Loss > 0 && m.rng.Float64() < m.cfg.Loss
	}
	p, move := g.LossGood, g.P
	if m.bad {
		p, move = g.LossBad, g.R
	}
	lost := p > 0 && m.rng.Float64() < p
	if m.rng.Float64() < move {
		m.bad = !m.bad
	}
	return lost
}

// serve takes w bytes of the Capacity from what the link could have
// carried by the later of now and the last packet's end (capacity that
// passed with nothing queued is lost), and returns when they are carried.
// A trace's opportunities carry a packet each, whole.
func (m *Model) serve(w, now int64) int64 {
	c := m.cfg.Capacity
	need := float64(w)
	if c.Steps {
		need = math.Ceil(need/MTUBytes) * MTUBytes
	}
	m.served = max(m.served, c.bytesBy(now)) + need
	return c.timeFor(m.served)
}

// release is when a packet that leaves the serialiser at done arrives:
// the delay, jittered, never before the packet ahead of it.
func (m *Model) release(done int64) int64 {
	if !m.extra {
		return done + m.cfg.Delay
	}
	j := m.cfg.Jitter
	if j.Amount == 0 {
		return m.holdBack(done + m.cfg.Delay)
	}
	var x float64
	switch j.Dist {
	case "normal":
		x = m.rng.NormFloat64()
	case "pareto":
		// Pareto of shape 3 (σ = √3 ÷ 2 × its scale), centred on its mean.
		x = (1/math.Cbrt(1-m.rng.Float64()) - 1.5) / (math.Sqrt(3) / 2)
	default:
		x = 2*m.rng.Float64() - 1
	}
	at := done + max(0, m.cfg.Delay+int64(x*float64(j.Amount)))
	if !j.Overtake {
		at = max(at, m.lastOut)
		m.lastOut = at
	}
	return m.holdBack(at)
}

// holdBack delays a packet by the reordering gap, if it is drawn; the
// packets after it keep their own times.
func (m *Model) holdBack(at int64) int64 {
	if r := m.cfg.Reorder; r.Share > 0 && m.rng.Float64() < r.Share {
		m.Stats.HeldBack++
		return at + r.Gap
	}
	return at
}

// codelDrops runs CoDel for a segment of w bytes arriving at now behind
// backlog bytes: it leaves the queue's head at the serialiser's next free
// time, having waited there since now.
func (m *Model) codelDrops(backlog, w, now int64) bool {
	c := m.cfg.CoDel
	if c.Target <= 0 || m.cfg.Rate <= 0 && m.cfg.Capacity == nil {
		return false
	}
	st := &m.codel
	head := max(m.freeAt, now)
	sojourn := head - now
	okToDrop := false
	switch {
	case sojourn < c.Target || backlog <= 1600:
		st.firstAbove = 0
	case st.firstAbove == 0:
		st.firstAbove = head + c.Interval
	case head >= st.firstAbove:
		okToDrop = true
	}
	law := func(t int64, count int) int64 { return t + int64(float64(c.Interval)/math.Sqrt(float64(count))) }
	switch {
	case st.dropping && !okToDrop:
		st.dropping = false
	case st.dropping && head >= st.dropNext:
		st.count++
		st.dropNext = law(st.dropNext, st.count)
		return true
	case !st.dropping && okToDrop:
		st.dropping = true
		delta := st.count - st.lastCount
		st.count = 1
		if delta > 1 && head-st.dropNext < 16*c.Interval {
			st.count = delta
		}
		st.dropNext, st.lastCount = law(head, st.count), st.count
		return true
	}
	return false
}

// police takes w bytes' tokens from the policer's bucket at now; false
// (the segment is dropped) when it holds fewer.
func (m *Model) police(w, now int64) bool {
	p := m.cfg.Police
	if p.Rate <= 0 {
		return true
	}
	if !m.primed {
		m.tokens, m.filledAt, m.primed = float64(p.Burst), now, true
	} else if now > m.filledAt {
		m.tokens = min(float64(p.Burst), m.tokens+float64(now-m.filledAt)*p.Rate/8e9)
	}
	m.filledAt = max(m.filledAt, now)
	if m.tokens < float64(w) {
		return false
	}
	m.tokens -= float64(w)
	return true
}

// Goodput is the TCP payload rate a link of rate bit/s and this MTU
// delivers (MSS = MTU − 52 with timestamps), for "rate × MSS/MTU".
func Goodput(rate float64, mtu int) float64 {
	return rate * float64(mtu-52) / float64(mtu)
}
