package interop_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/wire"
)

// cases is the interop matrix: the same flags for every
// client/server pairing.
var cases = []struct {
	name string
	args []string
	udp  bool
}{
	{"tcp", []string{"-t", "1"}, false},
	{"parallel4", []string{"-t", "1", "-P", "4"}, false},
	{"reverse", []string{"-t", "1", "-R"}, false},
	{"bidir", []string{"-t", "1", "--bidir"}, false},
	{"udp100M", []string{"-t", "1", "-u", "-b", "100M"}, true},
	{"window256K", []string{"-t", "1", "-w", "256K"}, false},
	{"bytes100M", []string{"-n", "100M"}, false},
	{"jsonstream", []string{"-t", "1", "--json-stream"}, false},
}

// peer is one iperf3 release to test against.
type peer struct{ name, path string }

// peers are Debian's iperf3 (3.12) and the newest (3.22, from sid, see
// scripts/iperf3-newest.sh).
func peers(t *testing.T) []peer {
	return []peer{{"3.12", testutil.NeedIperf3(t)}, {"3.22", testutil.NeedIperf3Newest(t)}}
}

type doc map[string]any

// parse reads tcptune's -J document, or its --json-stream events (one
// object a line), whose "end" event's data is the document's "end". No
// object may hold a key twice.
func parse(t *testing.T, out string) doc { return parseOutput(t, out, true) }

// parseForeign reads iperf3's output: 3.12 prints sock_bufsize,
// sndbuf_actual and rcvbuf_actual twice in "start" with -P.
func parseForeign(t *testing.T, out string) doc { return parseOutput(t, out, false) }

func parseOutput(t *testing.T, out string, unique bool) doc {
	t.Helper()
	if !strings.HasPrefix(strings.TrimSpace(out), "{\"event\"") {
		return parseDoc(t, []byte(out), unique)
	}
	d := doc{}
	events := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		ev := parseDoc(t, []byte(line), unique)
		name, _ := ev["event"].(string)
		events[name]++
		switch name {
		case "start", "end", "tcptune":
			d[name] = ev["data"]
		case "interval":
			iv, _ := d["intervals"].([]any)
			d["intervals"] = append(iv, ev["data"])
		case "error":
			d["error"] = ev["data"]
		}
	}
	if events["start"] != 1 || events["end"] != 1 || events["interval"] == 0 {
		t.Fatalf("--json-stream events %v, want one start, intervals, one end", events)
	}
	return d
}

func parseDoc(t *testing.T, b []byte, unique bool) doc {
	t.Helper()
	var d doc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("output is not one JSON document: %v\n%.2000s", err, b)
	}
	if !unique {
		return d
	}
	dups, err := testutil.DuplicateKeys(b)
	if err != nil || len(dups) > 0 {
		t.Fatalf("keys twice in one object: %v (%v)", dups, err)
	}
	return d
}

func (d doc) obj(path ...string) map[string]any {
	var cur any = map[string]any(d)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	m, _ := cur.(map[string]any)
	return m
}

func num(m map[string]any, k string) float64 {
	v, _ := m[k].(float64)
	return v
}

// check asserts that a finished test moved plausible data.
func check(t *testing.T, d doc, args []string, udp bool) {
	t.Helper()
	if e, ok := d["error"]; ok {
		t.Fatalf("error in JSON: %v", e)
	}
	recv := d.obj("end", "sum_received")
	if recv == nil {
		t.Fatalf("no end.sum_received: %v", d["end"])
	}
	bps := num(recv, "bits_per_second")
	if bps <= 0 {
		t.Fatalf("no throughput: %v", recv)
	}
	joined := strings.Join(args, " ")
	if udp {
		// -b RATE (100M unless the arguments say otherwise): the
		// receiver sees about that.
		want := 100e6
		for i, a := range args {
			if a == "-b" && i+1 < len(args) {
				want, _ = units.ParseRate(args[i+1])
			}
		}
		if math.Abs(bps-want)/want > 0.15 {
			t.Errorf("UDP at -b %.0fM received %.1f Mbit/s", want/1e6, bps/1e6)
		}
		if lp := num(recv, "lost_percent"); lp > 5 {
			t.Errorf("UDP loss %.1f%% on loopback", lp)
		}
	}
	if strings.Contains(joined, "-n 100M") {
		if b := num(d.obj("end", "sum_sent"), "bytes"); b < 100<<20 {
			t.Errorf("-n 100M sent only %.0f bytes", b)
		}
	}
	if strings.Contains(joined, "-w 256K") {
		if v := num(d.obj("start"), "sock_bufsize"); v != 262144 {
			t.Errorf("sock_bufsize %v, want 262144", v)
		}
	}
	if strings.Contains(joined, "--bidir") && d.obj("end", "sum_received_bidir_reverse") == nil {
		t.Errorf("--bidir without sum_received_bidir_reverse")
	}
	if strings.Contains(joined, "-P 4") {
		if s, _ := d.obj("end")["streams"].([]any); len(s) != 4 {
			t.Errorf("-P 4: %d streams in end", len(s))
		}
	}
}

