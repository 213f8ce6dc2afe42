package relay

import (
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tcptune/tcptune/internal/linkem"
)

// Now is CLOCK_MONOTONIC in ns, the clock of the model and of the
// timerfd's absolute times. It reads Go's monotonic clock, which the
// vDSO serves without a system call, from the offset epoch took once:
// unix.ClockGettime makes a system call each time, and the writer reads
// the clock in its spin before every release (half the relay's CPU at
// 2.5 Gbit/s went to those calls).
func Now() int64 { return epoch.mono + int64(time.Since(epoch.at)) }

// epoch pairs a reading of Go's clock with the CLOCK_MONOTONIC reading
// just before it (the runtime's monotonic clock is CLOCK_MONOTONIC on
// Linux, so the offset holds): of several tries, the pair read closest
// together, since a thread descheduled between the two readings would
// shift every release by as long. Taking the reading before, Now is
// never ahead of CLOCK_MONOTONIC, so a packet never leaves early.
var epoch = func() (e struct {
	at   time.Time
	mono int64
}) {
	gap := int64(math.MaxInt64)
	for range 16 {
		var before, after unix.Timespec
		unix.ClockGettime(unix.CLOCK_MONOTONIC, &before)
		at := time.Now()
		unix.ClockGettime(unix.CLOCK_MONOTONIC, &after)
		if g := after.Nano() - before.Nano(); g < gap {
			gap, e.at, e.mono = g, at, before.Nano()
		}
	}
	return e
}()

// direction moves packets from in to out through one model.
type direction struct {
	in, out Device
	q       chan item

	mu    sync.Mutex
	model *linkem.Model
	st    DirStats
	seq   uint64 // pieces read (the reader's)
}

// Relay is a running link.
type Relay struct {
	AB, BA *direction
}

// spinNS is how long before a release the writer stops sleeping and
// spins: as long as waking from the timerfd takes on an idle machine
// (a 2-vCPU VM: 42 µs median, 66 µs p99), and no longer. Where releases
// come closer than the spin (1 Gbit/s and up) the writer spins between
// every two, and a longer spin takes the core the endpoints' TCP needs:
// at 2.5 Gbit/s × 20 ms a 250 µs spin kept the relay 0.38–0.41 ms
// behind with 1.17 cores busy, 100 µs 0.01–0.03 ms with 0.99, at the
// same RTT accuracy at 1–200 ms (bench/lab.sh; docs/lab.md).
const spinNS = 100_000

// item is a piece on its way out; buf, if set, goes back to the pool
// after the write.
type item struct {
	linkem.Piece
	buf *[]byte
	seq uint64 // arrival order, for pieces released at once
}

// bufPool recycles read buffers: a 64 KB allocation per super-packet
// would keep the garbage collector busy at multi-Gbit/s.
var bufPool = sync.Pool{New: func() any { b := make([]byte, linkem.VnetHdrLen+65535+64); return &b }}

// ringSize bounds packets in flight per direction (the model's byte
// queue is the real limit; this only guards memory).
const ringSize = 1 << 16

// New prepares a relay between a and b with a model per direction.
func New(a, b Device, ab, ba linkem.Config, seed uint64) *Relay {
	mk := func(in, out Device, c linkem.Config, s uint64) *direction {
		return &direction{in: in, out: out, q: make(chan item, ringSize), model: linkem.New(c, s),
			st: DirStats{Late: make([]uint64, len(LateBuckets)+1)}}
	}
	return &Relay{AB: mk(a, b, ab, seed), BA: mk(b, a, ba, seed+1)}
}

// Run forwards until ctx ends or a device fails.
func (r *Relay) Run(ctx context.Context) error {
	errc := make(chan error, 4)
	var readers, writers sync.WaitGroup
	for _, d := range []*direction{r.AB, r.BA} {
		readers.Add(1)
		writers.Add(1)
		go func(d *direction) { defer readers.Done(); errc <- d.read(ctx) }(d)
		go func(d *direction) { defer writers.Done(); errc <- d.write(ctx) }(d)
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	// Readers stop when their device closes; only then may the queues
	// close, and the writers drain what is due.
	r.AB.in.Close()
	r.BA.in.Close()
	readers.Wait()
	close(r.AB.q)
	close(r.BA.q)
	writers.Wait()
	if errors.Is(err, os.ErrClosed) {
		err = nil
	}
	return err
}

// Stats returns both directions' counters.
func (r *Relay) Stats() (ab, ba DirStats) { return r.AB.stats(), r.BA.stats() }

func (d *direction) stats() DirStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.st
	s.Stats = d.model.Stats
	s.Late = append([]uint64(nil), d.st.Late...)
	return s
}

