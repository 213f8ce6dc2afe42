package report

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/cpuusage"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/result"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/wire"
)

func endJSON(t *testing.T, p wire.Params, totals []engine.StreamTotal, peer *wire.Results) map[string]any {
	t.Helper()
	s := result.Summarize(result.Meta{Params: p}, totals, peer, cpuusage.Util{Total: 50})
	b, err := json.Marshal(EndObj(s))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func TestSenderSemantics(t *testing.T) {
	peer := &wire.Results{SenderHasRetransmits: 1, Streams: []wire.StreamResult{{ID: 1, Bytes: 1000, Retransmits: 3, EndTime: 2}}}
	// Normal client: it sent, so "sender" is true in both blocks.
	m := endJSON(t, wire.Params{Parallel: 1}, []engine.StreamTotal{{ID: 1, Socket: 5, Sender: true, Bytes: 1000, Seconds: 2, HasTCPInfo: true, Retransmits: 2}}, peer)
	st := m["streams"].([]any)[0].(map[string]any)
	if st["receiver"].(map[string]any)["sender"] != true || st["sender"].(map[string]any)["sender"] != true {
		t.Fatalf("normal: %v", st)
	}
	if m["sum_sent"].(map[string]any)["retransmits"].(float64) != 2 {
		t.Fatalf("retransmits %v", m["sum_sent"])
	}
	// -R client: it received; both blocks false, retransmits from the peer.
	m = endJSON(t, wire.Params{Parallel: 1, Reverse: true}, []engine.StreamTotal{{ID: 1, Socket: 5, Bytes: 1000, Seconds: 2, Retransmits: -1}}, peer)
	st = m["streams"].([]any)[0].(map[string]any)
	snd := st["sender"].(map[string]any)
	if snd["sender"] != false || st["receiver"].(map[string]any)["sender"] != false || snd["retransmits"].(float64) != 3 || snd["max_snd_cwnd"].(float64) != 0 {
		t.Fatalf("reverse: %v", st)
	}
	if m["sum_received"].(map[string]any)["bits_per_second"].(float64) != 4000 {
		t.Fatalf("sum_received %v", m["sum_received"])
	}
}

func TestUDPSums(t *testing.T) {
	peer := &wire.Results{Streams: []wire.StreamResult{{ID: 1, Bytes: 900, Packets: 10, Errors: 1, Jitter: 0.002, EndTime: 1}}}
	m := endJSON(t, wire.Params{Parallel: 1, UDP: true}, []engine.StreamTotal{{ID: 1, Sender: true, UDP: true, Bytes: 1000, Packets: 10, Seconds: 1}}, peer)
	if m["sum_sent"].(map[string]any)["sender"] != true || m["sum_received"].(map[string]any)["sender"] != false {
		t.Fatalf("UDP sum sender flags: %v", m)
	}
	r := m["sum_received"].(map[string]any)
	if r["lost_packets"].(float64) != 1 || r["lost_percent"].(float64) != 10 || r["jitter_ms"].(float64) != 2 {
		t.Fatalf("receiver view %v", r)
	}
	u := m["streams"].([]any)[0].(map[string]any)["udp"].(map[string]any)
	if u["bytes"].(float64) != 1000 || u["lost_packets"].(float64) != 1 {
		t.Fatalf("udp stream %v", u)
	}
}

func TestDocumentAndText(t *testing.T) {
	m := result.Meta{Params: wire.Params{Parallel: 2, Time: 1, Title: "x"}, Started: time.Unix(1795344892, 0), Version: "v", Connected: []result.Conn{{Socket: 5}}}
	iv := engine.Interval{Streams: []engine.StreamInterval{
		{ID: 1, Start: 0, End: 1, Seconds: 1, Bytes: 1 << 30, BitsPerSecond: 8.59e9, Sender: true, HasTCPInfo: true, SndCwnd: 1 << 20, RTT: 50000},
		{ID: 3, Start: 0, End: 1, Seconds: 1, Bytes: 1 << 30, BitsPerSecond: 8.59e9, Sender: true, HasTCPInfo: true},
	}}
	d := Document{Start: StartObj(m), Intervals: []Obj{IntervalObj(iv)}, Title: "x", Tcptune: map[string]int{"a": 1}}
	b := Indent(d)
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["title"] != "x" || back["tcptune"] == nil || !strings.Contains(string(b), "\n\t\"start\"") {
		t.Fatalf("document: %s", b)
	}
	if back["start"].(map[string]any)["timestamp"].(map[string]any)["time"] != "Sun, 22 Nov 2026 10:54:52 GMT" {
		t.Fatalf("timestamp %v", back["start"])
	}
	lines := IntervalLines(m, iv)
	if len(lines) != 4 || !strings.HasPrefix(lines[2], "[SUM]") || !strings.Contains(lines[0], "8.59 Gbits/sec") || !strings.Contains(lines[0], "50.0 ms") {
		t.Fatalf("text:\n%s", strings.Join(lines, "\n"))
	}
	if got := Bytes(3.98 * (1 << 30)); got != "3.98 GBytes" {
		t.Errorf("Bytes = %q", got)
	}
	if got := Rate(34.2e9, 0); got != "34.2 Gbits/sec" {
		t.Errorf("Rate = %q", got)
	}
	if got := Rate(1e9, 'm'); got != "1000 Mbits/sec" {
		t.Errorf("Rate m = %q", got)
	}
}

func TestConnectedLine(t *testing.T) {
	c := result.Conn{ID: 5, LocalHost: "::1", LocalPort: 5201, RemoteHost: "10.0.0.2", RemotePort: 40000}
	if got := ConnectedLine(c); got != "[  5] local ::1 port 5201 connected to 10.0.0.2 port 40000" {
		t.Fatalf("%q", got)
	}
}

func TestPrefixWriter(t *testing.T) {
	var b strings.Builder
	w := &PrefixWriter{W: &b, Prefix: "T:  "}
	io.WriteString(w, "one\ntw")
	io.WriteString(w, "o\n\nthree\n")
	if b.String() != "T:  one\nT:  two\nT:  \nT:  three\n" {
		t.Fatalf("%q", b.String())
	}
}

// -T and --timestamps prefix text lines only: a JSON mode, or neither
// flag, writes through untouched.
func TestPrefixed(t *testing.T) {
	for _, c := range []struct {
		mode         Mode
		title, stamp string
		want         string
	}{
		{Text, "", "", "a\n"},
		{Text, "T", "", "T:  a\n"},
		{Text, "T", "[x] ", "[x] T:  a\n"},
		{Text, "", "[x] ", "[x] a\n"},
		{JSON, "T", "[x] ", "a\n"},
		{JSONStream, "T", "", "a\n"},
	} {
		var b strings.Builder
		io.WriteString(Prefixed(&b, c.mode, c.title, c.stamp), "a\n")
		if b.String() != c.want {
			t.Errorf("%v %q %q: %q, want %q", c.mode, c.title, c.stamp, b.String(), c.want)
		}
	}
}

func TestRepeatLine(t *testing.T) {
	s := stats.Summarize([]float64{9e8, 9.5e8, 1e9}, 0.95)
	got := RepeatLine(s, 0)
	if !strings.HasPrefix(got, "Repeat (3 runs): median  950 Mbits/sec, min  900 Mbits/sec, max 1.00 Gbits/sec") || !strings.Contains(got, "use 6 or more") {
		t.Fatalf("%q", got)
	}
}

// iperf3's output flags to a mode; -J with --json-stream is refused.
func TestModeOf(t *testing.T) {
	for _, c := range []struct {
		json, stream, full bool
		want               Mode
	}{
		{false, false, false, Text}, {true, false, false, JSON},
		{false, true, false, JSONStream}, {false, false, true, JSONStreamFull}, {false, true, true, JSONStreamFull},
	} {
		if m, err := ModeOf(c.json, c.stream, c.full); err != nil || m != c.want {
			t.Errorf("%+v: %v %v", c, m, err)
		}
	}
	if _, err := ModeOf(true, true, false); err == nil || err.Error() != "-J and --json-stream: choose one" {
		t.Errorf("-J --json-stream: %v", err)
	}
}