func startIperf3Server(t *testing.T, ip string) int {
	port, _ := testutil.ServeOnFreePort(t, ip, func(port int) []string { return []string{"-s", "-p", strconv.Itoa(port)} })
	return port
}

func startTcptuneServer(t *testing.T, extra ...string) (int, *testutil.Proc) {
	return testutil.ServeOnFreePort(t, testutil.Binary(t), func(port int) []string {
		return append([]string{"serve", "-p", strconv.Itoa(port)}, extra...)
	})
}

func runClient(t *testing.T, bin string, port int, args []string) string {
	t.Helper()
	all := append([]string{"-c", "127.0.0.1", "-p", strconv.Itoa(port)}, args...)
	if !slices.Contains(args, "--json-stream") {
		all = append(all, "-J")
	}
	if !strings.HasSuffix(bin, "iperf3") {
		all = append([]string{"bench"}, all...)
	}
	out, errOut, err := runRetrying(t, 60*time.Second, bin, all...)
	if err != nil {
		t.Fatalf("%s %v: %v\nstdout: %.3000s\nstderr: %s", bin, all, err, out, errOut)
	}
	return out
}

// runRetrying runs a client up to three times while the server is not
// ready for it: iperf3 3.12's server is briefly busy after a test ends
// (3.12 -J may then exit 0 with the error in its document), and 3.22's
// resets itself after a connection that sent no cookie (WaitListening's
// probe), so the next client can meet the reset, or, while it opens its
// listening socket again after a test, a refused connection.
func runRetrying(t *testing.T, timeout time.Duration, bin string, args ...string) (out, errOut string, err error) {
	t.Helper()
	for try := 0; try < 3; try++ {
		out, errOut, err = testutil.Run(t, timeout, bin, args...)
		if o := out + errOut; !strings.Contains(o, "the server is busy") && !strings.Contains(o, "unable to receive control message") && !strings.Contains(o, "Connection refused") {
			break
		}
		time.Sleep(time.Second)
	}
	return out, errOut, err
}

func TestTcptuneClientIperf3Server(t *testing.T) {
	for _, pr := range peers(t) {
		t.Run(pr.name, func(t *testing.T) { tcptuneClient(t, pr.path) })
	}
}

func tcptuneClient(t *testing.T, ip string) {
	port := startIperf3Server(t, ip)
	bin := testutil.Binary(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := parse(t, runClient(t, bin, port, c.args))
			check(t, d, c.args, c.udp)
			testutil.CheckSchema(t, d["tcptune"], "")
			// Against stock iperf3 the server's TCP_INFO is unknown: a
			// reverse test's verdict is this receiver's.
			if c.name == "reverse" {
				lim := fmt.Sprint(d["tcptune"])
				if !strings.Contains(lim, "from:receiver") {
					t.Errorf("reverse against iperf3: the verdict should be the receiver's: %s", lim)
				}
			}
		})
	}
}

