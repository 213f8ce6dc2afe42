package watch

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tcptune/tcptune/internal/advise"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/sockdiag"
	"github.com/tcptune/tcptune/internal/sockopt"
)

var (
	here = netip.MustParseAddrPort("10.0.0.1:8080")
	peer = netip.MustParseAddrPort("10.0.1.7:40000")
)

// sender is a sending socket's TCP_INFO after mb megabytes in busyS
// seconds, sndbufS of them held by its send buffer.
func sender(mb, busyS, sndbufS float64) *sockopt.TCPInfo {
	segs := uint32(mb * 1e6 / 1448)
	return &sockopt.TCPInfo{SndMSS: 1448, RcvMSS: 536, RTT: 21000, MinRTT: 20000, SndCwnd: 700,
		SndSsthresh: 0x7fffffff, SndWnd: 8 << 20, BusyTime: uint64(busyS * 1e6), SndbufLimited: uint64(sndbufS * 1e6),
		BytesSent: uint64(segs) * 1448, BytesAcked: uint64(segs) * 1448, Delivered: segs, DataSegsOut: segs}
}

func receiver(mb float64) *sockopt.TCPInfo {
	return &sockopt.TCPInfo{SndMSS: 1448, RcvMSS: 1448, MinRTT: 20000, RcvRTT: 20500, RcvWnd: 6 << 20, BytesReceived: uint64(mb * 1e6)}
}

func TestTrackerEnd(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := &Tracker{GroupOf: DefaultGroupBy.Of}
	mem := &sockdiag.SkMem{Sndbuf: 1 << 20}
	tr.Sample(t0, []sockdiag.Socket{{Local: here, Remote: peer, Cookie: 1, Info: sender(10, 0.2, 0.15), Mem: mem}})

	// Seen alive: the period and the rate run from the first sighting,
	// and the notification (without skmem) takes the buffers last seen.
	f, ok := tr.End(t0.Add(2*time.Second), sockdiag.Socket{Local: here, Remote: peer, Cookie: 1, State: "CLOSE", Info: sender(110, 2.2, 1.65)})
	if !ok || !f.Judged || f.Role != Sent || f.Seconds != 2 || f.Group != "10.0.1.0/24" || !f.Start.Equal(t0) {
		t.Fatalf("seen flow: %+v", f)
	}
	if f.BitsPerSecond < 390e6 || f.BitsPerSecond > 410e6 {
		t.Errorf("rate %.0f, want ≈400 Mbit/s (100 MB in 2 s after the first sighting)", f.BitsPerSecond)
	}
	if f.Limit.Limit != attrib.SendBuffer || f.Limit.CapBPS == 0 {
		t.Errorf("limit %+v, want send-buffer with the cap of the 1 MiB buffer last seen", f.Limit)
	}
	if tr.Open() != 0 {
		t.Errorf("an ended flow stays tracked")
	}

	// Never seen alive: a sender's period is its busy time; a receiver
	// has no duration and is counted, not judged.
	f, _ = tr.End(t0, sockdiag.Socket{Local: here, Remote: peer, Cookie: 2, Info: sender(100, 2, 1.5)})
	if f.Seconds != 2 || !f.Judged {
		t.Errorf("unseen sender: %+v", f)
	}
	f, _ = tr.End(t0, sockdiag.Socket{Local: here, Remote: peer, Cookie: 3, Info: receiver(100)})
	if f.Judged || f.Role != Received || !strings.Contains(f.Why, "no duration") {
		t.Errorf("unseen receiver: %+v", f)
	}
	for _, s := range []sockdiag.Socket{
		{Local: here, Cookie: 4, Info: sender(1, 1, 0)},                                                // never connected
		{Local: here, Remote: peer, Cookie: 5, State: "LISTEN", Info: sender(1, 1, 0)},                 // a listener
		{Local: here, Remote: netip.AddrPortFrom(peer.Addr(), 0), Cookie: 6, Info: &sockopt.TCPInfo{}}, // no peer port
	} {
		if _, ok := tr.End(t0, s); ok {
			t.Errorf("%+v counted as a flow", s)
		}
	}
}

