package linkem

import (
	"encoding/binary"
	"math"
	"testing"
)

// superPacket builds a vnet header + IPv4 + TCP (20-byte header + 12
// bytes of options) super-packet of n segments of mss bytes.
func superPacket(n, mss int, seq uint32, flags byte) []byte {
	const ihl, thl = 20, 32
	payload := n * mss
	b := make([]byte, VnetHdrLen+ihl+thl+payload)
	vnetHdr{flags: flagNeedsCsum, gsoType: GSOTCPv4, hdrLen: ihl + thl, gsoSize: uint16(mss), csumStart: ihl, csumOffset: 16}.put(b)
	ip := b[VnetHdrLen:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(min(len(ip), 65535)))
	binary.BigEndian.PutUint16(ip[4:], 1000)
	ip[8], ip[9] = 64, 6
	copy(ip[12:], []byte{10, 201, 1, 1, 10, 201, 1, 2})
	binary.BigEndian.PutUint16(ip[10:], ^fold(sum(ip[:ihl], 0)))
	tcp := ip[ihl:]
	binary.BigEndian.PutUint16(tcp[0:], 5201)
	binary.BigEndian.PutUint32(tcp[4:], seq)
	tcp[12] = thl / 4 << 4
	tcp[13] = flags
	for i := range payload {
		ip[ihl+thl+i] = byte(i*7 + i/mss)
	}
	return b
}

// fullChecksum completes a CHECKSUM_PARTIAL packet as a NIC would and
// compares it with the checksum computed from scratch.
func checksumOK(t *testing.T, pkt []byte) {
	t.Helper()
	ip := pkt[VnetHdrLen:]
	ihl := int(ip[0]&0x0f) * 4
	if got := fold(sum(ip[:ihl], 0)); got != 0xffff {
		t.Fatalf("IP header checksum wrong (%#x)", got)
	}
	seg := append([]byte(nil), ip[ihl:]...)
	completed := ^fold(sum(seg, 0)) // the check field holds the pseudo sum
	seg[16], seg[17] = 0, 0
	var ps uint32
	ps = sum(ip[12:20], ps) + 6 + uint32(len(seg))
	want := ^fold(sum(seg, ps))
	if completed != want {
		t.Fatalf("TCP checksum: completed %#x, want %#x", completed, want)
	}
}

func TestSplitKeepsTCPConsistent(t *testing.T) {
	const n, mss = 10, 1448
	pkt := superPacket(n, mss, 5000, 0x18|0x80) // PSH|ACK|CWR
	// Set the partial checksum as the kernel does.
	ip := pkt[VnetHdrLen:]
	var ps uint32
	ps = sum(ip[12:20], ps) + 6 + uint32(len(ip)-20)
	binary.BigEndian.PutUint16(ip[20+16:], fold(ps))
	s := parse(pkt)
	if s.segments != n || s.hdr != 52 || !s.tcp4 {
		t.Fatalf("parse: %+v", s)
	}
	for _, r := range [][2]int{{0, 0}, {0, 3}, {4, 9}, {9, 9}} {
		p := split(pkt, s, r[0], r[1])
		pip := p[VnetHdrLen:]
		segs := r[1] - r[0] + 1
		if len(pip) != 52+segs*mss || int(binary.BigEndian.Uint16(pip[2:])) != len(pip) {
			t.Fatalf("%v: length %d", r, len(pip))
		}
		if got := binary.BigEndian.Uint32(pip[24:]); got != 5000+uint32(r[0]*mss) {
			t.Fatalf("%v: seq %d", r, got)
		}
		if got := binary.BigEndian.Uint16(pip[4:]); got != 1000+uint16(r[0]) {
			t.Fatalf("%v: IP id %d", r, got)
		}
		flags := pip[33]
		if (flags&0x80 != 0) != (r[0] == 0) || (flags&0x08 != 0) != (r[1] == n-1) {
			t.Fatalf("%v: flags %#x", r, flags)
		}
		if pip[52] != ip[52+r[0]*mss] {
			t.Fatalf("%v: payload not at the right offset", r)
		}
		h := parseVnet(p)
		if segs == 1 && (h.gsoType != GSONone || h.gsoSize != 0) {
			t.Fatalf("%v: a single segment must not be GSO: %+v", r, h)
		}
		if segs > 1 && (h.gsoType != GSOTCPv4 || h.gsoSize != mss) {
			t.Fatalf("%v: gso %+v", r, h)
		}
		checksumOK(t, p)
	}
}