func TestIperf3ClientTcptuneServer(t *testing.T) {
	port, srv := startTcptuneServer(t)
	for _, pr := range peers(t) {
		for _, c := range cases {
			if pr.name == "3.12" && slices.Contains(c.args, "--json-stream") {
				continue // 3.17+
			}
			t.Run(pr.name+"/"+c.name, func(t *testing.T) {
				check(t, parseForeign(t, runClient(t, pr.path, port, c.args)), c.args, c.udp)
			})
		}
	}
	if strings.Contains(srv.Stderr.String(), "panic") {
		t.Fatalf("server panicked:\n%s", srv.Stderr.String())
	}
}

func TestTcptuneAgainstTcptune(t *testing.T) {
	port, _ := startTcptuneServer(t)
	bin := testutil.Binary(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := parse(t, runClient(t, bin, port, c.args))
			check(t, d, c.args, c.udp)
			testutil.CheckSchema(t, d["tcptune"], "")
			if c.udp {
				return
			}
			// Between tcptune peers every direction gets a verdict,
			// including -R, where the server is the sender.
			ext, _ := d["tcptune"].(map[string]any)
			lims, _ := ext["limits"].([]any)
			if len(lims) == 0 {
				t.Fatalf("no limits in %v", ext)
			}
			for _, l := range lims {
				res := l.(map[string]any)["result"].(map[string]any)
				if res["limit"] == "unknown" && testutil.Required() {
					t.Errorf("limit unknown: %v", res)
				}
			}
		})
	}
}

// keyPaths lists every key path of a JSON value; array elements share
// one path ("[]").
func keyPaths(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			p := prefix + "." + k
			out[p] = true
			keyPaths(p, vv, out)
		}
	case []any:
		for _, e := range x {
			keyPaths(prefix+"[]", e, out)
		}
	}
}

// TestJSONKeysMatchIperf3 runs the same tests with iperf3 and with
// tcptune as the client of the same iperf3 server and compares the -J
// documents key by key: every key iperf3 prints, tcptune prints at the
// same place.
func TestJSONKeysMatchIperf3(t *testing.T) {
	for _, pr := range peers(t) {
		// Each release against its own server, side by side: the keys do
		// not depend on the rates.
		t.Run(pr.name, func(t *testing.T) { t.Parallel(); jsonKeysMatch(t, pr.name, pr.path) })
	}
}

func jsonKeysMatch(t *testing.T, release, ip string) {
	port := startIperf3Server(t, ip)
	bin := testutil.Binary(t)
	for _, args := range [][]string{
		{"-t", "1"}, {"-t", "1", "-P", "2"}, {"-t", "1", "-R"}, {"-t", "1", "--bidir"},
		{"-t", "1", "-u", "-b", "10M"}, {"-t", "1", "-u", "-b", "10M", "--bidir"},
	} {
		t.Run(strings.Join(args, ""), func(t *testing.T) {
			ref, ours := map[string]bool{}, map[string]bool{}
			keyPaths("", map[string]any(parseForeign(t, runClient(t, ip, port, args))), ref)
			keyPaths("", map[string]any(parse(t, runClient(t, bin, port, args))), ours)
			if len(ref) < 30 {
				t.Fatalf("iperf3 document has only %d keys", len(ref))
			}
			var missing []string
			for k := range ref {
				if !ours[k] {
					missing = append(missing, k)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("keys iperf3 prints that tcptune does not:\n  %s", strings.Join(missing, "\n  "))
			}
			// Our additions live under "tcptune" only, apart from keys
			// that iperf3 3.13–3.22 added (3.12 lacks them).
			later := map[string]bool{}
			if release == "3.12" {
				later = map[string]bool{".start.timestamp.timemillisecs": true, ".start.fq_rate": true,
					".start.test_start.bidir": true, ".start.test_start.fqrate": true, ".start.target_bitrate": true,
					".start.test_start.target_bitrate": true, ".intervals[].streams[].reorder": true,
					".end.streams[].udp.out_of_order": true, ".start.tcp_mss_default": true,
					".start.test_start.interval": true, ".start.test_start.gso": true, ".start.test_start.gro": true,
					".end.streams[].sender.reorder": true}
			}
			var extra []string
			for k := range ours {
				if !ref[k] && !strings.HasPrefix(k, ".tcptune") && !later[k] {
					extra = append(extra, k)
				}
			}
			sort.Strings(extra)
			if len(extra) > 0 {
				t.Errorf("keys tcptune adds outside \"tcptune\":\n  %s", strings.Join(extra, "\n  "))
			}
		})
	}
}

func TestBusyServer(t *testing.T) {
	ip := testutil.NeedIperf3(t)
	port, _ := startTcptuneServer(t, "--max-tests", "1")
	bin := testutil.Binary(t)
	long := testutil.Start(t, bin, "bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "4", "-b", "10M")
	time.Sleep(time.Second)
	out, errOut, err := testutil.Run(t, 20*time.Second, ip, "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1")
	if err == nil || !strings.Contains(out+errOut, "busy") {
		t.Fatalf("stock iperf3 client against a full server: err=%v\n%s%s", err, out, errOut)
	}
	_, errOut, err = testutil.Run(t, 20*time.Second, bin, "bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1")
	if err == nil || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "busy") {
		t.Fatalf("tcptune client against a full server: err=%v stderr=%q", err, errOut)
	}
	if !long.Wait(20 * time.Second) {
		t.Fatal("the running test did not finish")
	}
	if long.Cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("the running test failed: %s", long.Stderr.String())
	}
}

