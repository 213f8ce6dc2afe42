package watch

import (
	"context"
	"sync"
	"time"

	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/procnet"
	"github.com/tcptune/tcptune/internal/sockdiag"
)

// FlowConfig is what a run of flow events listens to and how it sums.
type FlowConfig struct {
	NetNS    string        // "" = this namespace
	Interval time.Duration // between dumps of live flows (their start and buffers)
	For      time.Duration // 0 = until the context ends
	GroupBy  GroupBy
	Filter   Filter
	// TargetBPS is the rate per flow the advice sizes buffers for.
	TargetBPS float64
	// Every is how often flows still open are judged and recorded (0 =
	// only at their end).
	Every time.Duration
	// Kernel is this host's release: the defaults the advice for its own
	// buffers stays above ("": the newest kernel's).
	Kernel string
}

// FlowRun holds a run's state; its methods are safe for concurrent use
// (a Prometheus scrape reads while the run adds).
type FlowRun struct {
	cfg      FlowConfig
	mu       sync.Mutex
	groups   Groups
	sum      Summary
	overruns func() uint64
}

// NewFlowRun prepares a run.
func NewFlowRun(cfg FlowConfig) *FlowRun {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.GroupBy == (GroupBy{}) {
		cfg.GroupBy = DefaultGroupBy
	}
	return &FlowRun{cfg: cfg, sum: Summary{KernelOpens: -1, TargetBPS: cfg.TargetBPS, Kernel: cfg.Kernel}, overruns: func() uint64 { return 0 }}
}

// Summary is the run so far.
func (r *FlowRun) Summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sum
	if s.End.IsZero() {
		s.End = time.Now() // a summary so far
	}
	s.Overruns = r.overruns()
	s.Groups = r.groups.Summary(r.cfg.TargetBPS, r.cfg.Kernel)
	return s
}

// FlowHandlers are what a run calls: Ready once it listens, Flow for
// each ended flow, Tick with the summary after each dump (each may be
// nil).
type FlowHandlers struct {
	Ready func()
	Flow  func(Flow) error
	Tick  func(Summary) error
}

// batchWait is how long the run lets notifications gather after a batch
// before it reads again: each wake-up costs more than the flows it
// reads, and the kernel queues them (the listener's 8 MiB buffer holds
// thousands) meanwhile.
const batchWait = 100 * time.Millisecond

// Run listens for ending flows until ctx ends or cfg.For has passed,
// dumping live flows every interval, and returns the summary.
func (r *FlowRun) Run(ctx context.Context, h FlowHandlers) (Summary, error) {
	l, err := sockdiag.Listen(r.cfg.NetNS, 0)
	if err != nil {
		return Summary{}, err
	}
	defer l.Close()
	opens0, okOpens := kernelOpens(r.cfg.NetNS)
	tr := &Tracker{GroupOf: r.cfg.GroupBy.Of, Every: r.cfg.Every}
	start := time.Now()
	r.mu.Lock()
	r.overruns, r.sum.Start = l.Overruns, start
	r.mu.Unlock()

	add := func(f Flow) error {
		r.mu.Lock()
		r.groups.Add(f)
		if !f.Open {
			r.sum.Flows++
			if f.Judged {
				r.sum.Judged++
			}
		}
		r.mu.Unlock()
		if h.Flow != nil {
			return h.Flow(f)
		}
		return nil
	}
	handle := func(socks []sockdiag.Socket) error {
		at := time.Now()
		for _, s := range socks {
			if !r.cfg.Filter.Match(s) {
				continue
			}
			if f, ok := tr.End(at, s); ok {
				if err := add(f); err != nil {
					return err
				}
			}
		}
		return nil
	}
	dump := func() error {
		socks, err := sockdiag.Dump(r.cfg.NetNS)
		if err != nil {
			return err
		}
		kept := socks[:0]
		for _, s := range socks {
			if r.cfg.Filter.Match(s) {
				kept = append(kept, s)
			}
		}
		for _, f := range tr.Sample(time.Now(), kept) {
			if err := add(f); err != nil {
				return err
			}
		}
		return nil
	}
	if err := dump(); err != nil {
		return Summary{}, err
	}
	if h.Ready != nil {
		h.Ready()
	}
	next := start.Add(r.cfg.Interval)
	for {
		if ctx.Err() != nil || r.cfg.For > 0 && time.Since(start) >= r.cfg.For {
			break
		}
		socks, err := l.Next()
		if err == nil {
			err = handle(socks)
		}
		if err != nil {
			return r.Summary(), err
		}
		if time.Now().After(next) {
			next = time.Now().Add(r.cfg.Interval)
			if err := dump(); err != nil {
				return r.Summary(), err
			}
			if h.Tick != nil {
				if err := h.Tick(r.Summary()); err != nil {
					return r.Summary(), err
				}
			}
		}
		if len(socks) > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(batchWait):
			}
		}
	}
	// The kernel sends a socket's notification from a work queue after
	// it is freed: take what flows that ended before the end still have
	// on the way (Next waits up to 200 ms for one).
	for {
		socks, err := l.Next()
		if err == nil {
			err = handle(socks)
		}
		if err != nil {
			return r.Summary(), err
		}
		if len(socks) == 0 {
			break
		}
	}
	r.mu.Lock()
	r.sum.End, r.sum.Open = time.Now(), tr.Open()
	if opens1, ok := kernelOpens(r.cfg.NetNS); ok && okOpens {
		r.sum.KernelOpens = opens1 - opens0
	}
	r.mu.Unlock()
	return r.Summary(), nil
}

// kernelOpens is the namespace's Tcp ActiveOpens + PassiveOpens.
func kernelOpens(netns string) (int64, bool) {
	var n int64
	err := nsx.Do(netns, func() error {
		c, err := procnet.FS{Root: "/", NetDir: "proc/thread-self/net"}.Counters()
		if err != nil {
			return err
		}
		n = c.Get("Tcp.ActiveOpens") + c.Get("Tcp.PassiveOpens")
		return nil
	})
	return n, err == nil
}
