package sigctx

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
)

// A signal's cause prints as iperf3 names it.
func TestCauseNamesTheSignal(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		want string
	}{{syscall.SIGTERM, "Terminated(15)"}, {syscall.SIGINT, "Interrupt(2)"}} {
		if got := (Cause{c.sig}).Error(); got != c.want {
			t.Errorf("%v: %q, want %q", c.sig, got, c.want)
		}
	}
}

type failing struct{ n int }

func (f *failing) Write(b []byte) (int, error) {
	f.n++
	return 0, syscall.EPIPE
}

// The first failed write cancels the context with the closed output as
// its cause, and what follows is dropped without another write.
func TestClosedOutputCancels(t *testing.T) {
	var errw bytes.Buffer
	out := &failing{}
	ctx, stdout, stderr, done := ClosedOutput(context.Background(), out, &errw)
	defer done()
	stderr.Write([]byte("progress\n"))
	if ctx.Err() != nil || errw.String() != "progress\n" {
		t.Fatalf("a good write ended the context: %v", ctx.Err())
	}
	stdout.Write([]byte("a"))
	stdout.Write([]byte("b"))
	if ctx.Err() == nil || !errors.Is(context.Cause(ctx), syscall.EPIPE) || !strings.Contains(context.Cause(ctx).Error(), "standard output closed") {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	if out.n != 1 {
		t.Errorf("%d writes to a closed output, want 1", out.n)
	}
}