func TestConcurrentTests(t *testing.T) {
	ip := testutil.NeedIperf3(t)
	port, _ := startTcptuneServer(t, "--max-tests", "3", "--max-tests-per-client", "3")
	bin := testutil.Binary(t)
	a := testutil.Start(t, bin, "bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "2", "-J")
	b := testutil.Start(t, ip, "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "2", "-J")
	udpArgs := []string{"-t", "1", "-u", "-b", "10M"}
	c := testutil.Start(t, ip, append([]string{"-c", "127.0.0.1", "-p", strconv.Itoa(port), "-J"}, udpArgs...)...)
	for name, p := range map[string]*testutil.Proc{"tcptune": a, "iperf3": b, "iperf3 udp": c} {
		if !p.Wait(30 * time.Second) {
			t.Fatalf("%s did not finish", name)
		}
		if p.Cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("%s failed: %s %s", name, p.Stdout.String(), p.Stderr.String())
			continue
		}
		args := []string(nil)
		if name == "iperf3 udp" {
			args = udpArgs
		}
		check(t, parseForeign(t, p.Stdout.String()), args, name == "iperf3 udp")
	}
}

func TestClientErrors(t *testing.T) {
	bin := testutil.Binary(t)
	port := testutil.FreePort(t) // nothing listens there
	for name, args := range map[string][]string{
		"refused":   {"bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1"},
		"bad flag":  {"bench", "-c", "127.0.0.1", "-P", "500"},
		"bad rate":  {"bench", "-c", "127.0.0.1", "-b", "fast"},
		"bad size":  {"bench", "-c", "127.0.0.1", "-w", "lots"},
		"no host":   {"bench"},
		"both dirs": {"bench", "-c", "127.0.0.1", "-R", "--bidir"},
	} {
		t.Run(name, func(t *testing.T) {
			out, errOut, err := testutil.Run(t, 20*time.Second, bin, args...)
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() == 0 {
				t.Fatalf("want non-zero exit, got %v", err)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "tcptune: error - ") {
				t.Fatalf("want one error line, got %q (stdout %q)", errOut, out)
			}
			if name == "bad flag" && !strings.Contains(lines[0], "-P/--parallel") {
				t.Errorf("does not name the flag: %s", lines[0])
			}
			if name == "refused" && !strings.Contains(lines[0], "refused") {
				t.Errorf("does not say refused: %s", lines[0])
			}
		})
	}
}

// TestClientRcvTimeout: a test this side receives in ends with iperf3's
// idle-timeout error when the stock server stops sending (-b 1 sends one
// block, then nothing for hours), both with -R and --bidir; a test whose
// data moves is not ended by it.
func TestClientRcvTimeout(t *testing.T) {
	bin := testutil.Binary(t)
	for _, pr := range peers(t) {
		t.Run(pr.name, func(t *testing.T) {
			port := startIperf3Server(t, pr.path)
			for _, dir := range []string{"-R", "--bidir"} {
				args := []string{"bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), dir, "-t", "30", "-b", "1", "-l", "1K", "--rcv-timeout", "400"}
				out, errOut, err := runRetrying(t, 25*time.Second, bin, args...)
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
					t.Fatalf("%s with nothing arriving: want a non-zero exit, got %v\n%s%s", dir, err, out, errOut)
				}
				if !strings.Contains(errOut, "tcptune: error - idle timeout for receiving data") {
					t.Errorf("%s: want iperf3's idle-timeout error, got %q", dir, errOut)
				}
			}
			out := runClient(t, bin, port, []string{"-R", "-t", "1", "--rcv-timeout", "100"})
			check(t, parse(t, out), []string{"-R"}, false)
		})
	}
}

// TestDropInTakesWhatIperf3Takes: under the name iperf3, each argument
// list is taken (exit 0) or refused (non-zero, one line) exactly where
// the newest iperf3 takes or refuses it, against one stock server.
func TestDropInTakesWhatIperf3Takes(t *testing.T) {
	newest := testutil.NeedIperf3Newest(t)
	link := t.TempDir() + "/iperf3"
	if err := os.Symlink(testutil.Binary(t), link); err != nil {
		t.Fatal(err)
	}
	port := startIperf3Server(t, newest)
	for _, args := range [][]string{
		{"-t", "1.5"}, {"-t1", "-n", "10K"}, {"-n", "10K", "-k", "5"},
		{"-n", "1M", "--cntl-ka=6/2/3"}, {"-n", "1M", "--cntl-ka=7/2/3"},
		{"-n", "1M", "-X", "127.0.0.1"}, {"-t1", "--nstreams", "2"}, // 3.22 hangs with -n and --nstreams
		{"-n", "1M", "--rcv-timeout", "5000"}, {"-n", "1M", "-R", "--rcv-timeout", "99"}, {"-n", "1M", "-R", "--rcv-timeout", "100"},
	} {
		all := append([]string{"-c", "127.0.0.1", "-p", strconv.Itoa(port)}, args...)
		_, _, ierr := runRetrying(t, 30*time.Second, newest, all...)
		out, errOut, err := runRetrying(t, 30*time.Second, link, all...)
		if (ierr == nil) != (err == nil) {
			t.Errorf("%q: iperf3 %s exited %v, the drop-in %v\nstdout %.500s\nstderr %s", args, filepath.Base(filepath.Dir(newest)), ierr, err, out, errOut)
		} else if err != nil && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%q: refused in more than one line: %q", args, errOut)
		}
	}
}

