package engine

import (
	"runtime"
	"sync"
)

// Thread budget. A stream on the raw path (rawio_linux.go) holds a
// locked OS thread blocked in the kernel, and GOMAXPROCS is raised by
// one for it. Threads are a bounded resource (a systemd unit's
// TasksMax, a pids cgroup), and a Go program that cannot create one
// aborts: so at most MaxRawPerTest streams of a test, and DefaultMaxRaw
// of the whole process, take the raw path; the others stay on the
// netpoller, which parks blocked I/O without a thread each.
const (
	DefaultMaxRaw = 64
	MaxRawPerTest = 32
)

// Procs is a process's budget of raw streams, and keeps GOMAXPROCS
// above the number of stream loops that may hold a processor while
// they block in the kernel, so the rest of the process (control
// connections, timers, the sampler) always has a processor to run on.
// One Procs serves a whole process: a server passes its own to every
// test; a Test without one makes a private one.
type Procs struct {
	mu   sync.Mutex
	base int // GOMAXPROCS when nothing is held
	held int
	max  int // raw streams at once, process-wide
	// setProcs sets GOMAXPROCS (runtime.GOMAXPROCS; a unit test's own,
	// so that the other tests' engines in its process cannot move it).
	setProcs func(int) int
}

// NewProcs records the current GOMAXPROCS as the base, with the default
// budget of raw streams.
func NewProcs() *Procs { return NewProcsMax(DefaultMaxRaw) }

// NewProcsMax is NewProcs with a budget of max raw streams.
func NewProcsMax(max int) *Procs {
	return &Procs{base: runtime.GOMAXPROCS(0), max: max, setProcs: runtime.GOMAXPROCS}
}

// Held is the number of raw streams running now.
func (p *Procs) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// Reserve grants up to n raw streams (at most MaxRawPerTest, and what
// the process's budget has left), raising GOMAXPROCS by as many until
// release is called.
func (p *Procs) Reserve(n int) (granted int, release func()) {
	p.mu.Lock()
	k := max(0, min(n, MaxRawPerTest, p.max-p.held))
	p.held += k
	if k > 0 {
		p.setProcs(p.base + p.held)
	}
	p.mu.Unlock()
	if k == 0 {
		return 0, func() {}
	}
	var once sync.Once
	return k, func() {
		once.Do(func() {
			p.mu.Lock()
			p.held -= k
			p.setProcs(p.base + p.held)
			p.mu.Unlock()
		})
	}
}
