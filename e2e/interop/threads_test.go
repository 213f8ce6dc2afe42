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

// Two UDP tests from one address at once (the per-client limit allows
// two; hosts behind one NAT share one): each gets its own streams, and
// each receiver counts what its sender sent. Real clients rarely set up
// at the same instant, so this checks the whole path; the interleaving
// itself, where hellos name no test, is forced in the server's unit test
// (TestUDPTestsFromOneAddressTakeTurns).
func TestTwoUDPTestsFromOneAddress(t *testing.T) {
	port, _ := startTcptuneServer(t)
	bin := testutil.Binary(t)
	var procs []*testutil.Proc
	for _, extra := range [][]string{{"-b", "20M"}, {"-b", "40M", "-R"}} {
		args := append([]string{"bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-u", "-P", "2", "-t", "2", "-J"}, extra...)
		procs = append(procs, testutil.Start(t, bin, args...))
	}
	for i, p := range procs {
		if !p.Wait(60 * time.Second) {
			t.Fatalf("test %d did not finish", i+1)
		}
		if p.Cmd.ProcessState.ExitCode() != 0 {
			t.Fatalf("test %d: %s %s", i+1, p.Stdout.String(), p.Stderr.String())
		}
		d := parse(t, p.Stdout.String())
		want := []float64{40e6, 80e6}[i] // -b per stream × 2 streams
		recv := num(d.obj("end", "sum_received"), "bits_per_second")
		if recv < 0.8*want || recv > 1.2*want {
			t.Errorf("test %d received %.1f Mbit/s, want about %.0f: its streams were not its own", i+1, recv/1e6, want/1e6)
		}
	}
}

// UDP told true: a receiver whose socket buffer is too small for the
// rate (here this client, -R with -w 4K) loses datagrams in its own
// kernel, and the verdict names that buffer, not the network.
func TestUDPLossNamesTheReceiveBuffer(t *testing.T) {
	port, _ := startTcptuneServer(t)
	out, errOut, err := testutil.Run(t, 30*time.Second, testutil.Binary(t), "bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-u", "-R", "-b", "2G", "-l", "1400", "-w", "4K", "-t", "1")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(out, "Limit (server→client): limited by the receiver's socket buffer") || !strings.Contains(out, "raise -w") {
		t.Errorf("want the receive buffer named:\n%s", out)
	}
	if strings.Contains(out, "tcp_rmem") {
		t.Errorf("a UDP report names TCP's buffers:\n%s", out)
	}
}
