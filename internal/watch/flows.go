package watch

import (
	"math"
	"net/netip"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/sockdiag"
	"github.com/tcptune/tcptune/internal/sockopt"
)

// Role is which way a flow carried its data, seen from this host.
type Role string

// The two roles.
const (
	Sent     Role = "sent"     // this host sent: the sender's view decides
	Received Role = "received" // this host received: the receiver's view decides
)

// Flow is one TCP flow as it ended, judged by the attribution bench
// uses.
type Flow struct {
	Local  string `json:"local"`
	Remote string `json:"remote"`
	Group  string `json:"group"`
	Role   Role   `json:"role"`
	// Start is when the flow was first seen alive (zero when it began
	// and ended between two samples); End when its socket was freed.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end"`
	// Seconds is the period judged: from the first sighting to the end,
	// or the sender's busy time for a flow never seen alive.
	Seconds       float64 `json:"duration_s"`
	BytesSent     uint64  `json:"bytes_sent"`
	BytesReceived uint64  `json:"bytes_received"`
	// Open marks a record of a flow still open (Tracker.Every): it
	// covers the period since its last record, as its end's record then
	// covers what followed. Bytes is what it moved in its direction since
	// its last record (from its start for its first).
	Open  bool   `json:"open,omitempty"`
	Bytes uint64 `json:"bytes"`
	// BitsPerSecond is the rate of the flow's direction over Seconds.
	BitsPerSecond float64 `json:"bits_per_second"`
	RTTms         float64 `json:"rtt_ms"`
	MinRTTms      float64 `json:"min_rtt_ms"`
	Retransmits   uint32  `json:"retransmits"`
	// Judged is false for flows the evidence cannot judge (Why says
	// which): too short to leave slow start, or without a duration.
	Judged bool           `json:"judged"`
	Why    string         `json:"not_judged,omitempty"`
	Limit  *attrib.Result `json:"limit,omitempty"`
	// peer is the remote address, for grouping and advice.
	peer netip.Addr
}

// Tracker follows flows between their first sighting in a dump and
// their end, so that a flow's judgement covers a known period. It is not
// safe for concurrent use.
type Tracker struct {
	// GroupOf names a flow's group (GroupBy.Of).
	GroupOf func(local, remote netip.AddrPort) string
	// Every is how often a flow still open is judged and recorded (0 =
	// only at its end): a flow that lasts days must not wait for its end
	// to be seen.
	Every time.Duration
	seen  map[uint64]sighting
}

// sighting is what the dumps showed of a live flow: its first sample,
// the one that starts the period not yet recorded, the latest, and the
// running figures since the period's start.
type sighting struct {
	first, from, last  sockdiag.Socket
	at, fromAt, lastAt time.Time
	recorded           uint64 // bytes in its direction already recorded
	missed             int    // dumps since the last that listed it
	live               liveFigures
}

// liveFigures are what only a live socket shows (its final TCP_INFO is
// taken after close, with nothing in flight): the time-weighted sums of
// what the attribution takes as a mean, and the largest of what it takes
// as a maximum. Each sample stands for the interval that ends at it, as
// the counters' deltas do (the first sighting, which starts the judged
// period, stands for none), and the last for the time from it to the
// end. The kernel's send-buffer chronograph misses a writer whose last
// bytes wait unsent (it counts only an empty queue), so the bytes in
// flight against the buffer are the evidence that decides there.
type liveFigures struct {
	w                                      float64 // seconds weighed
	inflight, notsent, rtt, rcvWnd, rcvRTT float64
	cwnd, sndWnd                           uint64
}

func (l *liveFigures) add(i *sockopt.TCPInfo, w float64) {
	if w <= 0 {
		return
	}
	l.w += w
	l.inflight += w * float64(i.InflightBytes())
	l.notsent += w * float64(i.NotsentBytes)
	l.rtt += w * float64(i.RTT)
	l.rcvWnd += w * float64(i.RcvWnd)
	l.rcvRTT += w * float64(i.RcvRTT)
	l.cwnd = max(l.cwnd, i.CwndBytes())
	l.sndWnd = max(l.sndWnd, uint64(i.SndWnd))
}

