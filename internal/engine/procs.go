package engine

import (
	"runtime"
	"sync"
)

// Procs keeps GOMAXPROCS above the number of stream loops that may hold
// a processor while they block in the kernel (rawio_linux.go), so the
// rest of the process (control connections, timers, the sampler) always
// has a processor to run on. One Procs serves a whole process: a server
// passes its own to every test; a Test without one makes a private one.
type Procs struct {
	mu   sync.Mutex
	base int // GOMAXPROCS when nothing is held
	held int
}

// NewProcs records the current GOMAXPROCS as the base.
func NewProcs() *Procs { return &Procs{base: runtime.GOMAXPROCS(0)} }

// Reserve raises GOMAXPROCS by n until release is called.
func (p *Procs) Reserve(n int) (release func()) {
	if n <= 0 {
		return func() {}
	}
	p.mu.Lock()
	p.held += n
	runtime.GOMAXPROCS(p.base + p.held)
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.held -= n
			runtime.GOMAXPROCS(p.base + p.held)
			p.mu.Unlock()
		})
	}
}
