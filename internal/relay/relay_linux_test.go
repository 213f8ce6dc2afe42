package relay

import (
	"context"
	"encoding/binary"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tcptune/tcptune/internal/linkem"
)

// memDev is an in-memory Device: the test puts packets in (as a host
// sending into its TUN device) and takes the relay's writes out, stamped
// with the relay's clock.
type memDev struct {
	in     chan []byte
	out    chan arrival
	closed chan struct{}
	once   sync.Once
}

type arrival struct {
	pkt []byte
	at  int64 // Now() at the write
}

func newMemDev() *memDev {
	return &memDev{in: make(chan []byte, 1<<14), out: make(chan arrival, 1<<14), closed: make(chan struct{})}
}

func (d *memDev) Read(p []byte) (int, error) {
	select {
	case b := <-d.in:
		return copy(p, b), nil
	case <-d.closed:
		return 0, os.ErrClosed
	}
}

func (d *memDev) Write(p []byte) (int, error) {
	d.out <- arrival{append([]byte(nil), p...), Now()}
	return len(p), nil
}

func (d *memDev) Close() error { d.once.Do(func() { close(d.closed) }); return nil }

// packet is a plain (non-GSO) packet of wire bytes carrying seq.
func packet(seq uint32, wire int) []byte {
	b := make([]byte, linkem.VnetHdrLen+wire)
	binary.BigEndian.PutUint32(b[linkem.VnetHdrLen+20:], seq)
	return b
}

func seqOf(b []byte) uint32 { return binary.BigEndian.Uint32(b[linkem.VnetHdrLen+20:]) }

// link runs a relay between two memDevs with cfg from a to b (and an
// unlimited link back); stop ends it and returns Run's error.
func link(t *testing.T, cfg linkem.Config) (a, b *memDev, r *Relay, stop func() error) {
	t.Helper()
	a, b = newMemDev(), newMemDev()
	r = New(a, b, cfg, linkem.Config{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return after its context ended")
			}
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return a, b, r, stop
}

// collect takes n packets from d, failing after a generous deadline.
func collect(t *testing.T, d *memDev, n int) []arrival {
	t.Helper()
	var got []arrival
	deadline := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case a := <-d.out:
			got = append(got, a)
		case <-deadline:
			t.Fatalf("%d of %d packets arrived", len(got), n)
		}
	}
	return got
}

// quiet checks that nothing more arrives for a while.
func quiet(t *testing.T, d *memDev) {
	t.Helper()
	select {
	case a := <-d.out:
		t.Fatalf("unexpected packet %d", seqOf(a.pkt))
	case <-time.After(100 * time.Millisecond):
	}
}

// Delay: every packet arrives intact, in order, and never before its
// one-way delay; the other direction is not delayed by it.
func TestRelayDelay(t *testing.T) {
	const delay = 20 * time.Millisecond
	a, b, _, stop := link(t, linkem.Config{Delay: int64(delay)})
	sent := map[uint32]int64{}
	for i := range uint32(10) {
		sent[i] = Now()
		a.in <- packet(i, 1500)
		time.Sleep(2 * time.Millisecond)
	}
	got := collect(t, b, 10)
	for i, g := range got {
		if s := seqOf(g.pkt); s != uint32(i) || len(g.pkt) != linkem.VnetHdrLen+1500 {
			t.Fatalf("packet %d: seq %d, %d bytes", i, s, len(g.pkt))
		}
		if early := int64(delay) - (g.at - sent[uint32(i)]); early > 0 {
			t.Errorf("packet %d arrived %v early", i, time.Duration(early))
		}
	}
	b.in <- packet(99, 100)
	if back := collect(t, a, 1); seqOf(back[0].pkt) != 99 {
		t.Fatal("the way back lost its packet")
	}
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// Rate: a burst leaves at the link's rate, never faster: packet k
// cannot arrive before k+1 packets' serialisation time after the burst
// began; and the counters count the wire bytes.
func TestRelayRate(t *testing.T) {
	const rate, wire, n = 10e6, 1250, 100 // 1 ms a packet
	a, b, r, _ := link(t, linkem.Config{Rate: rate})
	start := Now()
	for i := range uint32(n) {
		a.in <- packet(i, wire)
	}
	got := collect(t, b, n)
	for k, g := range got {
		due := start + int64(float64((k+1)*wire*8)/rate*1e9)
		if g.at < due {
			t.Fatalf("packet %d arrived %v before the link could carry it", k, time.Duration(due-g.at))
		}
	}
	ab, _ := r.Stats()
	if ab.Packets != n || ab.Bytes != n*wire || ab.Drops() != 0 {
		t.Fatalf("stats %+v", ab.Stats)
	}
}

// Loss: what arrives is what the model did not drop, and the drops are
// about the configured share.
func TestRelayLoss(t *testing.T) {
	const n = 2000
	a, b, r, _ := link(t, linkem.Config{Loss: 0.1})
	for i := range uint32(n) {
		a.in <- packet(i, 100)
	}
	var ab DirStats
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ab, _ = r.Stats(); ab.Packets == n && ab.Writes == n-ab.LossDrops {
			break
		}
	}
	if ab.LossDrops < 140 || ab.LossDrops > 260 {
		t.Fatalf("%d of %d dropped at 10%% loss", ab.LossDrops, n)
	}
	got := collect(t, b, int(n-ab.LossDrops))
	for i := 1; i < len(got); i++ {
		if seqOf(got[i].pkt) <= seqOf(got[i-1].pkt) {
			t.Fatal("reordered")
		}
	}
	quiet(t, b)
}