// TestLiveSamplesDecideWhatTheChronographMisses: the kernel's
// send-buffer chronograph stays at zero for a writer whose last bytes
// wait unsent, and the final TCP_INFO comes after close with nothing in
// flight; the bytes in flight against the buffer, sampled while the flow
// lived, decide (a cubic download from python's http.server through a
// 1 MiB tcp_wmem: 280 Mbit/s, 786 KB in flight, sndbuf_limited 0).
func TestLiveSamplesDecideWhatTheChronographMisses(t *testing.T) {
	t0 := time.Unix(1000, 0)
	live := func(mb, busy float64) *sockopt.TCPInfo {
		i := sender(mb, busy, 0)
		i.Unacked, i.SndCwnd, i.NotsentBytes, i.RTT = 540, 1113, 12000, 23800
		if mb < 2 { // first seen in slow start: it starts the period and stands for none of it
			i.Unacked, i.SndCwnd = 10, 20
		}
		return i
	}
	mem := &sockdiag.SkMem{Sndbuf: 1 << 20, WmemQueued: 930896}
	for _, c := range []struct {
		name    string
		samples int
		want    attrib.Limit
	}{
		{"sampled alive", 3, attrib.SendBuffer},
		{"only its end", 0, attrib.Network}, // what the chronograph says: nothing else to go by
	} {
		tr := &Tracker{}
		for k := range c.samples {
			tr.Sample(t0.Add(time.Duration(k)*400*time.Millisecond), []sockdiag.Socket{{Local: here, Remote: peer, Cookie: 1, Info: live(float64(1+14*k), 0.03+0.4*float64(k)), Mem: mem}})
		}
		end := sender(49, 1.4, 0) // after close: nothing in flight
		end.SndCwnd, end.RTT = 1113, 23800
		f, _ := tr.End(t0.Add(1400*time.Millisecond), sockdiag.Socket{Local: here, Remote: peer, Cookie: 1, Info: end, Mem: mem})
		if f.Limit == nil || f.Limit.Limit != c.want {
			t.Errorf("%s: %+v, want %s", c.name, f.Limit, c.want)
		}
	}
}

func TestTrackerForgetsUnheardEnds(t *testing.T) {
	tr := &Tracker{}
	s := sockdiag.Socket{Local: here, Remote: peer, Cookie: 9, Info: sender(1, 1, 0)}
	tr.Sample(time.Unix(0, 0), []sockdiag.Socket{s})
	tr.Sample(time.Unix(1, 0), nil) // its notification may still be on the way
	if tr.Open() != 1 {
		t.Fatalf("a flow one dump no longer lists is forgotten at once: its end would lose its period")
	}
	tr.Sample(time.Unix(2, 0), nil)
	if tr.Open() != 0 {
		t.Fatalf("a flow two dumps no longer list is kept: the tracker grows without bound")
	}
}

func TestTooShort(t *testing.T) {
	for _, c := range []struct {
		name    string
		f       Flow
		info    *sockopt.TCPInfo
		short   bool
		earlier uint64
	}{
		// 480 Mbit/s × 20 ms is 829 segments: 8 rounds of slow start.
		{"50 MB at 480 Mbit/s over 0.85 s (42 rounds)", Flow{Role: Sent, Seconds: 0.85, BitsPerSecond: 480e6, MinRTTms: 20}, &sockopt.TCPInfo{SndMSS: 1448, SndCwnd: 900}, false, 0},
		{"the same over 0.5 s (25 rounds)", Flow{Role: Sent, Seconds: 0.5, BitsPerSecond: 480e6, MinRTTms: 20}, &sockopt.TCPInfo{SndMSS: 1448, SndCwnd: 900}, true, 0},
		{"seen late: the busy time counts its life", Flow{Role: Sent, Seconds: 0.5, BitsPerSecond: 480e6, MinRTTms: 20}, &sockopt.TCPInfo{SndMSS: 1448, SndCwnd: 900, BusyTime: 900000}, false, 0},
		{"a small window needs few rounds", Flow{Role: Sent, Seconds: 0.2, BitsPerSecond: 5e6, MinRTTms: 20}, &sockopt.TCPInfo{SndMSS: 1448, SndCwnd: 10}, false, 0},
		{"a receiver by its own RTT", Flow{Role: Received, Seconds: 3, BitsPerSecond: 300e6}, &sockopt.TCPInfo{RcvMSS: 1448, RcvRTT: 20000}, false, 0},
		{"a receiver seen late", Flow{Role: Received, Seconds: 0.5, BitsPerSecond: 417e6, MinRTTms: 20}, &sockopt.TCPInfo{RcvMSS: 1448}, true, 0},
		{"a receiver seen late: its earlier bytes count its life", Flow{Role: Received, Seconds: 0.5, BitsPerSecond: 417e6, MinRTTms: 20}, &sockopt.TCPInfo{RcvMSS: 1448}, false, 30e6},
		{"no RTT", Flow{Role: Received, Seconds: 3, BitsPerSecond: 300e6}, &sockopt.TCPInfo{RcvMSS: 1448}, true, 0},
	} {
		if got := tooShort(c.f, c.info, c.earlier) != ""; got != c.short {
			t.Errorf("%s: short %v, want %v", c.name, got, c.short)
		}
	}
}

