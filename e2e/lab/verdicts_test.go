//go:build linux

package lab_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// The ground-truth matrix: lab links where the binding constraint is
// set on purpose (a buffer small at one end, a full link, loss, -b, -w,
// a UDP rate above the link, a small UDP receive buffer), each run
// against stock iperf3 3.12 and 3.22 servers and tcptune serve with
// tcptune as the client, and with iperf3 as the client of tcptune serve
// (serve's own verdict). Every verdict is graded right, unknown or
// wrong: right names the constraint; unknown is allowed only where the
// evidence at hand cannot decide (the sender is a stock iperf3), and
// then it must rule out what the receiver can see; anything else is
// wrong. The congestion control is set on every run (namespaces here
// inherit bbr; most hosts run cubic).

// verdictCase is one constraint and what each kind of server may say.
type verdictCase struct {
	name  string
	a, b  map[string]string // sysctls set in each end for this case
	args  []string          // bench's arguments besides -c, -p, -J
	dir   string            // the direction graded
	right []string          // limits that name the constraint
	// stockUnknown: where a stock iperf3 holds the view that decides,
	// the other end's cannot; "unknown" is then right if it rules these
	// out.
	stockUnknown []string
	// receiverDecides: the receiver's view decides (UDP: its socket's
	// drops), not the sender's.
	receiverDecides bool
}

// The ends' buffers unless a case sets them: large enough for the path.
var roomy = map[string]string{"net.ipv4.tcp_rmem": "4096 131072 33554432", "net.ipv4.tcp_wmem": "4096 16384 33554432"}

const small = "4096 16384 393216" // 384 KiB: about a third of the 1.25 MB BDP

var verdictCases = []verdictCase{
	{name: "server rmem small", b: map[string]string{"net.ipv4.tcp_rmem": small}, args: []string{"-C", "cubic"},
		dir: "client→server", right: []string{"receiver-window"}},
	{name: "client wmem small", a: map[string]string{"net.ipv4.tcp_wmem": small}, args: []string{"-C", "cubic"},
		dir: "client→server", right: []string{"send-buffer"}},
	{name: "-R client rmem small", a: map[string]string{"net.ipv4.tcp_rmem": small}, args: []string{"-R", "-C", "cubic"},
		dir: "server→client", right: []string{"receiver-window"}},
	{name: "-R server wmem small", b: map[string]string{"net.ipv4.tcp_wmem": small}, args: []string{"-R", "-C", "cubic"},
		dir: "server→client", right: []string{"send-buffer"}, stockUnknown: []string{"receiver-window"}},
	{name: "full link cubic", args: []string{"-C", "cubic"}, dir: "client→server", right: []string{"path-full", "network"}},
	{name: "full link bbr", args: []string{"-C", "bbr"}, dir: "client→server", right: []string{"path-full", "network"}},
	{name: "-b 100M", args: []string{"-b", "100M", "-C", "cubic"}, dir: "client→server", right: []string{"application"}},
	{name: "-R -b 100M", args: []string{"-R", "-b", "100M", "-C", "cubic"}, dir: "server→client", right: []string{"application"}},
	{name: "-w 128K", args: []string{"-w", "128K", "-C", "cubic"}, dir: "client→server", right: []string{"receiver-window", "send-buffer"}},
	{name: "--bidir client wmem small", a: map[string]string{"net.ipv4.tcp_wmem": small}, args: []string{"--bidir", "-C", "cubic"},
		dir: "client→server", right: []string{"send-buffer"}},
	{name: "-P 4 server rmem small", b: map[string]string{"net.ipv4.tcp_rmem": "4096 16384 131072"}, args: []string{"-P", "4", "-C", "cubic"},
		dir: "client→server", right: []string{"receiver-window"}},
	{name: "-R -P 4 client rmem small", a: map[string]string{"net.ipv4.tcp_rmem": "4096 16384 131072"}, args: []string{"-R", "-P", "4", "-C", "bbr"},
		dir: "server→client", right: []string{"receiver-window"}},
	// UDP: the receiver's socket drops are counted only by a tcptune
	// receiver, so against a stock server the path's share is unknown.
	{name: "UDP above the link", args: []string{"-u", "-b", "800M"}, dir: "client→server", right: []string{"network"}, stockUnknown: []string{}, receiverDecides: true},
	{name: "UDP into a small receive buffer", args: []string{"-u", "-R", "-b", "300M", "-w", "4K"}, dir: "server→client", right: []string{"receive-buffer"}, receiverDecides: true},
}

