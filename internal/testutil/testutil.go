// Package testutil holds helpers for tests that need real peers (iperf3),
// the built binary, root, namespaces or TUN. Under TCPTUNE_REQUIRE_PRIV=1
// (CI) a missing requirement fails the test instead of skipping it.
package testutil

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Required reports whether skips of privileged tests are failures.
func Required() bool { return os.Getenv("TCPTUNE_REQUIRE_PRIV") == "1" }

// Need skips (or, in CI, fails) the test when ok is false.
func Need(t testing.TB, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if Required() {
		t.Fatalf("required by TCPTUNE_REQUIRE_PRIV=1 but unavailable: %s", why)
	}
	t.Skip(why)
}

// NeedRoot requires root (CAP_NET_ADMIN) on Linux.
func NeedRoot(t testing.TB) {
	t.Helper()
	Need(t, runtime.GOOS == "linux" && os.Geteuid() == 0, "needs root on Linux")
}

// NeedIperf3 returns the path of iperf3.
func NeedIperf3(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("iperf3")
	Need(t, err == nil, "iperf3 is not installed (make deps)")
	return p
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// Binary builds cmd/tcptune once per test process and returns its path:
// .cache/testbin/<test binary>/tcptune under the module root, replaced by
// a rename on each run, so that runs leave no temporary directories.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir := filepath.Join(ModuleRoot(), ".cache", "testbin", filepath.Base(os.Args[0]))
		if buildErr = os.MkdirAll(dir, 0o755); buildErr != nil {
			return
		}
		binPath = filepath.Join(dir, "tcptune")
		tmp := fmt.Sprintf("%s.%d", binPath, os.Getpid())
		cmd := exec.Command("go", "build", "-o", tmp, "./cmd/tcptune")
		cmd.Dir = ModuleRoot()
		if buildOut, buildErr = cmd.CombinedOutput(); buildErr != nil {
			os.Remove(tmp)
			return
		}
		buildErr = os.Rename(tmp, binPath)
	})
	if buildErr != nil {
		t.Fatalf("build tcptune: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

// ModuleRoot finds the repository root from the working directory.
func ModuleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago
// and whose UDP twin is free too.
func FreePort(t testing.TB) int {
	t.Helper()
	for i := 0; i < 50; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		u, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no free port")
	return 0
}

// Proc is a background process that the test kills at cleanup.
type Proc struct {
	Cmd    *exec.Cmd
	Stdout bytes.Buffer
	Stderr bytes.Buffer
	done   chan struct{}
}

// Start runs name args in the background; it is killed when the test ends.
func Start(t testing.TB, name string, args ...string) *Proc {
	t.Helper()
	p := &Proc{Cmd: exec.Command(name, args...), done: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = &p.Stdout, &p.Stderr
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Cmd.Process.Kill()
		<-p.done
	})
	return p
}

// Wait waits for the process to exit, up to d.
func (p *Proc) Wait(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// WaitListening waits until something accepts TCP connections on port.
func WaitListening(t testing.TB, port int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing listens on port %d", port)
}

// TCPPair is a connected loopback TCP pair, closed when the test ends.
func TCPPair(t testing.TB) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() { c, _ := ln.Accept(); acc <- c }()
	cc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sc := <-acc
	if sc == nil {
		cc.Close()
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { cc.Close(); sc.Close() })
	return cc, sc
}

// WaitListeningPID waits until process pid listens on TCP port, read
// from /proc/PID/net/tcp{,6}: the view of the process's own network
// namespace, and no connection that a server would log as an error.
func WaitListeningPID(t testing.TB, pid, port int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if len(listeners(pid, port)) > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d does not listen on port %d", pid, port)
}

// listeners are the socket inodes listening on TCP port in pid's network
// namespace.
func listeners(pid, port int) []string {
	want := fmt.Sprintf(":%04X", port)
	var inodes []string
	for _, f := range []string{"tcp", "tcp6"} {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		for _, line := range strings.Split(string(b), "\n") {
			// sl local_address rem_address st ... uid timeout inode; st 0A = LISTEN
			if fs := strings.Fields(line); len(fs) > 9 && strings.HasSuffix(fs[1], want) && fs[3] == "0A" {
				inodes = append(inodes, fs[9])
			}
		}
	}
	return inodes
}

// owns reports whether process pid holds one of the socket inodes.
func owns(pid int, inodes []string) bool {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err != nil {
			continue
		}
		for _, in := range inodes {
			if l == "socket:["+in+"]" {
				return true
			}
		}
	}
	return false
}

