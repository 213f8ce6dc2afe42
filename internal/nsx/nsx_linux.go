package nsx

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
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

// Identity names the network namespace called name ("" the caller's)
// by its inode, as the kernel shows it ("net:[4026531840]"): two
// processes are in one namespace when their identities are equal. A
// name is looked up where "ip netns" binds it, /run/netns/NAME.
func Identity(name string) (string, error) {
	p := "/proc/self/ns/net"
	if name != "" {
		p = filepath.Join(netnsDir, name)
	}
	return identityOf(p)
}

// netnsDir is where "ip netns add" binds the namespaces it names.
const netnsDir = "/run/netns"

func identityOf(p string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return "", fmt.Errorf("network namespace: %w", err)
	}
	return fmt.Sprintf("net:[%d]", st.Ino), nil
}

// Init is the identity of the namespace of process 1 (the host's, on a
// host): it outlives a reboot with the same identity.
func Init() string {
	id, _ := identityOf("/proc/1/ns/net")
	return id
}

// NameOf is the name "ip netns" gave the namespace with identity id
// ("" when it has none).
func NameOf(id string) string {
	es, err := os.ReadDir(netnsDir)
	if err != nil {
		return ""
	}
	for _, e := range es {
		if got, err := identityOf(filepath.Join(netnsDir, e.Name())); err == nil && got == id {
			return e.Name()
		}
	}
	return ""
}