// TestServerBitrateLimit: the drop-in's --server-bitrate-limit, met by
// stock iperf3 clients: a test averaging above the limit is ended with
// iperf3's error, one whose -b × -P asks for more is refused, and one
// under it runs; client-only options are refused with -s, as iperf3's
// server refuses them.
func TestServerBitrateLimit(t *testing.T) {
	link := t.TempDir() + "/iperf3"
	if err := os.Symlink(testutil.Binary(t), link); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := testutil.Run(t, 10*time.Second, link, "-s", "-t", "5"); err == nil || !strings.Contains(errOut, "-t/--time: a client's option") {
		t.Errorf("-s -t 5: %v %q", err, errOut)
	}
	port, _ := testutil.ServeOnFreePort(t, link, func(port int) []string {
		return []string{"-s", "-p", strconv.Itoa(port), "--server-bitrate-limit", "200M/1"}
	})
	for _, pr := range peers(t) {
		for _, c := range []struct {
			args []string
			ends bool
		}{{[]string{"-t", "4"}, true}, {[]string{"-t", "4", "-R"}, true}, {[]string{"-t", "2", "-b", "150M", "-P", "2"}, true}, {[]string{"-t", "1", "-b", "50M", "-P", "2"}, false}} {
			all := append([]string{"-c", "127.0.0.1", "-p", strconv.Itoa(port)}, c.args...)
			out, errOut, err := runRetrying(t, 30*time.Second, pr.path, all...)
			if limited := strings.Contains(out+errOut, "total required bandwidth is larger than server limit"); limited != c.ends || (err != nil) != c.ends {
				t.Errorf("%s %q: exit %v, the limit's error %v, want %v\n%.2000s%s", pr.name, c.args, err, limited, c.ends, out, errOut)
			}
		}
	}
}