func (d *direction) read(ctx context.Context) error {
	for {
		bp := bufPool.Get().(*[]byte)
		n, err := d.in.Read(*bp)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, os.ErrClosed) {
				return nil
			}
			return fmt.Errorf("tun read: %w", err)
		}
		pkt := (*bp)[:n]
		d.mu.Lock()
		var pieces []linkem.Piece
		fits, frags, reply := d.model.Admit(pkt)
		if fits {
			pieces = d.model.Enqueue(pkt, Now())
		}
		for _, f := range frags {
			pieces = append(pieces, d.model.Enqueue(f, Now())...)
		}
		d.mu.Unlock()
		if reply != nil {
			// A router's answer goes back to the sender at once.
			d.in.Write(reply)
		}
		kept := false
		for _, p := range pieces {
			d.seq++
			it := item{Piece: p, seq: d.seq}
			if &p.Data[0] == &pkt[0] { // forwarded whole: the buffer travels
				it.buf, kept = bp, true
			}
			select {
			case d.q <- it:
			default:
				d.mu.Lock()
				d.model.Stats.RingDrops++
				d.mu.Unlock()
				if it.buf != nil {
					kept = false
				}
			}
		}
		if !kept {
			bufPool.Put(bp)
		}
	}
}

// put writes a piece out and counts it; false once the relay is ending
// and the device refuses.
func (d *direction) put(ctx context.Context, p item) bool {
	late := (Now() - p.Release) / 1000
	_, werr := d.out.Write(p.Data)
	if p.buf != nil {
		bufPool.Put(p.buf)
	}
	d.mu.Lock()
	d.st.Writes++
	if werr != nil {
		d.st.WriteEr++
	}
	late = max(late, 0)
	i := 0
	for i < len(LateBuckets) && late >= LateBuckets[i] {
		i++
	}
	d.st.Late[i]++
	d.st.LateSum += late
	d.st.LateMax = max(d.st.LateMax, late)
	d.mu.Unlock()
	return werr == nil || ctx.Err() == nil
}

// writeOutOfOrder is write for a model whose packets overtake one
// another: it keeps the pieces waiting in order of their release, and a
// piece that arrives due before the one it waits for goes first.
func (d *direction) writeOutOfOrder(ctx context.Context) error {
	h := &releaseHeap{}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		if h.Len() == 0 {
			p, ok := <-d.q
			if !ok {
				return nil
			}
			heap.Push(h, p)
			continue
		}
		next := (*h)[0]
		if wait := next.Release - spinNS - Now(); wait > 0 {
			timer.Reset(time.Duration(wait))
			select {
			case p, ok := <-d.q:
				timer.Stop()
				if !ok {
					return nil
				}
				heap.Push(h, p)
				continue
			case <-timer.C:
			}
		}
		for Now() < next.Release {
			runtime.Gosched()
		}
		heap.Pop(h)
		if !d.put(ctx, next) {
			return nil
		}
	}
}

// releaseHeap orders pieces by release, the earlier come first in a tie.
type releaseHeap []item

func (h releaseHeap) Len() int { return len(h) }
func (h releaseHeap) Less(i, j int) bool {
	return h[i].Release < h[j].Release || h[i].Release == h[j].Release && h[i].seq < h[j].seq
}
func (h releaseHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *releaseHeap) Push(x any)   { *h = append(*h, x.(item)) }
func (h *releaseHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (d *direction) write(ctx context.Context) error {
	if d.model.Reorders() {
		return d.writeOutOfOrder(ctx)
	}
	tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("timerfd: %w", err)
	}
	timer := os.NewFile(uintptr(tfd), "timerfd")
	defer timer.Close()
	var tick [8]byte
	for p := range d.q {
		// Sleep on the timerfd until shortly before the release time,
		// then spin: waking a parked thread on this kind of machine
		// takes 100-300 µs, which would add to every one-way delay.
		if wake := p.Release - spinNS; wake > Now() {
			spec := unix.ItimerSpec{Value: unix.NsecToTimespec(wake)}
			if err := unix.TimerfdSettime(tfd, unix.TFD_TIMER_ABSTIME, &spec, nil); err != nil {
				return fmt.Errorf("timerfd_settime: %w", err)
			}
			if _, err := io.ReadFull(timer, tick[:]); err != nil {
				return fmt.Errorf("timerfd read: %w", err)
			}
			_ = binary.LittleEndian.Uint64(tick[:])
		}
		for Now() < p.Release {
			runtime.Gosched()
		}
		if !d.put(ctx, p) {
			return nil
		}
	}
	return nil
}
