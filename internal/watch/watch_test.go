package watch

import (
	"bytes"
	"fmt"
	"github.com/tcptune/tcptune/internal/attrib"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/tcptune/tcptune/internal/procnet"
	"github.com/tcptune/tcptune/internal/sockdiag"
	"github.com/tcptune/tcptune/internal/sockopt"
)

func sock(local, remote string, recvQ uint32, mem sockdiag.SkMem, info sockopt.TCPInfo) sockdiag.Socket {
	return sockdiag.Socket{Local: netip.MustParseAddrPort(local), Remote: netip.MustParseAddrPort(remote), State: "ESTAB", RecvQ: recvQ, Mem: &mem, Info: &info}
}

func TestFilter(t *testing.T) {
	s := sock("10.0.0.2:5201", "10.0.0.1:40000", 0, sockdiag.SkMem{}, sockopt.TCPInfo{})
	for expr, want := range map[string]bool{
		"": true, "sport=5201": true, "dport=5201": false, "port=40000": true, "dport = :40000": true,
		"src=10.0.0.2 dst=10.0.0.1": true, "dst=10.0.0.9": false, "state=estab": true, "state=listen": false,
	} {
		f, err := ParseFilter(expr)
		if err != nil {
			t.Errorf("%q: %v", expr, err)
			continue
		}
		if f.Match(s) != want {
			t.Errorf("%q matched %v", expr, !want)
		}
	}
	for _, bad := range []string{"sport", "sport=x", "dport=70000", "src=nothost", "color=red"} {
		if _, err := ParseFilter(bad); err == nil || !strings.HasPrefix(err.Error(), "--filter: ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Collapses on a socket whose receive buffer is
// full give "receive buffer overflowing on 10.0.0.2:5201: 312
// collapses/s; ...".
func TestReceiveOverflowVerdict(t *testing.T) {
	t0 := time.Unix(1000, 0)
	full := sock("10.0.0.2:5201", "10.0.0.1:40000", 60000, sockdiag.SkMem{RmemAlloc: 65000, Rcvbuf: 65536, Sndbuf: 87040}, sockopt.TCPInfo{RTT: 50000})
	idle := sock("10.0.0.2:22", "10.0.0.9:50000", 0, sockdiag.SkMem{Rcvbuf: 131072}, sockopt.TCPInfo{})
	prev := Sample{Time: t0, Sockets: []sockdiag.Socket{full, idle}, Counters: procnet.Counters{"TcpExt.TCPRcvCollapsed": 1000, "Tcp.RetransSegs": 5, SoftnetDrops: 0}}
	cur := Sample{Time: t0.Add(time.Second), Sockets: []sockdiag.Socket{full, idle}, Counters: procnet.Counters{"TcpExt.TCPRcvCollapsed": 1312, "Tcp.RetransSegs": 5, SoftnetDrops: 0}}
	r := Diff(prev, cur)
	if len(r.Verdicts) == 0 || !strings.HasPrefix(r.Verdicts[0], "receive buffer overflowing on 10.0.0.2:5201 (from 10.0.0.1:40000") ||
		!strings.Contains(r.Verdicts[0], "312 collapses/s; the application reads too slowly or tcp_rmem is too small") {
		t.Errorf("verdicts: %q", r.Verdicts)
	}
	var text bytes.Buffer
	WriteText(&text, r)
	for _, want := range []string{"10.0.0.2:5201", "65 KB/66 KB", "TcpExt.TCPRcvCollapsed", "312", "verdict: receive buffer overflowing"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestLimitedShares(t *testing.T) {
	t0 := time.Unix(1000, 0)
	// A sender at 1 Gbit/s × 50 ms held by its 4 MiB send buffer: 3.3 MB
	// in flight of a 6.0 MB window, 528 Mbit/s delivered.
	a := sock("10.0.0.1:40000", "10.0.0.2:5201", 0, sockdiag.SkMem{Sndbuf: 4194304, WmemQueued: 4100000},
		sockopt.TCPInfo{SndMSS: 1448, RTT: 50000, MinRTT: 50000, SndWnd: 20_000_000, SndCwnd: 4140, Unacked: 2279,
			BusyTime: 2_000_000, SndbufLimited: 1_000_000, Delivered: 100_000, BytesSent: 144_800_000, DataSegsOut: 100_000})
	b := a
	info := *a.Info
	info.BusyTime += 1_000_000
	info.SndbufLimited += 800_000 // 0.8 s of 1 s
	info.Delivered += 45_580
	info.BytesSent += 45_580 * 1448
	info.DataSegsOut += 45_580
	b.Info = &info
	r := Diff(Sample{Time: t0, Sockets: []sockdiag.Socket{a}}, Sample{Time: t0.Add(time.Second), Sockets: []sockdiag.Socket{b}})
	if got := r.Sockets[0].SndbufLimited; got < 0.79 || got > 0.81 {
		t.Errorf("sndbuf-limited share %.2f", got)
	}
	if l := r.Sockets[0].Limit; l == nil || l.Limit != attrib.SendBuffer || l.From != attrib.FromSender {
		t.Errorf("limit %+v", l)
	}
	if len(r.Verdicts) != 1 || !strings.HasPrefix(r.Verdicts[0], "10.0.0.1:40000 → 10.0.0.2:5201: limited by the send buffer") ||
		!strings.Contains(r.Verdicts[0], "raise net.ipv4.tcp_wmem max on the sender (this host, 10.0.0.1)") {
		t.Errorf("verdicts %q", r.Verdicts)
	}
	// The receiving end of a flow held by its own window: the receiver's
	// view names it.
	rcv := func(bytes uint64) sockdiag.Socket {
		return sock("10.0.0.2:5201", "10.0.0.1:40000", 0, sockdiag.SkMem{Rcvbuf: 524288},
			sockopt.TCPInfo{RcvMSS: 1448, RcvWnd: 345_000, RcvRTT: 40_000, MinRTT: 40_000, BytesReceived: bytes})
	}
	r = Diff(Sample{Time: t0, Sockets: []sockdiag.Socket{rcv(1e9)}}, Sample{Time: t0.Add(time.Second), Sockets: []sockdiag.Socket{rcv(1e9 + 8.1e6)}})
	if l := r.Sockets[0].Limit; l == nil || l.Limit != attrib.ReceiverWindow || l.From != attrib.FromReceiver {
		t.Errorf("receiver: limit %+v", l)
	}
	// Counters that went backwards (a namespace re-created) do not go
	// negative; a quiet interval has no verdict.
	r = Diff(Sample{Time: t0, Counters: procnet.Counters{"Tcp.RetransSegs": 10}}, Sample{Time: t0.Add(time.Second), Counters: procnet.Counters{"Tcp.RetransSegs": 3}})
	if r.Counters[0].Delta != 0 || len(r.Verdicts) != 0 {
		t.Errorf("%+v %q", r.Counters, r.Verdicts)
	}
}

type fixed Sample

func (f fixed) Sample() (Sample, error) { return Sample(f), nil }

func TestCollector(t *testing.T) {
	s := fixed{Time: time.Now(), Counters: procnet.Counters{"TcpExt.TCPRcvCollapsed": 7, "TcpExt.PruneCalled": 1},
		Sockets: []sockdiag.Socket{sock("10.0.0.2:5201", "10.0.0.1:40000", 100, sockdiag.SkMem{RmemAlloc: 2048, Rcvbuf: 4096}, sockopt.TCPInfo{RwndLimited: 2_000_000})}}
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(s))
	want := `
# HELP tcptune_netstat_total Kernel counters that reveal buffer trouble (/proc/net/netstat, snmp, softnet_stat).
# TYPE tcptune_netstat_total counter
tcptune_netstat_total{name="TcpExt.PruneCalled"} 1
tcptune_netstat_total{name="TcpExt.TCPRcvCollapsed"} 7
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tcptune_netstat_total"); err != nil {
		t.Error(err)
	}
	want = `
# HELP tcptune_socket_rmem_alloc_bytes skmem r: memory queued for the application.
# TYPE tcptune_socket_rmem_alloc_bytes gauge
tcptune_socket_rmem_alloc_bytes{local="10.0.0.2:5201",remote="10.0.0.1:40000",state="ESTAB"} 2048
# HELP tcptune_socket_limited_seconds_total Time the socket was limited, by the peer's receive window (rwnd) or its send buffer (sndbuf).
# TYPE tcptune_socket_limited_seconds_total counter
tcptune_socket_limited_seconds_total{by="rwnd",local="10.0.0.2:5201",remote="10.0.0.1:40000",state="ESTAB"} 2
tcptune_socket_limited_seconds_total{by="sndbuf",local="10.0.0.2:5201",remote="10.0.0.1:40000",state="ESTAB"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tcptune_socket_rmem_alloc_bytes", "tcptune_socket_limited_seconds_total"); err != nil {
		t.Error(err)
	}
}

// A scrape exports at most MaxSockets sockets (the most queued) and
// counts the rest: remote peers must not create series without bound.
func TestCollectorBoundsSockets(t *testing.T) {
	var socks []sockdiag.Socket
	for i := 0; i < 1000; i++ {
		socks = append(socks, sock("10.0.0.2:5201", fmt.Sprintf("10.%d.%d.1:40000", i/250, i%250), uint32(i), sockdiag.SkMem{}, sockopt.TCPInfo{}))
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(fixed{Time: time.Now(), Sockets: socks}))
	n, err := testutil.GatherAndCount(reg, "tcptune_socket_recv_queue_bytes")
	if err != nil || n != MaxSockets {
		t.Fatalf("%d series (%v), want %d", n, err, MaxSockets)
	}
	want := "\n# HELP tcptune_sockets_left_out Sockets this scrape did not export, beyond the most-queued 64.\n# TYPE tcptune_sockets_left_out gauge\ntcptune_sockets_left_out 936\n"
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "tcptune_sockets_left_out"); err != nil {
		t.Error(err)
	}
}

// Retransmits the receivers reported as duplicates (DSACK) are not loss:
// where every one was, the verdict says reordering; where some were, it
// counts them apart.
func TestRetransmitsTheReceiverHad(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		dup       float64
		want, not string
	}{
		{0, "50 retransmits/s: loss on the path", "duplicates"},
		{50, "reordering on the path or early timeouts, not loss", "the rest"},
		{20, "20/s of them segments the receivers already had (reordering or early timeouts); the rest: loss on the path", "not loss"},
	} {
		prev := Sample{Time: t0, Counters: procnet.Counters{"Tcp.RetransSegs": 100, "TcpExt.TCPDSACKRecvSegs": 7}}
		cur := Sample{Time: t0.Add(time.Second), Counters: procnet.Counters{"Tcp.RetransSegs": 150, "TcpExt.TCPDSACKRecvSegs": 7 + int64(c.dup)}}
		r := Diff(prev, cur)
		if len(r.Verdicts) != 1 || !strings.Contains(r.Verdicts[0], c.want) || strings.Contains(r.Verdicts[0], c.not) {
			t.Errorf("%.0f duplicates/s: %q", c.dup, r.Verdicts)
		}
	}
}

// Diff builds the report of cur against prev without evidence from within
// the interval.
func Diff(prev, cur Sample) Report { return DiffOver(prev, cur, nil) }
