package interop_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// perfSONAR's pScheduler runs iperf3 for its throughput tests, as the
// iperf3_cmd of its tool configuration (pscheduler-tool-iperf3, files
// "run" and "iperf3_parser.py"). These are the command lines it builds,
// less the port, which the test adds: the client participant's from each
// spec option, and the server participant's.
var pschedulerClients = []struct {
	name string
	args []string
	udp  bool
}{
	{"plain", []string{"-c", "127.0.0.1", "-t", "1", "--json"}, false},
	{"options", []string{"-4", "-B", "127.0.0.1", "-c", "127.0.0.1", "-t", "1", "--json", "-i", "1", "-P", "2", "-w", "262144",
		"-M", "1400", "-O", "1", "-b", "400000000", "-l", "65536", "-S", "32", "-C", "reno", "-Z"}, false},
	{"reverse", []string{"-c", "127.0.0.1", "-t", "1", "--json", "-R", "--fq-rate", "1000000000"}, false},
	{"udp", []string{"-c", "127.0.0.1", "-t", "1", "--json", "-u", "-b", "50000000", "-l", "1400"}, true},
	{"ipv6-flowlabel", []string{"-6", "-B", "::1", "-c", "::1", "-t", "1", "--json", "-L", "12345"}, false},
}

var pschedulerServers = [][]string{
	{"-s", "-1", "--json"},
	{"-s", "-1", "--json", "-B", "127.0.0.1", "-4"},
	{"-s", "-1", "--json", "--use-pkcs1-padding"},
}

// pschedulerParse checks what pScheduler's parser reads: "intervals"
// and "end" present, end.sum_sent (TCP) or end.sum (UDP), and the keys
// it renames in every interval stream and sum and in end.streams[].sender
// or .udp.
func pschedulerParse(t *testing.T, out string, udp bool) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%.2000s", err, out)
	}
	if e, ok := doc["error"]; ok {
		t.Fatalf("error: %v", e)
	}
	ivs, _ := doc["intervals"].([]any)
	end, _ := doc["end"].(map[string]any)
	if len(ivs) == 0 || end == nil {
		t.Fatalf("intervals %d, end %v", len(ivs), end != nil)
	}
	need := []string{"socket", "start", "end", "bytes", "bits_per_second", "omitted"}
	if udp {
		need = append(need, "packets")
	} else {
		need = append(need, "retransmits", "snd_cwnd", "rtt")
	}
	for _, iv := range ivs {
		iv := iv.(map[string]any)
		for _, s := range iv["streams"].([]any) {
			s := s.(map[string]any)
			if sender, _ := s["sender"].(bool); !sender && !udp {
				continue // iperf3's receiving side has no TCP_INFO keys (-R)
			}
			for _, k := range need {
				if _, ok := s[k]; !ok {
					t.Errorf("interval stream lacks %q: %v", k, s)
				}
			}
		}
		if _, ok := iv["sum"].(map[string]any)["bits_per_second"]; !ok {
			t.Errorf("interval sum lacks bits_per_second")
		}
	}
	sumKey, streamKey := "sum_sent", "sender"
	if udp {
		sumKey, streamKey = "sum", "udp"
	}
	if s, ok := end[sumKey].(map[string]any); !ok || s["bits_per_second"] == nil {
		t.Errorf("end lacks %s.bits_per_second", sumKey)
	}
	streams, _ := end["streams"].([]any)
	for _, s := range streams {
		v, ok := s.(map[string]any)[streamKey].(map[string]any)
		if !ok {
			t.Errorf("end stream lacks %q", streamKey)
			continue
		}
		for _, k := range []string{"socket", "bytes", "bits_per_second"} {
			if _, ok := v[k]; !ok {
				t.Errorf("end.streams[].%s lacks %q", streamKey, k)
			}
		}
	}
}

// tcptune installed as pScheduler's iperf3_cmd: every client command
// line pScheduler builds runs against tcptune serve and against iperf3
// 3.22, and prints what its parser reads; every server command line
// serves an iperf3 3.22 client and prints one JSON document.
func TestPSchedulerCommandLines(t *testing.T) {
	bin := testutil.Binary(t)
	newest := testutil.NeedIperf3Newest(t)
	link := t.TempDir() + "/iperf3"
	if err := exec.Command("ln", "-s", bin, link).Run(); err != nil {
		t.Fatal(err)
	}
	servers := map[string]func(t *testing.T) int{
		"tcptune-serve": func(t *testing.T) int { p, _ := startTcptuneServer(t); return p },
		"iperf3-3.22":   func(t *testing.T) int { return startIperf3Server(t, newest) },
	}
	for sname, start := range servers {
		port := start(t)
		for _, c := range pschedulerClients {
			t.Run(sname+"/"+c.name, func(t *testing.T) {
				args := append([]string{"-p", strconv.Itoa(port)}, c.args...)
				out, errOut, err := runRetrying(t, 60*time.Second, link, args...)
				if err != nil {
					t.Fatalf("iperf3 %v: %v\n%.2000s\n%s", args, err, out, errOut)
				}
				pschedulerParse(t, out, c.udp)
			})
		}
	}
	for _, s := range pschedulerServers {
		t.Run("server "+strings.Join(s, " "), func(t *testing.T) {
			port, p := testutil.ServeOnFreePort(t, link, func(port int) []string { return append(slices.Clone(s), "-p", strconv.Itoa(port)) })
			if out, errOut, err := testutil.Run(t, 60*time.Second, newest, "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1", "--json"); err != nil {
				t.Fatalf("client: %v\n%s%s", err, out, errOut)
			}
			if !p.Wait(10 * time.Second) {
				t.Fatal("-1: the server did not exit after its test")
			}
			var doc map[string]any
			if err := json.Unmarshal(p.Stdout.Bytes(), &doc); err != nil || doc["end"] == nil {
				t.Fatalf("the server printed no JSON document: %v\n%.2000s", err, p.Stdout.String())
			}
		})
	}
}
