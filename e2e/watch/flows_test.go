//go:build linux

package watch_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

const flowLink = "tt-flows"

// flowLab is a 500 Mbit/s × 20 ms lab link with python's http.server in
// end b serving a 60 MB file and a small one.
type flowLab struct {
	t            *testing.T
	bin          string
	nsA, nsB     string
	addrB, addrA string
}

func newFlowLab(t *testing.T, link ...string) *flowLab {
	testutil.NeedRoot(t)
	_, err := os.Stat("/dev/net/tun")
	testutil.Need(t, err == nil, "no /dev/net/tun")
	_, err = exec.LookPath("curl")
	testutil.Need(t, err == nil, "no curl")
	py, err := exec.LookPath("python3")
	testutil.Need(t, err == nil, "no python3")
	l := &flowLab{t: t, bin: testutil.Binary(t), nsA: "tcptune-" + flowLink + "-a", nsB: "tcptune-" + flowLink + "-b"}
	exec.Command(l.bin, "lab", "down", flowLink).Run()
	if out, err := exec.Command(l.bin, append([]string{"lab", "up", flowLink, "--rate", "500mbit", "--rtt", "20ms", "--seed", "7"}, link...)...).CombinedOutput(); err != nil {
		t.Fatalf("lab up: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(l.bin, "lab", "down", flowLink).Run() })
	out, _ := exec.Command("ip", "netns", "exec", l.nsB, "ip", "-4", "-o", "addr", "show", "scope", "global").Output()
	m := regexp.MustCompile(`inet (10\.201\.\d+)\.2/`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no address in %s: %s", l.nsB, out)
	}
	l.addrB, l.addrA = m[1]+".2", m[1]+".1"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big"), bytes.Repeat([]byte("tcptune "), 60e6/8), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mid"), bytes.Repeat([]byte("tcptune "), 8e6/8), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small"), []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Namespaces may default only to an unrestricted congestion control
	// (bbr here): the servers set theirs on the listening socket, which
	// the connections it accepts inherit.
	script := filepath.Join(dir, "serve.py")
	if err := os.WriteFile(script, []byte(serverPy), 0o644); err != nil {
		t.Fatal(err)
	}
	for port, cc := range map[string]string{"8080": "cubic", "8081": "bbr"} {
		srv := exec.Command("ip", "netns", "exec", l.nsB, py, script, l.addrB, port, cc, dir)
		srv.Stderr = os.Stderr
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	}
	// Ready when it answers.
	for _, port := range []string{"8080", "8081"} {
		for i := 0; l.curl(port, "small") < 0; i++ {
			if i == 100 {
				t.Fatalf("http.server on port %s in end b never answered", port)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	l.quiet()
	return l
}

// serverPy is python's http.server with the congestion control of its
// argument: serve.py ADDR PORT CC DIR.
const serverPy = `import functools, http.server, socket, sys
addr, port, cc, root = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
class Server(http.server.ThreadingHTTPServer):
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        super().server_bind()
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
Server((addr, port), functools.partial(Quiet, directory=root)).serve_forever()
`

// quiet waits until neither end has a connected socket left but in
// TIME-WAIT (no full socket): a connection closes after its FIN
// exchange, after the application is done with it.
func (l *flowLab) quiet() {
	for i := 0; ; i++ {
		a, _ := exec.Command("ip", "netns", "exec", l.nsA, "ss", "-Htn", "state", "connected", "exclude", "time-wait").Output()
		b, _ := exec.Command("ip", "netns", "exec", l.nsB, "ss", "-Htn", "state", "connected", "exclude", "time-wait").Output()
		if len(bytes.TrimSpace(a)) == 0 && len(bytes.TrimSpace(b)) == 0 {
			return
		}
		if i == 100 {
			l.t.Fatalf("sockets left open:\n%s%s", a, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// curl downloads a file from end b in end a and returns curl's own
// rate (bit/s), -1 when it failed.
func (l *flowLab) curl(port, file string) float64 {
	out, err := exec.Command("ip", "netns", "exec", l.nsA, "curl", "-sS", "--max-time", "30", "-o", "/dev/null",
		"-w", "%{speed_download}", "http://"+l.addrB+":"+port+"/"+file).Output()
	if err != nil {
		return -1
	}
	v, _ := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	return 8 * v
}

func (l *flowLab) sysctl(ns, key, value string) {
	if out, err := exec.Command("ip", "netns", "exec", ns, "sysctl", "-qw", key+"="+value).CombinedOutput(); err != nil {
		l.t.Fatalf("sysctl %s in %s: %v %s", key, ns, err, out)
	}
}

// flowWatch is tcptune watch --flows --json running in a namespace.
type flowWatch struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

func (l *flowLab) watch(ns string, args ...string) *flowWatch {
	w := &flowWatch{cmd: exec.Command(l.bin, append([]string{"watch", "--flows", "--json", "--netns", ns, "--rate", "500mbit", "--interval", "0.5"}, args...)...)}
	w.cmd.Stdout = &w.out
	stderr, _ := w.cmd.StderrPipe()
	if err := w.cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { w.cmd.Process.Kill(); w.cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "listening for ending TCP flows") {
			go io.Copy(io.Discard, stderr)
			return w
		}
		l.t.Logf("watch: %s", sc.Text())
	}
	l.t.Fatalf("watch --flows in %s never said it listens", ns)
	return nil
}

type flowGroup struct {
	Group    string   `json:"group"`
	Role     string   `json:"role"`
	Flows    int      `json:"flows"`
	Judged   int      `json:"judged"`
	Verdict  string   `json:"verdict"`
	Share    float64  `json:"share"`
	RuledOut []string `json:"ruled_out"`
	Advice   *struct {
		Host    string  `json:"host"`
		Key     string  `json:"key"`
		Values  []int64 `json:"values"`
		Command string  `json:"command"`
		Verify  string  `json:"verify"`
	} `json:"advice"`
}

type flowSummary struct {
	Flows       int         `json:"flows"`
	Judged      int         `json:"judged"`
	Overruns    int         `json:"overruns"`
	KernelOpens int         `json:"kernel_opens"`
	Groups      []flowGroup `json:"groups"`
}

// stop ends the watch with SIGINT, as Ctrl-C does, and returns its
// summary and the number of flow lines.
func (w *flowWatch) stop(t *testing.T) (flowSummary, int) {
	w.cmd.Process.Signal(syscall.SIGINT)
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("watch --flows: %v\n%s", err, w.out.String())
	}
	var s flowSummary
	flows := 0
	for _, line := range strings.Split(strings.TrimSpace(w.out.String()), "\n") {
		var v struct {
			Flow    json.RawMessage `json:"flow"`
			Summary *flowSummary    `json:"summary"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if v.Flow != nil {
			flows++
		}
		if v.Summary != nil {
			s = *v.Summary
		}
	}
	return s, flows
}

// group is the summary's group of a direction.
func (s flowSummary) group(t *testing.T, role string) flowGroup {
	for _, g := range s.Groups {
		if g.Role == role {
			return g
		}
	}
	t.Fatalf("no %s group in %+v", role, s)
	return flowGroup{}
}

// TestFlowVerdictsOfADownload: curl downloads from python's http.server
// through a link where one host's buffer binds, or none does; watch
// --flows on each end names what held the flows (or, on the receiving
// end of a sender's limit, what the receiver's view rules out) and
// advises the setting where it acts, and the advice applied as printed
// lifts curl's own rate.
func TestFlowVerdictsOfADownload(t *testing.T) {
	l := newFlowLab(t)
	// Advice is "KEY@HOST" (HOST "this host" or the peer's address),
	// "@HOST" for a pointer to the other end's view, "" for none.
	for _, c := range []struct {
		name, port         string
		ns, key, value     string // the binding buffer, if any
		sentVerd, recvVerd []string
		sentAdv, recvAdv   string
	}{
		{"server's send buffer, cubic", "8080", l.nsB, "net.ipv4.tcp_wmem", "4096 16384 1048576",
			[]string{"send-buffer"}, []string{"unknown"}, "net.ipv4.tcp_wmem@this host", "@" + l.addrB},
		{"client's receive buffer, bbr", "8081", l.nsA, "net.ipv4.tcp_rmem", "4096 131072 1048576",
			[]string{"receiver-window"}, []string{"receiver-window"}, "net.ipv4.tcp_rmem@" + l.addrA, "net.ipv4.tcp_rmem@this host"},
		{"a full link, cubic", "8080", "", "", "",
			[]string{"network", "path-full"}, []string{"unknown"}, "", "@" + l.addrB},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, ns := range []string{l.nsA, l.nsB} {
				l.sysctl(ns, "net.ipv4.tcp_wmem", "4096 16384 33554432")
				l.sysctl(ns, "net.ipv4.tcp_rmem", "4096 131072 33554432")
			}
			if c.ns != "" {
				l.sysctl(c.ns, c.key, c.value)
			}
			// Measured again where the relay fell behind: its lateness
			// then reads as a queue on the path.
			type applied struct {
				g   flowGroup
				out []byte // its end's watch output
			}
			var before []float64
			var apply *applied
			err := testutil.UnlessBehind(t, flowLink, 20*time.Millisecond, func() error {
				l.quiet() // the last case's download has ended
				wa, wb := l.watch(l.nsA), l.watch(l.nsB)
				before = nil
				for range 2 {
					before = append(before, l.curl(c.port, "big"))
				}
				l.quiet() // a flow ends when its FIN exchange does
				sa, _ := wa.stop(t)
				sb, _ := wb.stop(t)
				sent, recv := sb.group(t, "sent"), sa.group(t, "received")
				t.Logf("curl %.0f Mbit/s; sent %+v %+v; received %+v %+v", median(before)/1e6, sent, sent.Advice, recv, recv.Advice)
				var errs []error
				apply = nil
				for _, e := range []struct {
					end  string
					w    *flowWatch
					g    flowGroup
					verd []string
					adv  string
				}{{"sending", wb, sent, c.sentVerd, c.sentAdv}, {"receiving", wa, recv, c.recvVerd, c.recvAdv}} {
					if e.g.Flows != 2 || e.g.Judged != 2 || !slices.Contains(e.verd, e.g.Verdict) {
						errs = append(errs, fmt.Errorf("%s host: %+v, want 2 flows judged %v", e.end, e.g, e.verd))
					}
					if e.g.Verdict == "unknown" && !slices.Contains(e.g.RuledOut, "receiver-window") {
						errs = append(errs, fmt.Errorf("%s host: %+v: want the receiver's window ruled out", e.end, e.g))
					}
					got := ""
					if a := e.g.Advice; a != nil {
						got = a.Key + "@" + a.Host
					}
					if got != e.adv {
						errs = append(errs, fmt.Errorf("%s host's advice %q, want %q", e.end, got, e.adv))
					}
					if strings.HasSuffix(got, "@this host") && strings.HasPrefix(got, "net.") {
						apply = &applied{g: e.g, out: e.w.out.Bytes()}
					}
				}
				if err := errors.Join(errs...); err != nil {
					return fmt.Errorf("%w\nend a's watch:\n%s\nend b's watch:\n%s", err, wa.out.String(), wb.out.String())
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
			if apply == nil || t.Failed() {
				return
			}
			// Apply it as printed, on the host it names.
			ns := l.nsB
			if apply.g.Role == "received" {
				ns = l.nsA
			}
			adv := apply.g.Advice
			args := append([]string{"netns", "exec", ns, "sh", "-c"}, strings.TrimPrefix(adv.Command, "sudo "))
			if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v %s", adv.Command, err, out)
			}
			// advise reads the saved run back to the same value.
			saved := filepath.Join(t.TempDir(), "flows.json")
			os.WriteFile(saved, apply.out, 0o644)
			conf, err := exec.Command(l.bin, "advise", "--flows", saved, "--format", "sysctl").Output()
			want := fmt.Sprintf("%s = %d %d %d", adv.Key, adv.Values[0], adv.Values[1], adv.Values[2])
			if err != nil || !strings.Contains(string(conf), "\n"+want+"\n") {
				t.Errorf("advise --flows: %v, want %q in\n%s", err, want, conf)
			}
			err = testutil.UnlessBehind(t, flowLink, 20*time.Millisecond, func() error {
				after := l.curl(c.port, "big")
				t.Logf("after %q: curl %.0f Mbit/s", adv.Command, after/1e6)
				if after < 1.3*median(before) {
					return fmt.Errorf("the advice lifted curl from %.0f to %.0f Mbit/s only", median(before)/1e6, after/1e6)
				}
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
}

// TestFlowVerdictsOnALossyLink: random loss holds a cubic download; the
// sending end says the network (its congestion window, with its
// retransmits) and advises no buffer; the receiving end rules out its
// window.
func TestFlowVerdictsOnALossyLink(t *testing.T) {
	l := newFlowLab(t, "--loss", "0.1%")
	for _, ns := range []string{l.nsA, l.nsB} {
		l.sysctl(ns, "net.ipv4.tcp_wmem", "4096 16384 33554432")
		l.sysctl(ns, "net.ipv4.tcp_rmem", "4096 131072 33554432")
	}
	wa, wb := l.watch(l.nsA), l.watch(l.nsB)
	for range 2 {
		t.Logf("curl %.1f Mbit/s", l.curl("8080", "mid")/1e6)
	}
	l.quiet()
	sa, _ := wa.stop(t)
	sb, _ := wb.stop(t)
	sent, recv := sb.group(t, "sent"), sa.group(t, "received")
	t.Logf("sent %+v %+v; received %+v %+v", sent, sent.Advice, recv, recv.Advice)
	if sent.Flows != 2 || sent.Judged != 2 || sent.Verdict != "network" || sent.Advice != nil {
		t.Errorf("sending host: %+v, want 2 flows held by the network, no buffer advice", sent)
	}
	if recv.Flows != 2 || recv.Judged != 2 || recv.Verdict != "unknown" || !slices.Contains(recv.RuledOut, "receiver-window") {
		t.Errorf("receiving host: %+v, want unknown with its window ruled out", recv)
	}
}

// TestFlowAdviceVerifiedByTune: a download held by the client's receive
// buffer; the client's watch names its window and the command that
// verifies the fix, tune --peer against a tcptune server at the other
// end, which, run as printed with --apply (for the download's direction),
// lifts curl's own rate.
func TestFlowAdviceVerifiedByTune(t *testing.T) {
	l := newFlowLab(t)
	for _, ns := range []string{l.nsA, l.nsB} {
		l.sysctl(ns, "net.ipv4.tcp_wmem", "4096 16384 33554432")
		l.sysctl(ns, "net.ipv4.tcp_rmem", "4096 131072 33554432")
	}
	l.sysctl(l.nsA, "net.ipv4.tcp_rmem", "4096 131072 1048576")
	srv := exec.Command("ip", "netns", "exec", l.nsB, l.bin, "serve", "-p", "5201")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for i := 0; ; i++ {
		if out, _ := exec.Command("ip", "netns", "exec", l.nsB, "ss", "-Hltn", "sport = :5201").Output(); len(bytes.TrimSpace(out)) > 0 {
			break
		}
		if i == 100 {
			t.Fatal("tcptune serve in end b never listened")
		}
		time.Sleep(50 * time.Millisecond)
	}
	wa := l.watch(l.nsA)
	var before []float64
	for range 2 {
		before = append(before, l.curl("8081", "big"))
	}
	l.quiet()
	sa, _ := wa.stop(t)
	g := sa.group(t, "received")
	want := "sudo tcptune tune --peer " + l.addrB
	if g.Verdict != "receiver-window" || g.Advice == nil || g.Advice.Verify != want {
		t.Fatalf("received %+v %+v, want the receiver's window and %q", g, g.Advice, want)
	}
	args := append(strings.Fields(strings.TrimPrefix(g.Advice.Verify, "sudo tcptune ")), "--direction", "reverse", "--apply", "--trials", "2", "--time", "1")
	cmd := exec.Command("ip", append([]string{"netns", "exec", l.nsA, l.bin}, args...)...)
	cmd.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	after := l.curl("8081", "big")
	t.Logf("curl %.0f Mbit/s, after %v: %.0f", median(before)/1e6, args, after/1e6)
	if after < 1.3*median(before) {
		t.Errorf("tune lifted curl from %.0f to %.0f Mbit/s only", median(before)/1e6, after/1e6)
	}
}

// TestFlowsNoneMissed: many short downloads in parallel all end as
// flows, as many as the kernel opened, with no event overrun.
func TestFlowsNoneMissed(t *testing.T) {
	l := newFlowLab(t)
	const n, parallel = 400, 40
	wa, wb := l.watch(l.nsA), l.watch(l.nsB)
	script := fmt.Sprintf("seq %d | xargs -P %d -I{} curl -sS -o /dev/null http://%s:8081/small", n, parallel, l.addrB)
	if out, err := exec.Command("ip", "netns", "exec", l.nsA, "sh", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", script, err, out)
	}
	l.quiet()
	for _, c := range []struct {
		end string
		w   *flowWatch
	}{{"client", wa}, {"server", wb}} {
		s, lines := c.w.stop(t)
		t.Logf("%s: %d flows, %d lines, kernel opens %d, overruns %d", c.end, s.Flows, lines, s.KernelOpens, s.Overruns)
		if s.Flows != n || lines != n || s.KernelOpens != n || s.Overruns != 0 {
			t.Errorf("%s: %d flows (%d lines) of %d; kernel opens %d; overruns %d", c.end, s.Flows, lines, n, s.KernelOpens, s.Overruns)
		}
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
