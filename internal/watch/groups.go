package watch

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/advise"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/units"
)

// GroupBy says how flows are summed: by the peer's prefix (V4 and V6
// bits) or by the service port.
type GroupBy struct {
	V4, V6 int
	Port   bool
}

// DefaultGroupBy is /24 for IPv4 peers and /64 for IPv6 ones.
var DefaultGroupBy = GroupBy{V4: 24, V6: 64}

// ParseGroupBy reads --group: "port", or prefix lengths "24,64" (a
// leading "/" is accepted; one length applies to IPv4, a second to
// IPv6).
func ParseGroupBy(s string) (GroupBy, error) {
	if s == "port" {
		return GroupBy{Port: true}, nil
	}
	g := DefaultGroupBy
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return g, fmt.Errorf("--group: accepts port or prefix lengths V4[,V6] (e.g. 24,64), got %q", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(p), "/"))
		top := 32
		if i == 1 {
			top = 128
		}
		if err != nil || n < 0 || n > top {
			return g, fmt.Errorf("--group: accepts port or prefix lengths V4[,V6] (0..32, 0..128), got %q", s)
		}
		if i == 0 {
			g.V4 = n
		} else {
			g.V6 = n
		}
	}
	return g, nil
}

// Of names the group of a flow: the peer's prefix, or "port N" for the
// service port (the lower of the two: clients use ephemeral ports).
func (g GroupBy) Of(local, remote netip.AddrPort) string {
	if g.Port {
		return "port " + strconv.Itoa(int(min(local.Port(), remote.Port())))
	}
	bits := g.V4
	if remote.Addr().Is6() {
		bits = g.V6
	}
	p, err := remote.Addr().Prefix(bits)
	if err != nil {
		return remote.Addr().String()
	}
	return p.String()
}

// Group is the flows of one group in one direction.
type Group struct {
	Group string `json:"group"`
	Role  Role   `json:"role"`
	// Flows counts the flows that ended, OpenRecords the records of
	// flows still open (Tracker.Every), Judged the records of either
	// kind long enough to judge.
	Flows       int    `json:"flows"`
	OpenRecords int    `json:"open_records"`
	Judged      int    `json:"judged"`
	Bytes       uint64 `json:"bytes"`
	// MedianBPS and TopBPS are over the judged records.
	MedianBPS float64 `json:"median_bits_per_second"`
	TopBPS    float64 `json:"top_bits_per_second"`
	MinRTTms  float64 `json:"min_rtt_ms"` // median of the judged flows
	// JudgedSeconds is the judged flows' time; Limits the share of it
	// each verdict held.
	JudgedSeconds float64                  `json:"judged_seconds"`
	Limits        map[attrib.Limit]float64 `json:"limits"`
	// Verdict is the limit that held the most of that time, Share its
	// share; Unknown when no flow was judged.
	Verdict attrib.Limit `json:"verdict"`
	Share   float64      `json:"share"`
	// RuledOut is what the evidence excluded in every judged flow whose
	// verdict is Unknown (a receiver's view cannot tell the sender's
	// buffer from the path).
	RuledOut []attrib.Limit `json:"ruled_out,omitempty"`
	Peer     string         `json:"peer"` // the peer with the most bytes
	Advice   *GroupAdvice   `json:"advice,omitempty"`
}

// GroupAdvice is the setting that acts on a group's limit: on which
// host, at which value for the group's RTT and the target rate, and the
// command that verifies it.
type GroupAdvice struct {
	Host    string  `json:"host"` // "this host" or the peer's address
	Key     string  `json:"key"`
	Values  []int64 `json:"values"`
	Reason  string  `json:"reason"`
	Command string  `json:"command"`
	Verify  string  `json:"verify"`
}

// Summary is what a run of flow events saw.
type Summary struct {
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Flows  int       `json:"flows"`
	Judged int       `json:"judged"`
	// Overruns counts overflows of the event socket (each lost flows);
	// KernelOpens is the namespace's Tcp ActiveOpens + PassiveOpens over
	// the run (-1 unknown), to set against Flows.
	Overruns    uint64  `json:"overruns"`
	KernelOpens int64   `json:"kernel_opens"`
	Open        int     `json:"open_at_end"`
	TargetBPS   float64 `json:"target_bits_per_second"`
	Kernel      string  `json:"kernel,omitempty"` // the watching host's release
	Groups      []Group `json:"groups"`
}

// MaxGroups bounds the groups a run keeps (and so the Prometheus
// series): flows of further groups are summed in "other".
const MaxGroups = 256

// maxRates bounds the rates a group keeps for its median.
const maxRates = 4096

// Groups sums ended flows per group and direction.
type Groups struct {
	byKey map[groupKey]*acc
}

type groupKey struct {
	group string
	role  Role
}

type acc struct {
	g       Group
	rates   []float64 // a ring of the judged flows' rates
	next    int
	rtts    []float64
	time    map[attrib.Limit]float64
	peerB   map[string]uint64
	judgedS float64
	ruled   []attrib.Limit // nil until the first unknown verdict
	unknown bool
}