// lossCases run on a lossy link: loss, not a buffer, holds the window.
var lossCases = []verdictCase{
	{name: "1% loss cubic", args: []string{"-C", "cubic"}, dir: "client→server", right: []string{"network"}},
	{name: "-R 1% loss cubic", args: []string{"-R", "-C", "cubic"}, dir: "server→client", right: []string{"network"}, stockUnknown: []string{"receiver-window"}},
}

// iperf3ClientCases run a stock iperf3 client against tcptune serve;
// serve's own verdict is graded.
var iperf3ClientCases = []verdictCase{
	{name: "iperf3 client, server rmem small", b: map[string]string{"net.ipv4.tcp_rmem": small}, args: []string{"-C", "cubic"},
		dir: "client→server", right: []string{"receiver-window"}},
	{name: "iperf3 client, client wmem small", a: map[string]string{"net.ipv4.tcp_wmem": small}, args: []string{"-C", "cubic"},
		dir: "client→server", right: []string{"send-buffer"}, stockUnknown: []string{"receiver-window"}},
	{name: "iperf3 client -R, server wmem small", b: map[string]string{"net.ipv4.tcp_wmem": small}, args: []string{"-R", "-C", "cubic"},
		dir: "server→client", right: []string{"send-buffer"}},
}

type verdictJSON struct {
	Direction string `json:"direction"`
	Result    struct {
		Limit    string   `json:"limit"`
		From     string   `json:"from"`
		RuledOut []string `json:"ruled_out"`
		Verdict  string   `json:"verdict"`
		Advice   string   `json:"advice"`
	} `json:"result"`
}

// grade is "right", "unknown" (allowed: it rules out what it must) or
// "wrong".
func (c verdictCase) grade(v verdictJSON, stockSender bool) string {
	if slices.Contains(c.right, v.Result.Limit) {
		return "right"
	}
	if v.Result.Limit == "unknown" && stockSender && c.stockUnknown != nil {
		for _, l := range c.stockUnknown {
			if !slices.Contains(v.Result.RuledOut, l) {
				return "wrong"
			}
		}
		return "unknown"
	}
	return "wrong"
}

// stockDecides reports whether a stock iperf3 holds the view that
// decides: the sender's (the client's unless -R), or the receiver's.
func (c verdictCase) stockDecides(iperf3Client bool) bool {
	clientDecides := !slices.Contains(c.args, "-R")
	if c.receiverDecides {
		clientDecides = !clientDecides
	}
	return clientDecides == iperf3Client
}

type grades struct {
	mu   sync.Mutex
	rows []string
	n    map[string]int
}

func (g *grades) add(t *testing.T, server string, c verdictCase, v verdictJSON, grade string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n[grade]++
	row := fmt.Sprintf("%-7s %-36s %-14s %-7s %s (from %s; ruled out %v)", grade, c.name, server, v.Result.Limit, v.Direction, v.Result.From, v.Result.RuledOut)
	g.rows = append(g.rows, row)
	if grade == "wrong" {
		t.Errorf("WRONG: %s against %s: %s: %s: %s", c.name, server, v.Direction, v.Result.Verdict, v.Result.Advice)
	}
}

