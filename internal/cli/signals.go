package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"unicode"
)

// signalCause is the cause of a context cancelled by a signal; it prints
// as iperf3 names signals ("Terminated(15)").
type signalCause struct{ sig os.Signal }

func (c signalCause) Signal() os.Signal { return c.sig }

func (c signalCause) Error() string {
	name := []rune(c.sig.String())
	if len(name) > 0 {
		name[0] = unicode.ToUpper(name[0])
	}
	if n, ok := c.sig.(syscall.Signal); ok {
		return fmt.Sprintf("%s(%d)", string(name), int(n))
	}
	return string(name)
}

// notifyContext is signal.NotifyContext with the signal as the cause.
func notifyContext(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(signalCause{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}

// endedBySignal is an error that ended a run as the user asked: it is
// printed, and the exit status is 0 (iperf3 3.19+ on INT, TERM and HUP).
type endedBySignal struct{ error }
