package nsx

import (
	"fmt"
	"runtime"

	"github.com/vishvananda/netns"
)

// Do runs f on an OS thread inside the named namespace. An empty name
// runs f in the current namespace.
//
// The thread is moved back to its own namespace afterwards. That matters
// even though a goroutine that exits locked normally takes its thread
// with it: Go keeps the main thread alive instead, and a main thread left
// in another namespace makes the whole process look as if it ran there
// (/proc/PID/ns/net), so that "lab down" would kill it.
func Do(name string, f func() error) error {
	if name == "" {
		return f()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			errc <- fmt.Errorf("current namespace: %w", err)
			return // the thread exits with the goroutine
		}
		defer orig.Close()
		ns, err := netns.GetFromName(name)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("namespace %s: %w", name, err)
			return
		}
		defer ns.Close()
		if err := netns.Set(ns); err != nil {
			errc <- fmt.Errorf("enter namespace %s: %w", name, err)
			return
		}
		err = f()
		if netns.Set(orig) == nil {
			runtime.UnlockOSThread() // back home: the thread may be reused
		}
		errc <- err
	}()
	return <-errc
}
