//go:build linux

package interop_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// An unauthenticated iperf3 3.22 client with -P 128 --bidir (256
// streams) against tcptune serve confined to 256 tasks, as the packaged
// unit's TasksMax=256 confines it (here a pids cgroup of its own): each
// raw stream holds an OS thread, and a Go program that cannot create
// one aborts, ending every test. The server bounds its raw streams
// (engine.Procs) and serves the rest through the netpoller: it must
// finish the test and serve the next one.
func TestServerUnderATaskLimit(t *testing.T) {
	testutil.NeedRoot(t)
	ip := testutil.NeedIperf3Newest(t)
	root := "/sys/fs/cgroup/pids"
	if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); err != nil {
		root = "/sys/fs/cgroup" // cgroup v2
	}
	cg := filepath.Join(root, fmt.Sprintf("tcptune-test-%d", os.Getpid()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		testutil.Need(t, false, "no pids cgroup to confine the server: "+err.Error())
	}
	t.Cleanup(func() {
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if os.Remove(cg) == nil {
				return
			}
		}
		t.Errorf("cgroup %s left", cg)
	})
	if err := os.WriteFile(filepath.Join(cg, "pids.max"), []byte("256"), 0o644); err != nil {
		testutil.Need(t, false, "pids.max: "+err.Error())
	}
	port, srv := startTcptuneServer(t)
	if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte(strconv.Itoa(srv.Cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runClient(t, ip, port, []string{"-P", "128", "--bidir", "-t", "2"})
	if !strings.Contains(out, `"sum_received"`) {
		t.Fatalf("no result:\n%.2000s", out)
	}
	if srv.Wait(0) {
		t.Fatalf("the server ended: %s", srv.Stderr.String())
	}
	runClient(t, ip, port, []string{"-t", "1"})
	if s := srv.Stderr.String(); strings.Contains(s, "pthread_create") || strings.Contains(s, "fatal") {
		t.Errorf("server stderr:\n%s", s)
	}
	srv.Cmd.Process.Kill()
	srv.Wait(5 * time.Second)
}
