package attrib

import (
	"strings"
	"testing"
)

func TestReceiverWindow(t *testing.T) {
	// The example: 91% rwnd-limited, 6.0 MB window at 50 ms.
	r := Attribute(Input{
		WallUS: 10e6, BusyUS: 10e6, RwndLimitedUS: 9.1e6, SndWnd: 6e6, RTTUS: 50000,
		Retransmits: 0, BitsPerSecond: 950e6, Streams: 1, Receiver: "10.0.0.2", SenderIsLocal: true,
	})
	if r.Limit != ReceiverWindow {
		t.Fatalf("limit %s", r.Limit)
	}
	want := "limited by the receiver's window 91% of the time (window 6.0 MB at RTT 50 ms caps one flow at 960 Mbit/s): raise net.ipv4.tcp_rmem max on the receiver (10.0.0.2)"
	if r.String() != want {
		t.Fatalf("got  %s\nwant %s", r, want)
	}
}

func TestSendBufferLocal(t *testing.T) {
	r := Attribute(Input{WallUS: 1e6, BusyUS: 1e6, SndbufLimitUS: 8e5, SndBuf: 4 << 20, RTTUS: 50000, SenderIsLocal: true, Streams: 1})
	if r.Limit != SendBuffer || !strings.Contains(r.Advice, "tcp_wmem") || !strings.Contains(r.Advice, "this host") {
		t.Fatalf("%+v", r)
	}
	if r.CapBPS < 670e6 || r.CapBPS > 672e6 {
		t.Fatalf("cap %v", r.CapBPS)
	}
}

func TestSendBufferFromInflight(t *testing.T) {
	// 446 Mbit/s at 55.6 ms is 3.1 MB in flight: far below cwnd (6.2 MB)
	// and the peer's window (20 MB), close to the 4 MB send buffer.
	r := Attribute(Input{WallUS: 6e6, BusyUS: 6e6, CwndBytes: 6.19e6, SndWnd: 20e6, SndBuf: 4 << 20, RTTUS: 55600,
		BitsPerSecond: 446e6, Streams: 1, SenderIsLocal: true, Retransmits: 0})
	if r.Limit != SendBuffer || !strings.Contains(r.Advice, "tcp_wmem") {
		t.Fatalf("%s", r)
	}
	// The same flow with cwnd as large as what is in flight is network-bound.
	r = Attribute(Input{WallUS: 6e6, BusyUS: 6e6, CwndBytes: 3.2e6, SndWnd: 20e6, SndBuf: 4 << 20, RTTUS: 55600, BitsPerSecond: 446e6, Streams: 1})
	if r.Limit != Network {
		t.Fatalf("%s", r)
	}
}

func TestWindowFlag(t *testing.T) {
	r := Attribute(Input{WallUS: 1e6, BusyUS: 1e6, RwndLimitedUS: 9e5, SndWnd: 339e3, RTTUS: 50000, Window: 256 << 10, Receiver: "b"})
	if !strings.Contains(r.Advice, "-w") || !strings.Contains(r.Advice, "rmem_max") {
		t.Fatalf("%s", r)
	}
}

func TestNetworkAndCPU(t *testing.T) {
	r := Attribute(Input{WallUS: 1e6, BusyUS: 9.8e5, CwndBytes: 6e6, Retransmits: 90, RTTUS: 90000, MinRTTUS: 50000})
	if r.Limit != Network || !strings.Contains(r.Verdict, "90 retransmits") || !strings.Contains(r.Verdict, "queue") {
		t.Fatalf("%s", r)
	}
	r = Attribute(Input{WallUS: 1e6, BusyUS: 9.6e5, CwndBytes: 1e6, RTTUS: 160, MinRTTUS: 4, SenderCPU: 90, ReceiverCPU: 60, SenderCores: 2, Streams: 1})
	if r.Limit != CPU || !strings.Contains(r.Verdict, "sender used 90%") {
		t.Fatalf("loopback: %s", r)
	}
	r = Attribute(Input{WallUS: 1e6, BusyUS: 2e5, SenderCPU: 99, SenderCores: 2, Streams: 1})
	if r.Limit != CPU {
		t.Fatalf("%s", r)
	}
	r = Attribute(Input{WallUS: 1e6, BusyUS: 2e5, SenderCPU: 5, Streams: 1})
	if r.Limit != Application {
		t.Fatalf("%s", r)
	}
	r = Attribute(Input{WallUS: 1e6, BusyUS: 1e5, TargetRate: 100e6, BitsPerSecond: 100e6, Streams: 1})
	if r.Limit != Application || !strings.Contains(r.Verdict, "-b") {
		t.Fatalf("%s", r)
	}
	if Attribute(Input{}).Limit != Unknown {
		t.Fatal("empty input")
	}
}

func TestMerge(t *testing.T) {
	m := Merge([]Input{
		{WallUS: 1e6, BusyUS: 1e6, RwndLimitedUS: 1e6, SndWnd: 100, RTTUS: 10, Retransmits: 1, BitsPerSecond: 5, Streams: 1},
		{WallUS: 1e6, BusyUS: 1e6, RwndLimitedUS: 0, SndWnd: 300, RTTUS: 30, Retransmits: 2, BitsPerSecond: 7, Streams: 1},
	})
	if m.WallUS != 2e6 || m.RwndLimitedUS != 1e6 || m.SndWnd != 200 || m.RTTUS != 20 || m.Retransmits != 3 || m.BitsPerSecond != 12 || m.Streams != 2 {
		t.Fatalf("%+v", m)
	}
	r := Attribute(m)
	if r.Shares.ReceiverWindow != 0.5 || r.Shares.Network != 0.5 {
		t.Fatalf("%+v", r.Shares)
	}
}
