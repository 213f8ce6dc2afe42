package watch

import (
	"io"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/sockdiag"
	"github.com/tcptune/tcptune/internal/sockopt"
)

// BenchmarkFlowEnd is the per-flow cost of watch --flows: a short
// loopback flow's end judged, summed and written as JSON.
func BenchmarkFlowEnd(b *testing.B) {
	tr := &Tracker{GroupOf: DefaultGroupBy.Of}
	var gs Groups
	info := &sockopt.TCPInfo{SndMSS: 65483, RcvMSS: 536, RTT: 20, MinRTT: 10, SndCwnd: 10, BusyTime: 30, BytesSent: 1024, BytesAcked: 1025, Delivered: 2, DataSegsOut: 1}
	s := sockdiag.Socket{Local: here, Remote: peer, State: "CLOSE", Info: info}
	t := time.Now()
	for b.Loop() {
		f, _ := tr.End(t, s)
		gs.Add(f)
		WriteJSONLine(io.Discard, FlowLine{Flow: &f})
	}
}
