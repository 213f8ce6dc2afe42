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