// into sets the input's live figures from the samples.
func (l liveFigures) into(in *attrib.Input) {
	if l.w == 0 {
		return
	}
	mean := func(v float64) uint64 { return uint64(v / l.w) }
	if in.SenderIsLocal {
		in.InflightBytes, in.NotsentBytes, in.RTTUS = mean(l.inflight), mean(l.notsent), mean(l.rtt)
		in.CwndBytes, in.SndWnd = l.cwnd, l.sndWnd
		return
	}
	if rv := in.ReceiverView; rv != nil {
		rv.Window, rv.RTTUS = mean(l.rcvWnd), mean(l.rcvRTT)
	}
}

// Sample records the sockets of one dump taken at t, and returns the
// records of flows still open whose period reached Every. A flow two
// dumps in a row no longer list, whose end was not heard (its
// notification was lost), is forgotten: the tracker never grows without
// bound.
func (tr *Tracker) Sample(t time.Time, socks []sockdiag.Socket) []Flow {
	if tr.seen == nil {
		tr.seen = map[uint64]sighting{}
	}
	var open []Flow
	listed := make(map[uint64]bool, len(socks))
	for _, s := range socks {
		if s.Info == nil || !s.Remote.IsValid() || s.Remote.Port() == 0 {
			continue
		}
		listed[s.Cookie] = true
		v, ok := tr.seen[s.Cookie]
		if !ok {
			v = sighting{first: s, from: s, at: t, fromAt: t, lastAt: t}
		}
		v.live.add(s.Info, t.Sub(v.lastAt).Seconds())
		v.last, v.lastAt, v.missed = s, t, 0
		// A flow that moved nothing since its last record (an idle
		// session) waits: its next record covers the idle time too.
		if tr.Every > 0 && t.Sub(v.fromAt) >= tr.Every && moved(s.Info, roleOf(s.Info)) > v.recorded {
			f := tr.record(t, s, v, true)
			f.Open = true
			open = append(open, f)
			v.from, v.fromAt, v.live, v.recorded = s, t, liveFigures{}, moved(s.Info, f.Role)
		}
		tr.seen[s.Cookie] = v
	}
	for c, v := range tr.seen {
		if !listed[c] {
			if v.missed++; v.missed >= 2 {
				delete(tr.seen, c)
				continue
			}
			tr.seen[c] = v
		}
	}
	return open
}

// Open is how many flows the tracker holds (seen alive, not yet ended).
func (tr *Tracker) Open() int { return len(tr.seen) }

// End turns a destroyed socket, seen at t, into its Flow; ok is false
// for sockets that never connected (no peer) or listened.
func (tr *Tracker) End(t time.Time, s sockdiag.Socket) (Flow, bool) {
	if s.Info == nil || !s.Remote.IsValid() || s.Remote.Port() == 0 || s.State == "LISTEN" {
		return Flow{}, false
	}
	v, alive := tr.seen[s.Cookie]
	delete(tr.seen, s.Cookie)
	if alive {
		// The last sample stands for the time from it to the end.
		v.live.add(v.last.Info, t.Sub(v.lastAt).Seconds())
		if s.Mem == nil {
			s.Mem = v.last.Mem // the notification carries no skmem
		}
	}
	return tr.record(t, s, v, alive), true
}

