// Package sigctx ends a command the way its user asked, so that what
// it changed is undone: a context cancelled by a signal, with the signal
// as its cause (named as iperf3 names it), and by a closed output.
package sigctx

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"unicode"
)

// Cause is the cause of a context cancelled by a signal; it prints
// as iperf3 names signals ("Terminated(15)").
type Cause struct{ sig os.Signal }

func (c Cause) Signal() os.Signal { return c.sig }

func (c Cause) Error() string {
	name := []rune(c.sig.String())
	if len(name) > 0 {
		name[0] = unicode.ToUpper(name[0])
	}
	if n, ok := c.sig.(syscall.Signal); ok {
		return fmt.Sprintf("%s(%d)", string(name), int(n))
	}
	return string(name)
}

// Notify is signal.NotifyContext with the signal as the cause.
func Notify(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(Cause{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}

// ClosedOutput makes a closed stdout or stderr ("tune … | head -3") end
// the command as Ctrl-C does, so that what it changed is undone: SIGPIPE
// is ignored (a write then fails with EPIPE instead of killing the
// process before its deferred clean-up), and the first failed write
// cancels the returned context. It is for commands that change a host;
// others keep the default, dying quietly as iperf3 does.
func ClosedOutput(ctx context.Context, stdout, stderr io.Writer) (context.Context, io.Writer, io.Writer, context.CancelFunc) {
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