func TestVerdictMatrix(t *testing.T) {
	l := newLab(t)
	servers := []struct{ name, bin string }{{"iperf3 3.12", testutil.NeedIperf3(t)}, {"iperf3 3.22", testutil.NeedIperf3Newest(t)}, {"tcptune", l.bin}}
	g := &grades{n: map[string]int{}}
	defer func() {
		t.Logf("verdict matrix: %d right, %d unknown, %d wrong\n%s", g.n["right"], g.n["unknown"], g.n["wrong"], strings.Join(g.rows, "\n"))
	}()

	run := func(t *testing.T, link string, cases []verdictCase) {
		addrB := l.ls()[link].AddrB
		var ports []int
		for _, s := range servers {
			port := 5301 + len(ports)
			args := []string{"-s", "-p", strconv.Itoa(port)}
			if s.bin == l.bin {
				args = []string{"serve", "-p", strconv.Itoa(port)}
			}
			p := testutil.Start(t, l.bin, append([]string{"lab", "exec", link, "b", "--", s.bin}, args...)...)
			testutil.WaitListeningPID(t, p.Cmd.Process.Pid, port)
			ports = append(ports, port)
		}
		for _, c := range cases {
			l.ends(link, c)
			for i, s := range servers {
				// A wrong verdict is measured again where the relay fell
				// behind: its delay then looks like a queue on the path.
				var v verdictJSON
				var grade string
				var d map[string]any
				testutil.UnlessBehind(t, link, 20*time.Millisecond, func() error {
					d, grade = l.benchDoc(link, addrB, ports[i], c.args), ""
					var ok bool
					if v, ok = graded(d, c.dir); ok {
						grade = c.grade(v, s.bin != l.bin && c.stockDecides(false))
					}
					if grade == "wrong" {
						return errors.New("a wrong verdict")
					}
					return nil
				})
				if grade == "" {
					t.Errorf("%s against %s: no verdict for %s in %v", c.name, s.name, c.dir, d["tcptune"])
					continue
				}
				g.add(t, s.name, c, v, grade)
			}
		}
	}
	l.up("tt-verd", "--rate", "500mbit", "--rtt", "20ms")
	run(t, "tt-verd", verdictCases)
	l.up("tt-verdl", "--rate", "500mbit", "--rtt", "20ms", "--loss", "1%")
	run(t, "tt-verdl", lossCases)

	// iperf3 as the client of tcptune serve: serve's -J document per
	// test carries its verdict.
	port := 5310
	cmd := exec.Command(l.bin, "lab", "exec", "tt-verd", "b", "--", l.bin, "serve", "-p", strconv.Itoa(port), "-J")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testutil.WaitListeningPID(t, cmd.Process.Pid, port)
	docs := json.NewDecoder(bufio.NewReader(out))
	addrB := l.ls()["tt-verd"].AddrB
	for _, c := range iperf3ClientCases {
		for _, cl := range servers[:2] {
			l.ends("tt-verd", c)
			args := append([]string{"lab", "exec", "tt-verd", "a", "--", cl.bin, "-c", addrB, "-p", strconv.Itoa(port), "-t", "1", "-O", "1"}, c.args...)
			if o, e, err := testutil.Run(t, time.Minute, l.bin, args...); err != nil {
				t.Fatalf("%s: %v\n%s%s", strings.Join(args, " "), err, o, e)
			}
			var d map[string]any
			if err := docs.Decode(&d); err != nil {
				t.Fatalf("serve -J: %v", err)
			}
			testutil.CheckSchema(t, d["tcptune"], "")
			v, ok := graded(d, c.dir)
			if !ok {
				t.Errorf("%s (%s client): serve has no verdict for %s in %v", c.name, cl.name, c.dir, d["tcptune"])
				continue
			}
			g.add(t, "serve ← "+cl.name, c, v, c.grade(v, c.stockDecides(true)))
		}
	}
}

// ends sets both ends' buffers for a case.
func (l *labT) ends(link string, c verdictCase) {
	l.t.Helper()
	for side, set := range map[string]map[string]string{"a": c.a, "b": c.b} {
		var cmds []string
		for key, def := range roomy {
			v := def
			if x, ok := set[key]; ok {
				v = x
			}
			cmds = append(cmds, fmt.Sprintf("echo '%s' > /proc/sys/%s", v, strings.ReplaceAll(key, ".", "/")))
		}
		l.must("lab", "exec", link, side, "--", "sh", "-c", strings.Join(cmds, " && "))
	}
}

// benchDoc runs a short bench from end a and returns its -J document.
func (l *labT) benchDoc(link, addr string, port int, args []string) map[string]any {
	l.t.Helper()
	all := append([]string{"lab", "exec", link, "a", "--", l.bin, "bench", "-c", addr, "-p", strconv.Itoa(port), "-J", "-t", "1", "-O", "1"}, args...)
	var out, errOut string
	var err error
	for try := 0; try < 3; try++ {
		// A stock server is briefly busy after a test ends.
		if out, errOut, err = l.run(all...); err == nil && !strings.Contains(out, "the server is busy") {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		l.t.Fatalf("%s: %v\n%.2000s%s", strings.Join(all, " "), err, out, errOut)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		l.t.Fatalf("bench -J: %v\n%.2000s", err, out)
	}
	testutil.CheckSchema(l.t, d["tcptune"], "")
	return d
}

// graded is the verdict on direction dir in a -J document's "tcptune"
// object.
func graded(d map[string]any, dir string) (verdictJSON, bool) {
	ext, _ := d["tcptune"].(map[string]any)
	raw, err := json.Marshal(ext["limits"])
	if err != nil {
		return verdictJSON{}, false
	}
	var vs []verdictJSON
	json.Unmarshal(raw, &vs)
	for _, v := range vs {
		if v.Direction == dir {
			return v, true
		}
	}
	return verdictJSON{}, false
}
