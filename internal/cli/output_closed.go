package cli

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"sync"
	"syscall"
)

// closedOutput makes a closed stdout or stderr ("tune … | head -3") end
// the command as Ctrl-C does, so that what it changed is undone: SIGPIPE
// is ignored (a write then fails with EPIPE instead of killing the
// process before its deferred clean-up), and the first failed write
// cancels the returned context. It is for commands that change a host;
// others keep the default, dying quietly as iperf3 does.
func closedOutput(ctx context.Context, stdout, stderr io.Writer) (context.Context, io.Writer, io.Writer, context.CancelFunc) {
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(ctx)
	wrap := func(w io.Writer, name string) io.Writer {
		return &watchedWriter{w: w, fail: func(err error) { cancel(fmt.Errorf("%s closed: %w", name, err)) }}
	}
	return ctx, wrap(stdout, "standard output"), wrap(stderr, "standard error"), func() { cancel(nil) }
}

// watchedWriter reports its first write error, and drops what follows.
type watchedWriter struct {
	w    io.Writer
	fail func(error)
	once sync.Once
	err  error
}

func (w *watchedWriter) Write(b []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(b)
	if err != nil {
		w.err = err
		w.once.Do(func() { w.fail(err) })
	}
	return n, err
}
