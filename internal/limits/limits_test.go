package limits

import (
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/wire"
)

// A 2 s stream that spent nearly all its time limited by the receiver's
// window.
func rwndBound(id int) wire.ExtStream {
	return wire.ExtStream{ID: id, Seconds: 2, Bytes: 250_000_000, BusyUS: 2_000_000, RwndUS: 1_900_000,
		SndWnd: 4 << 20, SndBuf: 16 << 20, Cwnd: 8 << 20, RTT: 50_000, MinRTT: 50_000, MSS: 1448}
}

func TestAttribute(t *testing.T) {
	v := Attribute(Direction{Name: ClientToServer, Streams: []wire.ExtStream{rwndBound(1)}, Context: Context{SenderCores: 2}})
	if v.Result.Limit != attrib.ReceiverWindow || v.Direction != ClientToServer || v.Streams != nil {
		t.Fatalf("%+v", v)
	}
	if !strings.HasPrefix(v.Line(), "Limit (client→server): ") {
		t.Fatalf("%q", v.Line())
	}
	v = Attribute(Direction{Name: ServerToClient, Streams: []wire.ExtStream{rwndBound(1), rwndBound(3)}, Context: Context{SenderCores: 2}})
	if v.Result.Limit != attrib.ReceiverWindow || len(v.Streams) != 2 || v.Streams[1].ID != 3 {
		t.Fatalf("two streams: %+v", v)
	}
	v = Attribute(Direction{Name: ServerToClient, Streams: []wire.ExtStream{rwndBound(1)}, Unavailable: "no view"})
	if v.Result.Limit != attrib.Unknown || !strings.Contains(v.Result.Verdict, "no view") {
		t.Fatalf("unavailable: %+v", v)
	}
}

func TestInputPrefersDelivered(t *testing.T) {
	e := rwndBound(1)
	if in := Input(e); in.BitsPerSecond != 1e9 || in.WallUS != 2e6 || in.Streams != 1 {
		t.Fatalf("%+v", in)
	}
	e.Delivered = 125_000_000
	if in := Input(e); in.BitsPerSecond != 5e8 {
		t.Fatalf("delivered: %+v", in)
	}
}

// A path's goodput counted at MSS 1448 is more at 1460 (timestamps off,
// the same 1500-byte packets): 972.8 Mbit/s at 1460 is 99.9% of a 1
// Gbit/s link, not "973 of 965" (seed-002's trial, live).
func TestPathRateAtTheStreamsMSS(t *testing.T) {
	in := attrib.Input{MSS: 1460}
	Context{PathRate: 1e9 * 1448 / 1500, PathMSS: 1448}.apply(&in)
	if want := 1e9 * 1460 / 1500; in.PathRate < want-1 || in.PathRate > want+1 {
		t.Fatalf("path rate at MSS 1460: %.6g, want %.6g", in.PathRate, want)
	}
	in = attrib.Input{MSS: 1448}
	Context{PathRate: 965e6}.apply(&in)
	if in.PathRate != 965e6 {
		t.Fatalf("without PathMSS: %.6g", in.PathRate)
	}
}
