package tune

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/wire"
)

// Measurer runs tune's measurements in this process, against a tcptune
// or iperf3 server: the RTT from a short test, and trials through the
// client package. In a lab it dials from end a's namespace.
type Measurer struct {
	Host  string
	Port  int
	NetNS string // the namespace to dial from; "" = this one
}

// RTT is the smallest RTT of one short test (-n 256 KB, this end
// sending): its control connection's and its stream's tcpi_min_rtt. A
// server logs it as an ordinary test, where bare TCP connects leave
// "no cookie" errors in a production iperf3's log (and may upset its
// next test).
func (m Measurer) RTT(ctx context.Context) (time.Duration, error) {
	o := client.Options{
		Host: m.Host, Port: m.Port, Interval: time.Second, ConnectTimeout: 10 * time.Second,
		Params: wire.Params{Parallel: 1, Num: 256 << 10, ServerAffinity: -1, PacingTimer: 1000},
	}
	var out *client.Outcome
	err := nsx.Do(m.NetNS, func() error {
		var err error
		out, err = client.Run(ctx, o, report.NewPrinter(io.Discard, report.Text))
		return err
	})
	if err != nil {
		return 0, err
	}
	if d := out.MinRTT(); d > 0 {
		return d, nil
	}
	return 0, errors.New("the RTT is out of reach: no TCP_INFO on this system")
}

// Trial runs one test. pathRate and idleRTT let the attribution tell a
// full path from a buffer limit.
func (m Measurer) Trial(ctx context.Context, s TrialSpec, pathRate float64, idleRTT time.Duration) (Trial, error) {
	o := client.Options{
		Host: m.Host, Port: m.Port, Interval: time.Second, ConnectTimeout: 5 * time.Second,
		Params: wire.Params{Parallel: max(1, s.Parallel), Reverse: s.Direction == Reverse, ServerAffinity: -1,
			PacingTimer: 1000, Congestion: s.Congestion, Time: 1},
		Omit: s.Omit, Time: s.Time, PathRate: pathRate, IdleRTT: idleRTT,
	}
	var out *client.Outcome
	err := nsx.Do(m.NetNS, func() error {
		var err error
		out, err = client.Run(ctx, o, report.NewPrinter(io.Discard, report.Text))
		return err
	})
	if err != nil {
		return Trial{}, err
	}
	t, err := trialOf(out, s.Direction)
	t.Congestion = s.Congestion
	if s.Parallel > 1 {
		t.Parallel = s.Parallel
	}
	return t, err
}

// trialOf reads a trial from the client's outcome. The rate is the
// payload the kernel counted as delivered in the measured period: the
// sender's tcpi_delivered × MSS (ours forward; a tcptune server's in
// reverse), else our receiver's tcpi_bytes_received (reverse against a
// stock iperf3, which jumps when a hole is filled: over a period of at
// least 20 RTTs that is a small share).
func trialOf(out *client.Outcome, d Direction) (Trial, error) {
	t := Trial{Direction: d, Retransmits: -1, From: out.From, To: out.To}
	localSends := d == Forward
	secs := out.Duration.Seconds()
	if secs <= 0 {
		return t, errors.New("the trial measured no time")
	}
	var views []wire.ExtStream
	if out.Ext != nil {
		if localSends {
			views = out.Ext.Streams
		} else if out.Ext.Peer != nil {
			views = out.Ext.Peer.Streams
		}
	}
	var local int64
	by := ""
	for _, st := range out.Totals {
		if st.Sender == localSends && st.DeliveredBy != "" {
			local += st.Delivered
			by = st.DeliveredBy
			if localSends && st.Last != nil {
				t.Delivered += st.Last.DeliveredSince(nil)
			}
		}
	}
	var peerBytes int64
	var peerSecs float64
	if !localSends {
		for _, v := range views {
			peerBytes += v.Delivered
			peerSecs = max(peerSecs, v.Seconds)
		}
	}
	switch {
	case !localSends && peerBytes > 0 && peerSecs > 0:
		t.BitsPerSecond, t.CountedBy, t.Seconds = float64(peerBytes)*8/peerSecs, "sender", peerSecs
	case by != "":
		t.BitsPerSecond, t.CountedBy, t.Seconds = float64(local)*8/secs, by, secs
	default: // no TCP_INFO on this OS: the application's count
		t.BitsPerSecond, t.CountedBy, t.Seconds = out.Received(), "application", secs
	}
	if t.BitsPerSecond <= 0 {
		return t, errors.New("no data was delivered")
	}
	for _, iv := range out.Intervals {
		if iv.Omitted {
			continue
		}
		var b int64
		var s float64
		for _, si := range iv.Streams {
			if si.Sender == localSends {
				b += si.Delivered
				s = si.Seconds
			}
		}
		if s > 0 && t.CountedBy != "application" {
			t.Intervals = append(t.Intervals, float64(b)*8/s)
		}
	}
	if len(views) > 0 {
		var rtt, fl float64
		t.Retransmits = 0
		for _, v := range views {
			t.Window = max(t.Window, int64(v.SndWnd))
			t.SndBuf = max(t.SndBuf, int64(v.SndBuf))
			rtt += float64(v.RTT)
			fl += float64(v.Inflight)
			if v.MinRTT > 0 && (t.MinRTTus == 0 || float64(v.MinRTT) < t.MinRTTus) {
				t.MinRTTus = float64(v.MinRTT)
			}
			if v.Retransmits > 0 {
				t.Retransmits += v.Retransmits
			}
			t.MSS = int(v.MSS)
		}
		t.RTTus = rtt / float64(len(views))
		t.Inflight = int64(fl / float64(len(views)))
	}
	want := "client→server"
	if !localSends {
		want = "server→client"
	}
	for _, v := range out.Limits {
		if v.Direction == want {
			t.Limit, t.Verdict, t.Advice, t.Capped = string(v.Result.Limit), v.Result.Verdict, v.Result.Advice, v.Result.Capped
		}
	}
	return t, nil
}
