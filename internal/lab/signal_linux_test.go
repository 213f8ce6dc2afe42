package lab

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
)

type sigCause struct{ s os.Signal }

func (c sigCause) Signal() os.Signal { return c.s }
func (c sigCause) Error() string     { return c.s.String() }

// lab run's command gets the signal that ended the caller's context (the
// CLI puts it in the cause), SIGTERM for any other end.
func TestCauseSignal(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("ended: %w", sigCause{syscall.SIGHUP}))
	if got := causeSignal(ctx); got != syscall.SIGHUP {
		t.Errorf("a wrapped signal cause: %v, want hangup", got)
	}
	ctx, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if got := causeSignal(ctx); got != syscall.SIGTERM {
		t.Errorf("a plain cancel: %v, want terminated", got)
	}
}