// ServeOnFreePort starts a server (name, args(port)) on a free port and
// waits until that process itself listens there. FreePort's port can be
// taken by another process between the check and the server's bind;
// then the server exits or never owns the listener, and it is tried
// again on a fresh port.
func ServeOnFreePort(t testing.TB, name string, args func(port int) []string) (int, *Proc) {
	t.Helper()
	ports, p := ServeOnFreePorts(t, 1, name, func(ports []int) []string { return args(ports[0]) })
	return ports[0], p
}

// ServeOnFreePorts is ServeOnFreePort for a server that listens on n
// TCP ports.
func ServeOnFreePorts(t testing.TB, n int, name string, args func(ports []int) []string) ([]int, *Proc) {
	t.Helper()
	for attempt := 1; attempt <= 5; attempt++ {
		ports := make([]int, n)
		for i := range ports {
			for ports[i] = FreePort(t); slices.Contains(ports[:i], ports[i]); ports[i] = FreePort(t) {
			}
		}
		p := Start(t, name, args(ports)...)
		pid := p.Cmd.Process.Pid
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) && !p.Wait(20*time.Millisecond) {
			all := true
			for _, port := range ports {
				all = all && owns(pid, listeners(pid, port))
			}
			if all {
				return ports, p
			}
		}
		p.Cmd.Process.Kill()
		p.Wait(5 * time.Second)
		t.Logf("attempt %d: %s did not listen on ports %v: %s", attempt, name, ports, strings.TrimSpace(p.Stderr.String()+p.Stdout.String()))
	}
	t.Fatalf("%s: no ports it could listen on in 5 attempts", name)
	return nil, nil
}

// Run runs a command to completion with a timeout.
func Run(t testing.TB, timeout time.Duration, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

var (
	newestOnce sync.Once
	newestPath string
	newestErr  error
)

// NeedIperf3Newest returns the newest iperf3 (Debian sid's, 3.22 at the
// time of writing), fetched and unpacked by scripts/iperf3-newest.sh into
// the build cache once per test process.
func NeedIperf3Newest(t testing.TB) string {
	t.Helper()
	newestOnce.Do(func() {
		cmd := exec.Command(filepath.Join(ModuleRoot(), "scripts", "iperf3-newest.sh"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			newestErr = fmt.Errorf("scripts/iperf3-newest.sh: %v: %s", err, strings.TrimSpace(stderr.String()))
			return
		}
		newestPath = strings.TrimSpace(string(out))
	})
	if newestErr != nil {
		Need(t, false, newestErr.Error())
	}
	return newestPath
}

// DuplicateKeys lists the keys that appear more than once in one object
// of a JSON document (encoding/json keeps the last silently), as paths.
func DuplicateKeys(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var dups []string
	var walk func(path string) error
	walk = func(path string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k := kt.(string)
				if seen[k] {
					dups = append(dups, path+"."+k)
				}
				seen[k] = true
				if err := walk(path + "." + k); err != nil {
					return err
				}
			}
			_, err = dec.Token() // '}'
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(path + "[]"); err != nil {
					return err
				}
			}
			_, err = dec.Token() // ']'
			return err
		}
		return nil
	}
	err := walk("")
	return dups, err
}

// Chromium returns a headless Chromium and the flags to run it with (a
// private profile under the test's temporary directory).
func Chromium(t testing.TB) (string, []string) {
	t.Helper()
	browser := ""
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	Need(t, browser != "", "no chromium (make deps installs it)")
	return browser, []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir()}
}

// Sources is the non-test Go files of the package in the working
// directory (a test's own package), by name: for tests that hold a
// package to a size or to what it imports.
func Sources(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = string(src)
	}
	return out
}