// TestIperf3Symlink runs the binary under the name iperf3, as scripts do.
func TestIperf3Symlink(t *testing.T) {
	bin := testutil.Binary(t)
	dir := t.TempDir()
	link := dir + "/iperf3"
	if err := exec.Command("ln", "-s", bin, link).Run(); err != nil {
		t.Fatal(err)
	}
	port, _ := testutil.ServeOnFreePort(t, link, func(port int) []string { return []string{"-s", "-p", strconv.Itoa(port)} })
	d := parse(t, runClient(t, link, port, []string{"-t", "1", "-P", "2"}))
	check(t, d, []string{"-P", "2"}, false)
	if !strings.Contains(fmt.Sprint(d.obj("start")["version"]), "tcptune") {
		t.Errorf("the symlink did not run tcptune: %v", d.obj("start")["version"])
	}
	// Tools that drive iperf3 read the second word of --version.
	for _, c := range []struct{ bin, flag, want string }{
		{link, "--version", "3.22"}, {link, "-v", "3.22"}, {bin, "--version", "version"},
	} {
		out, _, err := testutil.Run(t, 10*time.Second, c.bin, c.flag)
		if f := strings.Fields(out); err != nil || len(f) < 2 || f[1] != c.want {
			t.Errorf("%s %s: %q (%v), want second word %q", c.bin, c.flag, out, err, c.want)
		}
	}
	if out, _, _ := testutil.Run(t, 10*time.Second, bin, "--version"); !strings.HasPrefix(out, "tcptune version ") {
		t.Errorf("tcptune --version: %q", out)
	}

	// -D: the server goes to the background (the command returns at
	// once, status 0), writes its PID file (-I) and its output to
	// --logfile, serves, and removes the PID file when it ends; as the
	// drop-in (-D inside a group, and --daem as getopt_long allows: the
	// background process must not start another) and as tcptune serve.
	for i, args := range [][]string{
		{link, "-sD", "--forceflush"}, {link, "-s", "--daem"}, {bin, "serve", "-D"},
	} {
		port2 := testutil.FreePort(t)
		pidfile, logfile := fmt.Sprintf("%s/d%d.pid", dir, i), fmt.Sprintf("%s/d%d.log", dir, i)
		if _, errOut, err := testutil.Run(t, 10*time.Second, args[0], append(args[1:], "-p", strconv.Itoa(port2), "-I", pidfile, "--logfile", logfile)...); err != nil {
			t.Fatalf("%q: %v %s", args[1:], err, errOut)
		}
		testutil.WaitListening(t, port2)
		var pid int
		for i := 0; i < 50 && pid == 0; i++ {
			b, _ := os.ReadFile(pidfile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			time.Sleep(20 * time.Millisecond)
		}
		if pid <= 0 {
			t.Fatalf("%q: no PID file", args[1:])
		}
		proc, err := os.FindProcess(pid)
		if err != nil {
			t.Fatal(err)
		}
		defer proc.Kill()
		check(t, parseForeign(t, runClient(t, link, port2, []string{"-t", "1"})), nil, false)
		proc.Signal(syscall.SIGTERM)
		for i := 0; i < 100; i++ {
			if _, err := os.Stat(pidfile); os.IsNotExist(err) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
			t.Errorf("%q: the PID file outlived the server", args[1:])
		}
		if b, _ := os.ReadFile(logfile); !strings.Contains(string(b), "receiver") {
			t.Errorf("%q: the log file lacks the test's report:\n%s", args[1:], b)
		}
	}
}

// TestSignalsEndCleanly: as iperf3 3.19+, INT, TERM and HUP end a client
// with the figures so far and exit status 0, and a server with status 0.
func TestSignalsEndCleanly(t *testing.T) {
	port, srv := startTcptuneServer(t)
	bin := testutil.Binary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			c := testutil.Start(t, bin, "bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "20", "-J")
			time.Sleep(1500 * time.Millisecond)
			c.Cmd.Process.Signal(sig)
			if !c.Wait(10 * time.Second) {
				t.Fatal("the client did not end on the signal")
			}
			if code := c.Cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("exit status %d, want 0; stderr %s", code, c.Stderr.String())
			}
			d := parse(t, c.Stdout.String())
			if e, _ := d["error"].(string); !strings.Contains(e, "the client has terminated by signal") {
				t.Errorf("error %q", e)
			}
			if s := num(d.obj("end", "sum_sent"), "seconds"); s < 1 || s > 5 {
				t.Errorf("sum_sent.seconds %v after 1.5 s", s)
			}
		})
	}
	// The server outlived its clients' signals: it serves a test, then
	// ends on TERM with status 0.
	check(t, parse(t, runClient(t, bin, port, []string{"-t", "1"})), nil, false)
	srv.Cmd.Process.Signal(syscall.SIGTERM)
	if !srv.Wait(10 * time.Second) {
		t.Fatal("the server did not end on TERM")
	}
	if code := srv.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("server exit status %d on TERM", code)
	}
}