func TestParseGroupBy(t *testing.T) {
	for _, c := range []struct {
		in   string
		want GroupBy
		bad  bool
	}{
		{"24,64", GroupBy{V4: 24, V6: 64}, false},
		{"/16", GroupBy{V4: 16, V6: 64}, false},
		{"32,/128", GroupBy{V4: 32, V6: 128}, false},
		{"port", GroupBy{Port: true}, false},
		{"33", GroupBy{}, true},
		{"24,129", GroupBy{}, true},
		{"x", GroupBy{}, true},
		{"8,16,24", GroupBy{}, true},
	} {
		g, err := ParseGroupBy(c.in)
		if (err != nil) != c.bad || !c.bad && g != c.want {
			t.Errorf("%q: %+v %v", c.in, g, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "--group: accepts") {
			t.Errorf("%q: %v: not one line naming the flag", c.in, err)
		}
	}
	v6 := netip.MustParseAddrPort("[2001:db8:1:2:3::9]:443")
	if g := DefaultGroupBy.Of(here, v6); g != "2001:db8:1:2::/64" {
		t.Errorf("v6 group %s", g)
	}
	if g := (GroupBy{Port: true}).Of(here, peer); g != "port 8080" {
		t.Errorf("port group %s", g)
	}
}

// judged is a judged flow of a group with a verdict.
func judged(group string, role Role, l attrib.Limit, secs, bps float64, ruled ...attrib.Limit) Flow {
	return Flow{Group: group, Role: role, Judged: true, Seconds: secs, BitsPerSecond: bps, MinRTTms: 50,
		BytesSent: uint64(bps / 8 * secs), BytesReceived: uint64(bps / 8 * secs), Bytes: uint64(bps / 8 * secs), peer: peer.Addr(),
		Limit: &attrib.Result{Limit: l, RuledOut: ruled}}
}

// TestGroupAdviceWhereTheKnobActs: the setting named is the one that
// acts on the group's limit, on the host that holds it: the sender's
// tcp_wmem for its buffer, the receiver's tcp_rmem for its window.
func TestGroupAdviceWhereTheKnobActs(t *testing.T) {
	for _, c := range []struct {
		role    Role
		limit   attrib.Limit
		key     string
		host    string
		command bool
	}{
		{Sent, attrib.SendBuffer, "net.ipv4.tcp_wmem", "this host", true},
		{Sent, attrib.ReceiverWindow, "net.ipv4.tcp_rmem", "10.0.1.7", true},
		{Received, attrib.ReceiverWindow, "net.ipv4.tcp_rmem", "this host", true},
		{Received, attrib.SendBuffer, "net.ipv4.tcp_wmem", "10.0.1.7", true},
		{Received, attrib.Unknown, "", "10.0.1.7", false},
		{Sent, attrib.Network, "", "", false},
		{Sent, attrib.Application, "", "", false},
	} {
		var gs Groups
		gs.Add(judged("g", c.role, c.limit, 10, 100e6, attrib.ReceiverWindow))
		g := gs.Summary(1e9, "")[0]
		a := g.Advice
		switch {
		case c.host == "" && a != nil:
			t.Errorf("%s %s: advice %+v where no buffer acts", c.role, c.limit, a)
		case c.host == "":
		case a == nil:
			t.Errorf("%s %s: no advice", c.role, c.limit)
		case a.Key != c.key || a.Host != c.host || (a.Command != "") != c.command:
			t.Errorf("%s %s: %+v, want %s on %s", c.role, c.limit, a, c.key, c.host)
		case c.command && (a.Values[2] < 6_250_000 || !strings.Contains(a.Command, "sysctl -w "+c.key)):
			// 1 Gbit/s × 50 ms is a 6.25 MB BDP: no buffer below it carries it.
			t.Errorf("%s %s: %v for 1 Gbit/s × 50 ms", c.role, c.limit, a.Values)
		}
	}
}

func TestGroupsSum(t *testing.T) {
	var gs Groups
	// Time decides the verdict, not the number of flows.
	gs.Add(judged("a", Sent, attrib.SendBuffer, 30, 200e6))
	gs.Add(judged("a", Sent, attrib.Network, 5, 600e6))
	gs.Add(judged("a", Sent, attrib.Network, 5, 500e6))
	gs.Add(Flow{Group: "a", Role: Sent, BytesSent: 1000, Why: "too short to leave slow start", peer: peer.Addr()})
	gs.Add(judged("a", Received, attrib.Unknown, 10, 50e6, attrib.ReceiverWindow, attrib.Application))
	gs.Add(judged("a", Received, attrib.Unknown, 10, 60e6, attrib.ReceiverWindow))
	got := gs.Summary(1e9, "")
	if len(got) != 2 {
		t.Fatalf("%d groups, want one per direction", len(got))
	}
	s := got[0]
	if s.Role != Sent || s.Flows != 4 || s.Judged != 3 || s.Verdict != attrib.SendBuffer || s.Share != 0.75 || s.MedianBPS != 500e6 || s.TopBPS != 600e6 {
		t.Errorf("sent: %+v", s)
	}
	if r := got[1]; r.Verdict != attrib.Unknown || len(r.RuledOut) != 1 || r.RuledOut[0] != attrib.ReceiverWindow {
		t.Errorf("received: %+v, want unknown ruling out only what every flow ruled out", r)
	}
	for i := range MaxGroups + 10 {
		gs.Add(Flow{Group: string(rune('A' + i)), Role: Sent, peer: peer.Addr()})
	}
	if n := len(gs.Summary(1e9, "")); n > MaxGroups+1 {
		t.Errorf("%d groups: beyond MaxGroups flows go to other", n)
	}
}

// TestFlowMetricsAreBounded: the series are per group, direction and
// limit, never per socket, however many flows end.
func TestFlowMetricsAreBounded(t *testing.T) {
	run := NewFlowRun(FlowConfig{TargetBPS: 1e9})
	for i := range 5000 {
		f := judged("10.0.1.0/24", Sent, attrib.SendBuffer, 1, 100e6)
		f.Local, f.Remote = "10.0.0.1:8080", netip.AddrPortFrom(peer.Addr(), uint16(10000+i)).String()
		run.groups.Add(f)
	}
	run.groups.Add(judged("10.0.2.0/24", Received, attrib.ReceiverWindow, 2, 50e6))
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewFlowCollector(run))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			series++
			for _, lp := range m.GetLabel() {
				if n := lp.GetName(); n != "group" && n != "dir" && n != "limit" {
					t.Errorf("%s has label %s", mf.GetName(), n)
				}
			}
			if mf.GetName() == "tcptune_flows_ended_total" && m.GetLabel()[0].GetValue() == "10.0.1.0/24" && m.GetCounter().GetValue() != 5000 {
				t.Errorf("ended_total %v, want 5000", m.GetCounter().GetValue())
			}
		}
	}
	// 2 groups × 6 series, the overrun counter.
	if series != 13 {
		t.Errorf("%d series, want 13", series)
	}
}

