package tune

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tcptune/tcptune/internal/units"
)

// Printer shows tune's progress: stage lines, and per trial a progress
// bar redrawn in place on a terminal, then the trial's result line.
type Printer struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	stop  chan struct{}
	done  chan struct{}
	label string
}

// NewPrinter writes to w; tty enables the redrawn bars.
func NewPrinter(w io.Writer, tty bool) *Printer { return &Printer{w: w, tty: tty} }

// Stage prints one line about what comes next.
func (p *Printer) Stage(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "==> "+format+"\n", args...)
}

// TrialStart starts the bar of one trial.
func (p *Printer) TrialStart(label string, expected time.Duration) {
	p.label = label
	if !p.tty {
		return
	}
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			p.mu.Lock()
			fmt.Fprintf(p.w, "\r\033[K    %s %s", bar(time.Since(start), expected, 24), label)
			p.mu.Unlock()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}(p.stop, p.done)
}

// bar draws elapsed out of expected as [#####.....] 3.2/6.0 s.
func bar(elapsed, expected time.Duration, width int) string {
	f := min(elapsed.Seconds()/max(expected.Seconds(), 0.001), 1)
	n := int(f * float64(width))
	return fmt.Sprintf("[%s%s] %4.1f/%.1f s", strings.Repeat("#", n), strings.Repeat(".", width-n), elapsed.Seconds(), expected.Seconds())
}

// TrialEnd replaces the bar with the result.
func (p *Printer) TrialEnd(t Trial, err error) {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintf(p.w, "    %s: failed: %v\n", p.label, err)
		return
	}
	line := fmt.Sprintf("    %s: %s", p.label, units.FormatRateShort(t.BitsPerSecond))
	if t.Limit != "" {
		line += " (" + t.Limit + ")"
	}
	fmt.Fprintln(p.w, line)
}