// TestServerAffinityRefused: a client's server_affinity (-A n,m) would
// pin the whole server, and every other test with it; the server warns
// and runs the test unpinned.
func TestServerAffinityRefused(t *testing.T) {
	testutil.Need(t, runtime.NumCPU() >= 2, "needs two CPUs to see a pin")
	ip := testutil.NeedIperf3Newest(t)
	port, srv := startTcptuneServer(t)
	allowed := func() string {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", srv.Cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Cpus_allowed_list:") {
				return strings.TrimSpace(strings.TrimPrefix(l, "Cpus_allowed_list:"))
			}
		}
		return ""
	}
	before := allowed()
	check(t, parseForeign(t, runClient(t, ip, port, []string{"-t", "1", "-A", "0,1"})), nil, false)
	if after := allowed(); after != before {
		t.Fatalf("the server's CPUs went from %s to %s on a client's request", before, after)
	}
	if !strings.Contains(srv.Stderr.String(), "affinity") {
		t.Errorf("no warning about the refused affinity:\n%s", srv.Stderr.String())
	}
}

// TestSilentCookiesHoldNoSlots: connections that send a valid cookie
// and then nothing hold a set-up place (four per client, 32 in all, 5 s
// each), never a test slot: a test takes its slot when its parameters
// arrive. After such a flood from one address, and from four (which
// used to fill every slot: "refusing test: busy running=4"), a real
// iperf3 client's test starts at once.
func TestSilentCookiesHoldNoSlots(t *testing.T) {
	ip := testutil.NeedIperf3Newest(t)
	port, srv := startTcptuneServer(t, "--max-tests", "4")
	flood := func(addrs int) {
		for i := 0; i < 8; i++ {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%addrs))}}
			c, err := d.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			ck := wire.NewCookie()
			c.Write(ck[:])
		}
		time.Sleep(200 * time.Millisecond)
	}
	realTest := func(within time.Duration) time.Duration {
		start := time.Now()
		for {
			out, errOut, err := testutil.Run(t, 30*time.Second, ip, "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1", "-J")
			if err == nil {
				check(t, parseForeign(t, out), nil, false)
				return time.Since(start)
			}
			if !strings.Contains(out+errOut, "busy") {
				t.Fatalf("iperf3: %v %s %s", err, out, errOut)
			}
			if time.Since(start) > within {
				t.Fatalf("the test did not start within %v of the flood:\n%s", within, srv.Stderr.String())
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	flood(1)
	if d := realTest(10 * time.Second); d > 3*time.Second {
		t.Errorf("one address's flood delayed the real test %.1f s", d.Seconds())
	}
	if !strings.Contains(srv.Stderr.String(), "its share of tests setting up") {
		t.Errorf("the per-client limit did not refuse the flood:\n%s", srv.Stderr.String())
	}
	flood(4)
	if d := realTest(10 * time.Second); d > 3*time.Second {
		t.Errorf("four addresses' flood delayed the real test %.1f s:\n%s", d.Seconds(), srv.Stderr.String())
	}
}