// Queue: a burst beyond the drop-tail queue loses its tail, counted as
// queue drops, and what was queued arrives. The link is slow (60 ms a
// packet) so the burst is in before the first packet leaves; if a slow
// machine (-race) stretches the burst past that, each packet that left
// meanwhile lets one more of the tail in, and the test allows for it.
func TestRelayQueueDrops(t *testing.T) {
	const n, wire, queue, rate = 50, 1500, 16000, 2e5
	perPacket := time.Duration(wire * 8 / rate * 1e9)
	a, b, r, _ := link(t, linkem.Config{Rate: rate, Queue: queue})
	begin := time.Now()
	for i := range uint32(n) {
		a.in <- packet(i, wire)
	}
	var ab DirStats
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ab, _ = r.Stats(); ab.Packets == n {
			break
		}
	}
	burst := time.Since(begin) // an upper bound on how long the burst took
	left := int(burst / perPacket)
	head := queue / wire // what the queue holds (the packet on the wire may count or not)
	kept := n - int(ab.QueueDrops)
	if ab.QueueDrops == 0 || kept < head || kept > head+1+left || ab.MaxBacklog > queue {
		t.Fatalf("queue of %d bytes, burst in %v: %d dropped, %d kept, backlog up to %d", queue, burst, ab.QueueDrops, kept, ab.MaxBacklog)
	}
	got := collect(t, b, kept)
	for i, g := range got {
		if i < head && seqOf(g.pkt) != uint32(i) {
			t.Fatalf("kept packet %d is %d: drop-tail keeps the head of a burst", i, seqOf(g.pkt))
		}
		if i > 0 && seqOf(g.pkt) <= seqOf(got[i-1].pkt) {
			t.Fatalf("kept packet %d is %d after %d: reordered", i, seqOf(g.pkt), seqOf(got[i-1].pkt))
		}
	}
	quiet(t, b)
}

// Reordering: a held-back packet arrives after the ones sent behind it,
// each no earlier than its own release; none is lost.
func TestRelayReordering(t *testing.T) {
	const delay, gap = 10 * time.Millisecond, 5 * time.Millisecond
	a, b, r, _ := link(t, linkem.Config{Delay: int64(delay), Reorder: linkem.Reorder{Share: 0.2, Gap: int64(gap)}})
	const n = 200
	for i := range uint32(n) {
		a.in <- packet(i, 1500)
		time.Sleep(200 * time.Microsecond)
	}
	got := collect(t, b, n)
	overtaken, seen := 0, map[uint32]bool{}
	for i, g := range got {
		s := seqOf(g.pkt)
		seen[s] = true
		if i > 0 && s < seqOf(got[i-1].pkt) {
			overtaken++
		}
	}
	held := r.AB.stats().HeldBack
	t.Logf("%d held back, %d arrived after a later one", held, overtaken)
	if len(seen) != n || held == 0 || overtaken == 0 || uint64(overtaken) > held {
		t.Errorf("%d distinct of %d, %d held back, %d overtaken", len(seen), n, held, overtaken)
	}
	quiet(t, b)
}

// Now is CLOCK_MONOTONIC, whose absolute times the writer's timerfd
// takes: within a few microseconds behind the kernel's reading, never
// ahead of it (a packet never leaves early), however long the process
// has run.
func TestNowIsClockMonotonic(t *testing.T) {
	for i := 0; i < 5; i++ {
		var before, after unix.Timespec
		unix.ClockGettime(unix.CLOCK_MONOTONIC, &before)
		now := Now()
		unix.ClockGettime(unix.CLOCK_MONOTONIC, &after)
		if now < before.Nano()-5_000 || now > after.Nano() {
			t.Fatalf("Now %d outside CLOCK_MONOTONIC's [%d − 5 µs, %d]", now, before.Nano(), after.Nano())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