// record is the Flow of cur, seen at t, over the period since v's start
// (alive) or over its life.
func (tr *Tracker) record(t time.Time, cur sockdiag.Socket, v sighting, alive bool) Flow {
	i := cur.Info
	f := Flow{
		Local: cur.Local.String(), Remote: cur.Remote.String(), End: t, peer: cur.Remote.Addr(),
		BytesSent: i.BytesAcked, BytesReceived: i.BytesReceived,
		RTTms: float64(i.RTT) / 1000, MinRTTms: float64(i.MinRTT) / 1000, Retransmits: i.TotalRetrans,
	}
	if tr.GroupOf != nil {
		f.Group = tr.GroupOf(cur.Local, cur.Remote)
	}
	f.Role = roleOf(i)
	f.Bytes = moved(i, f.Role) - min(v.recorded, moved(i, f.Role))
	prev := sockdiag.Socket{Local: cur.Local, Remote: cur.Remote, Info: &sockopt.TCPInfo{}}
	switch {
	case alive:
		f.Start, f.Seconds = v.at, t.Sub(v.fromAt).Seconds()
		prev = v.from
	case f.Role == Sent:
		f.Seconds = float64(i.BusyTime) / 1e6
	default:
		f.Why = "ended within one sample interval: the receiver's view has no duration"
		return f
	}
	delta := float64(i.DeliveredSince(prev.Info))
	if f.Role == Received {
		delta = float64(i.ReceivedSince(prev.Info))
	}
	if f.Seconds > 0 {
		f.BitsPerSecond = delta * 8 / f.Seconds
	}
	if why := tooShort(f, i, moved(prev.Info, f.Role)); why != "" {
		f.Why = why
		return f
	}
	in, ok := input(prev, cur, f.Seconds)
	if !ok {
		f.Why = "moved no data in the period seen"
		return f
	}
	if alive {
		v.live.into(&in)
	}
	r := attrib.Judge(in)
	f.Judged, f.Limit = true, &r
	return f
}

// roleOf is the way a flow carried more.
func roleOf(i *sockopt.TCPInfo) Role {
	if i.BytesReceived > i.BytesAcked {
		return Received
	}
	return Sent
}

// moved is what a flow had moved in its direction by a sample.
func moved(i *sockopt.TCPInfo, r Role) uint64 {
	if r == Received {
		return i.BytesReceived
	}
	return i.BytesAcked
}

// MinLifeInSlowStart is the most of a flow's life slow start may take
// for its limits to be judged: four times the rounds slow start needs to
// reach the flow's window.
const MinLifeInSlowStart = 4

// tooShort says why a flow is too short to judge ("" when it is not):
// slow start doubles the window each round trip from ten segments, so a
// flow that lasted fewer than MinLifeInSlowStart × the rounds needed to
// reach its own window (the larger of its cwnd and its rate × RTT) spent
// much of its life in slow start, where no buffer or window held it yet.
//
// Its life is at least the period seen, plus the time the bytes it moved
// before its first sighting (earlier bytes) take at its rate (slow start
// took longer), and for a sender its busy time.
func tooShort(f Flow, i *sockopt.TCPInfo, earlier uint64) string {
	rtt := f.MinRTTms
	if rtt <= 0 {
		rtt = float64(i.RcvRTT) / 1000
	}
	mss := float64(max(i.SndMSS, i.RcvMSS, 536))
	if f.Role == Received && i.RcvMSS > 0 {
		mss = float64(i.RcvMSS)
	}
	if rtt <= 0 || f.Seconds <= 0 {
		return "no RTT or duration to judge by"
	}
	win := f.BitsPerSecond / 8 * rtt / 1000 / mss
	if f.Role == Sent {
		win = max(win, float64(i.SndCwnd))
	}
	need := math.Max(1, math.Ceil(math.Log2(math.Max(win, 10)/10))+1)
	life := max(f.Seconds, float64(i.BusyTime)/1e6)
	if f.BitsPerSecond > 0 {
		life = max(life, f.Seconds+float64(earlier)*8/f.BitsPerSecond)
	}
	if rounds := life * 1000 / rtt; rounds < MinLifeInSlowStart*need {
		return "too short to leave slow start"
	}
	return ""
}
