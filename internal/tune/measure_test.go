package tune

import (
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/view"
)

// trialOf picks this host's direction from the client's views: forward
// is what this host sent, reverse what it received, each with its own
// count, figures and verdict, and the intervals of the same side.
func TestTrialOfPicksItsDirection(t *testing.T) {
	fwd := view.Direction{Name: limits.ClientToServer, LocalSends: true, Delivered: 600e6, Seconds: 5, CountedBy: view.Sender,
		Window: 20e6, SndBuf: 4 << 20, Inflight: 3e6, RTT: 52 * time.Millisecond, MinRTT: 50 * time.Millisecond, Retransmits: 3, MSS: 1448,
		Verdict: limits.Verdict{Result: attrib.Result{Limit: attrib.SendBuffer, Verdict: "limited by the send buffer"}}}
	rev := view.Direction{Name: limits.ServerToClient, Delivered: 250e6, Seconds: 5, CountedBy: view.Receiver, Retransmits: -1,
		Verdict: limits.Verdict{Result: attrib.Unavailable("no sender's view")}}
	out := &client.Outcome{Views: []view.Direction{fwd, rev}, Intervals: []engine.Interval{
		{Omitted: true, Streams: []engine.StreamInterval{{Sender: true, Delivered: 1e6, Seconds: 1}}},
		{Streams: []engine.StreamInterval{{Sender: true, Delivered: 120e6, Seconds: 1}, {Delivered: 50e6, Seconds: 1}}},
	}}
	f, err := trialOf(out, Forward, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.BitsPerSecond != 960e6 || f.CountedBy != "sender" || f.Limit != string(attrib.SendBuffer) || f.Retransmits != 3 || f.MinRTTus != 50000 || f.MSS != 1448 {
		t.Errorf("forward %+v", f)
	}
	if len(f.Intervals) != 1 || f.Intervals[0] != 960e6 {
		t.Errorf("forward intervals %v", f.Intervals)
	}
	r, err := trialOf(out, Reverse, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.BitsPerSecond != 400e6 || r.CountedBy != "receiver" || r.Limit != string(attrib.Unknown) || r.Retransmits != -1 || r.Window != 0 {
		t.Errorf("reverse %+v", r)
	}
	if len(r.Intervals) != 1 || r.Intervals[0] != 400e6 {
		t.Errorf("reverse intervals %v", r.Intervals)
	}
	if _, err := trialOf(&client.Outcome{Views: []view.Direction{fwd}}, Reverse, 0, 0); err == nil {
		t.Error("a missing direction is an error")
	}
}

// A trial at another MTU is capped at the goodput of its own MSS: at
// MSS 8948 a 1 Gbit/s path carries 993 Mbit/s of payload, above the
// 965 its 1448-byte goodput says.
func TestTrialOfCapsAtItsOwnMSS(t *testing.T) {
	fwd := view.Direction{Name: limits.ClientToServer, LocalSends: true, Delivered: 993e6 / 8 * 2, Seconds: 2, CountedBy: view.Sender, MSS: 8948}
	out := &client.Outcome{Views: []view.Direction{fwd}, Intervals: []engine.Interval{
		{Omitted: true, Streams: []engine.StreamInterval{{Sender: true, Delivered: 1e6, Seconds: 1}}},
		{Streams: []engine.StreamInterval{{Sender: true, Delivered: 993e6 / 8, Seconds: 1}}},
		{Streams: []engine.StreamInterval{{Sender: true, Delivered: 993e6 / 8, Seconds: 1}}},
	}}
	tr, err := trialOf(out, Forward, 965.3e6, 1448)
	if err != nil {
		t.Fatal(err)
	}
	if tr.BitsPerSecond < 992e6 || len(tr.Intervals) != 2 || tr.Intervals[0] < 992e6 {
		t.Errorf("%.0f, intervals %v: capped at the 1448-byte goodput", tr.BitsPerSecond, tr.Intervals)
	}
	tr, _ = trialOf(out, Forward, 965.3e6, 0)
	if tr.BitsPerSecond > 966e6 {
		t.Errorf("with the goodput's MSS unknown it stands as given: %.0f", tr.BitsPerSecond)
	}
}