func TestSerialisationAndDelay(t *testing.T) {
	// 1 Gbit/s, 25 ms: a 10-segment super-packet of 1500-byte frames
	// takes 10 × 12 µs on the wire, then 25 ms.
	m := New(Config{Rate: 1e9, Delay: 25e6}, 1)
	pkt := superPacket(10, 1448, 0, 0x10)
	out := m.Enqueue(pkt, 0)
	if len(out) != 1 || out[0].Release != 10*12000+25e6 {
		t.Fatalf("release %v", out)
	}
	// A second packet queues behind the first.
	out = m.Enqueue(superPacket(1, 1448, 0, 0x10), 0)
	if out[0].Release != 11*12000+25e6 {
		t.Fatalf("queued release %d", out[0].Release)
	}
	if m.Stats.Segments != 11 || m.Stats.Bytes != 11*1500 {
		t.Fatalf("stats %+v", m.Stats)
	}
}

func TestDropTailQueueSplits(t *testing.T) {
	// Queue of 5 frames: of a 10-segment burst 5 pass, 5 are dropped,
	// and the survivors leave as one piece.
	m := New(Config{Rate: 1e9, Queue: 5 * 1500}, 1)
	out := m.Enqueue(superPacket(10, 1448, 0, 0x10), 0)
	if m.Stats.QueueDrops != 5 || len(out) != 1 || len(out[0].Data) != VnetHdrLen+52+5*1448 {
		t.Fatalf("drops %d, pieces %d", m.Stats.QueueDrops, len(out))
	}
	// Later the queue has drained.
	out = m.Enqueue(superPacket(2, 1448, 0, 0x10), 1e9)
	if len(out) != 1 || m.Stats.QueueDrops != 5 {
		t.Fatal("queue did not drain")
	}
}