// Add counts one flow.
func (gs *Groups) Add(f Flow) {
	if gs.byKey == nil {
		gs.byKey = map[groupKey]*acc{}
	}
	k := groupKey{f.Group, f.Role}
	a, ok := gs.byKey[k]
	if !ok {
		if len(gs.byKey) >= MaxGroups {
			k.group = "other"
		}
		if a, ok = gs.byKey[k]; !ok {
			a = &acc{g: Group{Group: k.group, Role: f.Role}, time: map[attrib.Limit]float64{}, peerB: map[string]uint64{}}
			gs.byKey[k] = a
		}
	}
	if f.Open {
		a.g.OpenRecords++
	} else {
		a.g.Flows++
	}
	b := f.Bytes
	a.g.Bytes += b
	if len(a.peerB) < 64 || a.peerB[f.peer.String()] > 0 {
		a.peerB[f.peer.String()] += b
	}
	if !f.Judged || f.Limit == nil {
		return
	}
	a.g.Judged++
	if f.Limit.Limit == attrib.Unknown {
		if !a.unknown {
			a.ruled, a.unknown = slices.Clone(f.Limit.RuledOut), true
		} else {
			a.ruled = slices.DeleteFunc(a.ruled, func(l attrib.Limit) bool { return !slices.Contains(f.Limit.RuledOut, l) })
		}
	}
	a.time[f.Limit.Limit] += f.Seconds
	a.judgedS += f.Seconds
	if len(a.rates) < maxRates {
		a.rates, a.rtts = append(a.rates, f.BitsPerSecond), append(a.rtts, f.MinRTTms)
	} else {
		a.rates[a.next], a.rtts[a.next] = f.BitsPerSecond, f.MinRTTms
		a.next = (a.next + 1) % maxRates
	}
	a.g.TopBPS = max(a.g.TopBPS, f.BitsPerSecond)
}

// Summary is the groups' figures, verdicts and advice for a target rate
// per flow (bit/s) on a host of kernel release kernel, the groups with
// the most bytes first.
func (gs *Groups) Summary(target float64, kernel string) []Group {
	out := make([]Group, 0, len(gs.byKey))
	for _, a := range gs.byKey {
		g := a.g
		g.Limits, g.JudgedSeconds = map[attrib.Limit]float64{}, a.judgedS
		g.Verdict = attrib.Unknown
		for l, s := range a.time {
			if a.judgedS > 0 {
				g.Limits[l] = s / a.judgedS
			}
			if g.Limits[l] > g.Share || g.Limits[l] == g.Share && l < g.Verdict {
				g.Verdict, g.Share = l, g.Limits[l]
			}
		}
		g.MedianBPS, g.MinRTTms = median(a.rates), median(a.rtts)
		if g.Verdict == attrib.Unknown {
			g.RuledOut = a.ruled
		}
		var most uint64
		for p, b := range a.peerB {
			if g.Peer == "" || b > most || b == most && p < g.Peer {
				g.Peer, most = p, b
			}
		}
		g.Advice = groupAdvice(g, target, kernel)
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Group, b.Group), cmp.Compare(a.Role, b.Role))
	})
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// groupAdvice is the setting that acts on the group's limit, where it
// acts: the sender's tcp_wmem for its send buffer, the receiver's
// tcp_rmem for its window, each on this host or the peer as the
// direction says. Limits no buffer acts on (the path, a core, the
// application) get none.
func groupAdvice(g Group, target float64, kernel string) *GroupAdvice {
	if g.Judged == 0 || g.MinRTTms <= 0 || target <= 0 {
		return nil
	}
	var key string
	local := false
	switch {
	case g.Verdict == attrib.Unknown && g.Role == Received && slices.Contains(g.RuledOut, attrib.ReceiverWindow):
		return &GroupAdvice{Host: g.Peer,
			Reason: "not this host's receive window: the sender's buffer, its congestion control or the path, which only the sender's view tells apart",
			Verify: "sudo tcptune watch --flows on " + g.Peer + ", or tcptune bench -c " + g.Peer + " -R with a server there"}
	case g.Verdict == attrib.SendBuffer:
		key, local = "net.ipv4.tcp_wmem", g.Role == Sent
	case g.Verdict == attrib.ReceiverWindow:
		key, local = "net.ipv4.tcp_rmem", g.Role == Received
	default:
		return nil
	}
	rtt := time.Duration(g.MinRTTms * float64(time.Millisecond))
	if !local {
		kernel = "" // a peer's release is unknown: the newest kernel's defaults
	}
	a, err := advise.Advise(advise.Input{Rate: target, RTT: rtt, Streams: 1, Connections: 1, Role: "host", OS: "linux", Kernel: kernel})
	if err != nil {
		return nil
	}
	for _, s := range a.Settings {
		if s.Key != key {
			continue
		}
		host := "this host"
		if !local {
			host = g.Peer
		}
		// tune --peer changes this host and measures both ways; a
		// peer's setting is verified by a test of the direction it
		// carries, with a server (tcptune serve or iperf3 -s) there.
		verify := "sudo tcptune tune --peer " + g.Peer
		switch {
		case !local && g.Role == Received:
			verify = "tcptune bench -c " + g.Peer + " -R"
		case !local:
			verify = "tcptune bench -c " + g.Peer
		}
		return &GroupAdvice{
			Host: host, Key: key, Values: s.Values,
			Reason:  fmt.Sprintf("max for %s at the group's %s minimum RTT: %s", units.FormatRateShort(target), units.FormatDuration(rtt), s.Reason),
			Command: fmt.Sprintf("sudo sysctl -w %s='%s'", key, s.Value()),
			Verify:  verify,
		}
	}
	return nil
}
