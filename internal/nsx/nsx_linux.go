package nsx

import (
	"fmt"
	"runtime"

	"github.com/vishvananda/netns"
)

// Do runs f on an OS thread inside the named namespace. An empty name
// runs f in the current namespace.
func Do(name string, f func() error) error {
	if name == "" {
		return f()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		ns, err := netns.GetFromName(name)
		if err != nil {
			errc <- fmt.Errorf("namespace %s: %w", name, err)
			return
		}
		defer ns.Close()
		if err := netns.Set(ns); err != nil {
			errc <- fmt.Errorf("enter namespace %s: %w", name, err)
			return
		}
		errc <- f()
	}()
	return <-errc
}