func TestLossRate(t *testing.T) {
	m := New(Config{Loss: 0.01}, 42)
	for i := 0; i < 20000; i++ {
		m.Enqueue(superPacket(10, 1448, uint32(i), 0x10), int64(i))
	}
	got := float64(m.Stats.LossDrops) / float64(m.Stats.Segments)
	if got < 0.009 || got > 0.011 {
		t.Fatalf("measured loss %.4f over %d segments, configured 0.01", got, m.Stats.Segments)
	}
	if m.Stats.Splits == 0 {
		t.Fatal("partial losses did not split")
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []Config{{Rate: -1}, {Rate: 10}, {Loss: 0.9}, {Queue: 100}, {Delay: -1}, {Delay: 6e9}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if (Config{Rate: 1e9, Delay: 25e6, Loss: 1e-4, Queue: 6250000}).Validate() != nil {
		t.Error("valid config rejected")
	}
	if g := Goodput(1e9, 1500); g < 965e6 || g > 966e6 {
		t.Errorf("goodput %v", g)
	}
}

func TestNonGSO(t *testing.T) {
	b := make([]byte, VnetHdrLen+60)
	b[VnetHdrLen] = 0x45
	if s := parse(b); s.segments != 1 || s.segWire(0) != 60 {
		t.Fatalf("%+v", s)
	}
	if s := parse([]byte{1, 2}); s.segments != 1 {
		t.Fatal("short")
	}
}

// TestPolicer: a full bucket passes a burst of its depth at once, then
// what exceeds the rate is dropped, not queued; over a long run what
// passes is the burst plus the rate's bytes.
func TestPolicer(t *testing.T) {
	const frame = 1500
	m := New(Config{Rate: 1e9, Police: Policer{Rate: 12e6, Burst: 10 * frame}}, 1) // 12 Mbit/s: a frame a millisecond
	out := m.Enqueue(superPacket(15, 1448, 0, 0x10), 0)
	if m.Stats.PoliceDrops != 5 || len(out) != 1 || len(out[0].Data) != VnetHdrLen+52+10*1448 {
		t.Fatalf("a 15-frame burst into a 10-frame bucket: %d dropped, %d pieces", m.Stats.PoliceDrops, len(out))
	}
	if out[0].Release != 10*12000 {
		t.Fatalf("release %d: what passes is not delayed beyond the shaper", out[0].Release)
	}
	// Offered at 24 Mbit/s (a frame every 0.5 ms) for 10 s: half passes.
	for i := 1; i <= 20000; i++ {
		m.Enqueue(superPacket(1, 1448, uint32(i), 0x10), int64(i)*500_000)
	}
	passed := m.Stats.Bytes - 10*frame
	if want := 12e6 / 8 * 10; math.Abs(float64(passed)-want) > 2*frame {
		t.Fatalf("%d bytes passed over 10 s, want the rate's %.0f", passed, want)
	}
	if m.Stats.QueueDrops != 0 || m.Stats.Drops() != m.Stats.PoliceDrops {
		t.Fatalf("stats %+v: a policer drops, it does not queue", m.Stats)
	}
	for _, c := range []Config{{Police: Policer{Rate: 1e6}}, {Police: Policer{Rate: 10, Burst: 1 << 20}}, {Police: Policer{Rate: -1}}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestGilbertElliott: losses come at P ÷ (P + R) in runs of 1 ÷ R
// segments on average (LossBad 1, LossGood 0), and the same seed gives
// the same losses.
func TestGilbertElliott(t *testing.T) {
	for _, c := range []struct{ p, r float64 }{{0.01, 0.25}, {0.001, 0.5}, {0.05, 0.1}} {
		run := func() Stats {
			m := New(Config{Bursty: GilbertElliott{P: c.p, R: c.r, LossBad: 1}}, 7)
			for i := range 40000 {
				m.Enqueue(superPacket(10, 64, uint32(i), 0x10), int64(i))
			}
			return m.Stats
		}
		st := run()
		rate, mean := float64(st.LossDrops)/float64(st.Segments), float64(st.LossDrops)/float64(st.LossRuns)
		wantRate, wantMean := c.p/(c.p+c.r), 1/c.r
		if math.Abs(rate-wantRate)/wantRate > 0.1 || math.Abs(mean-wantMean)/wantMean > 0.1 {
			t.Errorf("p %g r %g: loss %.4f in runs of %.2f, want %.4f in runs of %.2f", c.p, c.r, rate, mean, wantRate, wantMean)
		}
		if again := run(); again != st {
			t.Errorf("p %g r %g: the same seed lost differently", c.p, c.r)
		}
	}
	// Random loss comes in runs of about one.
	m := New(Config{Loss: 0.02}, 7)
	for i := range 40000 {
		m.Enqueue(superPacket(10, 64, uint32(i), 0x10), int64(i))
	}
	if mean := float64(m.Stats.LossDrops) / float64(m.Stats.LossRuns); mean > 1.05 {
		t.Errorf("random loss in runs of %.2f", mean)
	}
	for _, c := range []Config{{Bursty: GilbertElliott{P: 0.1}}, {Bursty: GilbertElliott{P: 2, R: 0.5}}, {Loss: 0.01, Bursty: GilbertElliott{P: 0.1, R: 0.5}}} {
		if c.Validate() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// TestCoDel: under a lasting overload a drop-tail queue's sojourn climbs
// to its limit; CoDel (5 ms, 100 ms) first drops an interval after the
// sojourn rose above its target, then at intervals of 100 ms ÷ √count
// (RFC 8289's control law), and never while the sojourn is below it.
func TestCoDel(t *testing.T) {
	const gap = 960_000 // ns between 1500-byte frames: 12.5 Mbit/s into a 10 Mbit/s link
	run := func(c CoDel, segs int64) (*Model, []int64) {
		m := New(Config{Rate: 10e6, Queue: 1250000, CoDel: c}, 1) // a 1 s queue
		var drops []int64
		for i := int64(0); i < segs; i++ {
			before, head := m.Stats.CoDelDrops, max(m.freeAt, i*gap)
			m.Enqueue(superPacket(1, 1448, uint32(i), 0x10), i*gap)
			if m.Stats.CoDelDrops > before {
				drops = append(drops, head) // when it reached the head
			}
		}
		return m, drops
	}
	if m, _ := run(CoDel{}, 5000); m.Stats.QueueDrops == 0 || m.Stats.MaxBacklog < 1200000 {
		t.Fatalf("drop-tail: %+v, want the 1 s queue full", m.Stats)
	}
	_, drops := run(CoDel{Target: 5e6, Interval: 100e6}, 1042) // a second
	// The sojourn passes 5 ms when 6,250 bytes queue (2.5 Mbit/s
	// excess: 20 ms of arrivals, at the head 25 ms in); the first drop is
	// an interval later, the next ones at the control law's times, in the
	// head's time.
	if len(drops) < 30 || math.Abs(float64(drops[0])/1e9-0.125) > 0.002 {
		t.Fatalf("CoDel drops at %v (head times, ns): want the first at 0.125 s and at least 30 in the second", drops)
	}
	for k := 1; k < len(drops); k++ { // a frame takes 1.2 ms: the law's times land on frames
		got, want := float64(drops[k]-drops[k-1])/1e9, 0.100/math.Sqrt(float64(k))
		if math.Abs(got-want) > 0.0015 {
			t.Errorf("drop %d: %.4f s after the last, the law says %.4f", k, got, want)
		}
	}
	if _, none := run(CoDel{Target: 5e6, Interval: 100e6}, 20); len(none) != 0 { // 20 ms: the sojourn never passes 5 ms for long
		t.Errorf("drops %v below the target", none)
	}
	if (Config{CoDel: CoDel{Target: 5e6, Interval: 1e6}}).Validate() == nil {
		t.Error("an interval below the target accepted")
	}
}

// TestJitter: the one-way delay varies as the distribution says
// (uniform ±A, normal σ A, pareto σ A with a long tail), and packets
// close together keep their order.
func TestJitter(t *testing.T) {
	const delay, amount = 10e6, 2e6
	for _, c := range []struct {
		dist          string
		sigma, tailAt float64 // σ, and a delay only a long tail reaches
	}{
		{"uniform", amount / math.Sqrt(3), 0}, {"normal", amount, 0}, {"pareto", amount, delay + 6*amount},
	} {
		m := New(Config{Delay: delay, Jitter: Jitter{Amount: amount, Dist: c.dist}}, 3)
		var sum, sq, most float64
		const n = 20000
		for i := range int64(n) {
			now := i * 1e8 // 100 ms apart: order never binds
			d := float64(m.Enqueue(superPacket(1, 64, uint32(i), 0x10), now)[0].Release - now)
			sum, sq, most = sum+d, sq+d*d, max(most, d)
		}
		mean := sum / n
		sigma := math.Sqrt(sq/n - mean*mean)
		t.Logf("%s: mean %.2f ms, σ %.2f ms, max %.2f ms", c.dist, mean/1e6, sigma/1e6, most/1e6)
		if math.Abs(mean-delay) > 0.05*delay || math.Abs(sigma-c.sigma)/c.sigma > 0.1 {
			t.Errorf("%s: mean %.2f ms σ %.2f ms, want 10 ms and %.2f ms", c.dist, mean/1e6, sigma/1e6, c.sigma/1e6)
		}
		if c.dist == "uniform" && most > delay+amount || c.tailAt > 0 && most < c.tailAt {
			t.Errorf("%s: the longest delay %.2f ms", c.dist, most/1e6)
		}
	}
	m := New(Config{Delay: delay, Jitter: Jitter{Amount: 5e6, Dist: "normal"}}, 3)
	last := int64(0)
	for i := range int64(10000) {
		r := m.Enqueue(superPacket(1, 64, uint32(i), 0x10), i*1e5)[0].Release // 0.1 ms apart
		if r < last {
			t.Fatalf("packet %d overtook the one before", i)
		}
		last = r
	}
	if (Config{Jitter: Jitter{Amount: 1e6, Dist: "gamma"}}).Validate() == nil {
		t.Error("an unknown distribution accepted")
	}
}

// TestJitterOvertakes: with Overtake, a packet drawn a shorter delay
// leaves before the one ahead, and the relay must write out of order.
func TestJitterOvertakes(t *testing.T) {
	m := New(Config{Delay: 10e6, Jitter: Jitter{Amount: 5e6, Dist: "normal", Overtake: true}}, 3)
	if !m.Reorders() {
		t.Fatal("an overtaking jitter does not reorder")
	}
	last, overtaken := int64(0), 0
	for i := range int64(1000) {
		r := m.Enqueue(superPacket(1, 64, uint32(i), 0x10), i*1e5)[0].Release
		if r < last {
			overtaken++
		}
		last = r
	}
	if overtaken < 100 {
		t.Errorf("%d of 1000 packets 0.1 ms apart left before the one ahead, with σ 5 ms", overtaken)
	}
}