// TestSavedSummaryAdvice: advise --flows reads what watch --flows --json
// wrote and sizes this host's buffers for the longest RTT among the
// groups they held; the peers' settings are listed for them.
func TestSavedSummaryAdvice(t *testing.T) {
	var gs Groups
	near := judged("10.0.1.0/24", Sent, attrib.SendBuffer, 10, 100e6)
	far := judged("10.9.0.0/24", Received, attrib.ReceiverWindow, 10, 100e6)
	far.MinRTTms = 80
	gs.Add(near)
	gs.Add(far)
	gs.Add(judged("10.5.0.0/24", Sent, attrib.ReceiverWindow, 10, 100e6)) // the peer's window
	gs.Add(judged("10.6.0.0/24", Sent, attrib.Network, 10, 100e6))
	var buf strings.Builder
	f := near
	WriteJSONLine(&buf, FlowLine{Flow: &f})
	// Watched on a 6.1 kernel (tcp_rmem's default max 6 MiB): the advice
	// for this host's buffers is its need, not a newer kernel's default.
	const kernel = "6.1.0-18-amd64"
	WriteJSONLine(&buf, FlowLine{Summary: &Summary{TargetBPS: 1e9, Kernel: kernel, Groups: gs.Summary(1e9, kernel)}})
	s, err := ReadSummary(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	a := s.Advise(0)
	if a.Rate != 1e9 || a.RTT != 80*time.Millisecond {
		t.Errorf("sized for %.0f bit/s × %v, want the summary's 1 Gbit/s × the held groups' longest RTT, 80 ms", a.Rate, a.RTT)
	}
	if len(a.Peers) != 1 || !strings.Contains(a.Peers[0], "tcp_rmem") {
		t.Errorf("peers %q, want the one whose window held", a.Peers)
	}
	if len(a.Groups) != 4 || !strings.Contains(strings.Join(a.Groups, "\n"), "network 100%: no buffer acts on it") {
		t.Errorf("groups %q", a.Groups)
	}
	if a := s.Advise(1e7); a.Rate != 1e7 {
		t.Errorf("--rate does not override: %v", a.Rate)
	}
	// advise --flows FILE: the verdicts as comments, then settings
	// sized for them; JSON has no comments; the RTT is the flows'.
	file := filepath.Join(t.TempDir(), "flows.json")
	if err := os.WriteFile(file, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for format, want := range map[string]string{"sysctl": "# from the flows watched (for 1 Gbit/s per flow):", "json": "{"} {
		var out strings.Builder
		err := WriteAdvice(&out, advise.Input{OS: "linux", Role: "host", Streams: 1, Connections: 100}, file, format)
		if err != nil || !strings.HasPrefix(out.String(), want) {
			t.Errorf("advise --flows --format %s: %v, want it to begin %q:\n%s", format, err, want, out.String())
		}
		if format == "sysctl" && !strings.Contains(out.String(), "net.ipv4.tcp_wmem") {
			t.Errorf("advise --flows: no tcp_wmem for the group this host's send buffer held:\n%s", out.String())
		}
		// advise --flows and watch's own advice for the group this
		// host's window held agree, on the watched host's kernel.
		for _, g := range s.Groups {
			if a := g.Advice; format == "sysctl" && a != nil && a.Key == "net.ipv4.tcp_rmem" && a.Host == "this host" &&
				(a.Values[2] >= 33554432 || !strings.Contains(out.String(), fmt.Sprintf("net.ipv4.tcp_rmem = %d %d %d", a.Values[0], a.Values[1], a.Values[2]))) {
				t.Errorf("watch advises tcp_rmem %v on a %s kernel, advise --flows:\n%s", a.Values, kernel, out.String())
			}
		}
	}
	if err := WriteAdvice(io.Discard, advise.Input{OS: "linux", RTT: time.Millisecond}, file, "text"); err == nil || !strings.HasPrefix(err.Error(), "--rtt:") {
		t.Errorf("advise --flows --rtt: %v, want --rtt refused", err)
	}
	for _, bad := range []string{"", "{}\n", "not json\n"} {
		if _, err := ReadSummary(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read as a summary", bad)
		}
	}
}

// TestOpenFlowsAreRecorded: a flow that lasts longer than Every is
// judged and recorded while open, each record over the period since the
// last; its end's record covers the rest, and the records' bytes add up
// to what it moved, counted once.
func TestOpenFlowsAreRecorded(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tr := &Tracker{Every: time.Minute}
	var gs Groups
	mem := &sockdiag.SkMem{Sndbuf: 1 << 20}
	var records []Flow
	for k := 0; k <= 130; k++ { // a 25 MB/s flow, dumped every second
		info := sender(25*float64(k)+1, float64(k), 0.75*float64(k))
		records = append(records, tr.Sample(t0.Add(time.Duration(k)*time.Second), []sockdiag.Socket{{Local: here, Remote: peer, Cookie: 7, Info: info, Mem: mem}})...)
	}
	end, _ := tr.End(t0.Add(131*time.Second), sockdiag.Socket{Local: here, Remote: peer, Cookie: 7, Info: sender(25*131+1, 131, 0.75*131)})
	records = append(records, end)
	if len(records) != 3 || !records[0].Open || !records[1].Open || records[2].Open {
		t.Fatalf("%d records, want two open and the end's", len(records))
	}
	var bytes uint64
	for i, want := range []float64{60, 60, 11} {
		f := records[i]
		bytes += f.Bytes
		gs.Add(f)
		if f.Seconds != want || !f.Judged || f.Limit.Limit != attrib.SendBuffer || !f.Start.Equal(t0) {
			t.Errorf("record %d: %.0f s judged %v %+v, want %v s held by the send buffer", i, f.Seconds, f.Judged, f.Limit, want)
		}
		if f.BitsPerSecond < 195e6 || f.BitsPerSecond > 205e6 {
			t.Errorf("record %d: %.0f bit/s, want 200 Mbit/s", i, f.BitsPerSecond)
		}
	}
	if total := records[2].BytesSent; bytes != total {
		t.Errorf("records add to %d bytes, the flow moved %d", bytes, total)
	}
	g := gs.Summary(1e9, "")[0]
	if g.Flows != 1 || g.OpenRecords != 2 || g.Judged != 3 || g.Bytes != bytes {
		t.Errorf("group %+v: one flow, two open records, its bytes once", g)
	}
}
