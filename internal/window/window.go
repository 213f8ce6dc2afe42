// Package window is the one owner of TCP's window arithmetic: the
// bandwidth-delay product, the share of a socket buffer that becomes
// window, the rate a buffer caps one flow at, and the buffer a rate
// needs. advise, show, doctor, the attribution and tune all use it, so
// that they cannot disagree about the same buffer.
package window

import (
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// BDP is the bandwidth-delay product in bytes of a path of rate bit/s
// and round-trip time rtt.
func BDP(rate float64, rtt time.Duration) int64 {
	return int64(rate * rtt.Seconds() / 8)
}

// Headers is the bytes of IPv4 and TCP headers with timestamps a full
// segment carries besides its payload (MSS = MTU − Headers).
const Headers = 52

// Packet is the bytes on the wire of a full segment of payload mss,
// where ref is an MSS known to travel with timestamps (in packets of ref
// + Headers): an MSS within 100 bytes of ref is the same MTU with other
// TCP options (1460 without timestamps: packets of 1500 bytes), any
// other its own MTU with timestamps (8948: 9000). ref ≤ 0 takes mss as
// its own reference.
func Packet(mss, ref int) int {
	if ref > 0 && abs(mss-ref) <= 100 {
		return ref + Headers
	}
	return mss + Headers
}

// Payload converts a payload rate counted at MSS from to what the same
// packets would carry at MSS to, both judged against ref (see Packet):
// 972.8 Mbit/s at MSS 1460 (timestamps off) is 964.8 at 1448, and 2484
// at 8948 is 2398 at 1448.
func Payload(rate float64, from, to, ref int) float64 {
	if from <= 0 || to <= 0 {
		return rate
	}
	return rate * float64(Packet(from, ref)) / float64(from) * float64(to) / float64(Packet(to, ref))
}

func abs(x int) int { return max(x, -x) }

// Rate is the most one flow moves with window bytes in flight per rtt
// (bit/s); 0 when rtt is 0.
func Rate(window float64, rtt time.Duration) float64 {
	if rtt <= 0 {
		return 0
	}
	return window * 8 / rtt.Seconds()
}

// Model is how much of a socket buffer a kernel turns into window. The
// kernel charges each buffer with the packets' memory (truesize), not
// their payload, so only a share of a buffer ever holds data.
// bench/window.sh measures both shares on lab links (docs/performance.md).
type Model struct {
	// Recv is the share of the receive buffer advertised as window. On
	// Linux 6.6+ it is the kernel's scaling_ratio, payload over the
	// truesize of the segments received: measured 0.66 at MSS 1448 and
	// 0.83 at MSS 8948 (see ForMSS); 0.5 before 6.6 (tcp_adv_win_scale
	// = 1), whatever the MSS.
	Recv float64
	// Send is the share of the send buffer that holds unacknowledged
	// payload for an application's writer. Send skbs carry up to 64 KB
	// each, so their overhead is small, and the share depends mostly on
	// how full the writer keeps the buffer: the kernel wakes a waiting
	// writer with a third of it free. iperf3 3.12's event-driven writes
	// get 0.80 (446 Mbit/s through a 4 MiB tcp_wmem at 1 Gbit/s × 60 ms,
	// cubic), blocking writes (iperf3 3.22) 0.67; tcptune's own engine,
	// which tops the buffer up, 0.93–0.98 (bench/window.sh). Advice is
	// for applications, so the model keeps 0.80.
	Send float64
	// Kernel names the release the model is for ("" = Linux 6.6+).
	Kernel string
	// fixedRecv: the receive share does not follow the MSS (before 6.6).
	fixedRecv bool
}

// Linux66 is the model of Linux 6.6 and later at MSS 1448 (a 1500-byte
// path).
var Linux66 = Model{Recv: 0.65, Send: 0.80}

// jumboRecv is the receive share measured at MSS 8948 (MTU 9000).
const jumboRecv = 0.83

// ForMSS is the model for segments of mss bytes: on Linux 6.6+ the
// receive share grows with the segment, since a segment's fixed
// overhead is spread over more payload (interpolated between the shares
// measured at MSS 1448 and 8948, and never above the latter). Before
// 6.6, and for an unknown MSS (0), the model is unchanged.
func (m Model) ForMSS(mss int64) Model {
	if m.fixedRecv || mss <= 1448 {
		return m
	}
	f := min(1, float64(mss-1448)/float64(8948-1448))
	m.Recv = max(m.Recv, m.Recv+f*(jumboRecv-m.Recv))
	return m
}

// Linux is the model for a kernel release ("6.1.0-18-amd64"); an
// unreadable release gets Linux66.
func Linux(release string) Model {
	m := Linux66
	m.Kernel = release
	major, minor, ok := parseRelease(release)
	if ok && (major < 6 || (major == 6 && minor < 6)) {
		m.Recv, m.fixedRecv = 0.5, true
	}
	return m
}

// Host is the model of the running kernel (Linux66 where it cannot be
// read, e.g. on other systems).
func Host() Model {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return Linux66
	}
	return Linux(strings.TrimSpace(string(b)))
}

func parseRelease(r string) (major, minor int, ok bool) {
	f := strings.FieldsFunc(r, func(c rune) bool { return c < '0' || c > '9' })
	if len(f) < 2 {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(f[0])
	b, err2 := strconv.Atoi(f[1])
	return a, b, err1 == nil && err2 == nil
}

// RecvWindow is the largest window a receive buffer of rcvbuf bytes
// advertises.
func (m Model) RecvWindow(rcvbuf int64) int64 { return int64(m.Recv * float64(rcvbuf)) }

// SendWindow is the most payload a send buffer of sndbuf bytes keeps
// in flight.
func (m Model) SendWindow(sndbuf int64) int64 { return int64(m.Send * float64(sndbuf)) }

// RecvCap is the rate one flow reaches through a receive buffer of
// rcvbuf bytes at rtt (bit/s).
func (m Model) RecvCap(rcvbuf int64, rtt time.Duration) float64 {
	return Rate(float64(m.RecvWindow(rcvbuf)), rtt)
}

// SendCap is the rate one flow reaches through a send buffer of sndbuf
// bytes at rtt (bit/s).
func (m Model) SendCap(sndbuf int64, rtt time.Duration) float64 {
	return Rate(float64(m.SendWindow(sndbuf)), rtt)
}

// Cap is the rate one flow reaches through the tighter of the two
// buffers.
func (m Model) Cap(rcvbuf, sndbuf int64, rtt time.Duration) float64 {
	return math.Min(m.RecvCap(rcvbuf, rtt), m.SendCap(sndbuf, rtt))
}

// RecvBuffer is the receive buffer whose window carries window bytes.
func (m Model) RecvBuffer(window int64) int64 { return int64(math.Ceil(float64(window) / m.Recv)) }

// SendBuffer is the send buffer that keeps window bytes in flight.
func (m Model) SendBuffer(window int64) int64 { return int64(math.Ceil(float64(window) / m.Send)) }

// SendTarget is the send buffer Linux's autotuning sizes for a
// congestion window of cwnd bytes in segments of mss (tcp_sndbuf_expand):
// 2 × the window's segments × the memory one segment takes, its payload
// and headers (MAX_TCP_HEADER, ≈320 bytes, and skb_shared_info, 320)
// rounded up to a power of two, plus the sk_buff (256); BBR asks 3 ×.
// A send buffer below it was capped, by tcp_wmem max or SO_SNDBUF: the
// kernel wanted more. 0 when cwnd or mss is unknown.
func SendTarget(cwnd, mss int64) int64 {
	if cwnd <= 0 || mss <= 0 {
		return 0
	}
	per := int64(1)
	for per < mss+640 {
		per <<= 1
	}
	return 2 * max(10, cwnd/mss) * (per + 256)
}

// ExplicitBuffer is what Linux grants a setsockopt(SO_RCVBUF/SO_SNDBUF)
// request of req bytes under a *mem_max of limit: twice the smaller.
func ExplicitBuffer(req, limit int64) int64 {
	if limit > 0 {
		req = min(req, limit)
	}
	return 2 * req
}

// Limits are the largest windows (bytes) a host's buffer settings allow
// one stream: autotuned (tcp_rmem/tcp_wmem max) and with an explicit
// SO_RCVBUF/SO_SNDBUF (as iperf3 -w sets), which Linux doubles and caps
// at net.core.rmem_max/wmem_max.
type Limits struct {
	RecvAuto     int64 `json:"receive_autotuned"`
	SendAuto     int64 `json:"send_autotuned"`
	RecvExplicit int64 `json:"receive_so_rcvbuf"`
	SendExplicit int64 `json:"send_so_sndbuf"`
}

// Limits computes the windows from the four maxima (bytes).
func (m Model) Limits(tcpRmemMax, tcpWmemMax, rmemMax, wmemMax int64) Limits {
	return Limits{
		RecvAuto:     m.RecvWindow(tcpRmemMax),
		SendAuto:     m.SendWindow(tcpWmemMax),
		RecvExplicit: m.RecvWindow(ExplicitBuffer(rmemMax, rmemMax)), // the largest request: capped, doubled
		SendExplicit: m.SendWindow(ExplicitBuffer(wmemMax, wmemMax)),
	}
}

// Caps are the rates (bit/s) the Limits allow one stream at an RTT.
type Caps struct {
	RTTms        float64 `json:"rtt_ms"`
	RecvAuto     float64 `json:"receive_autotuned_bps"`
	SendAuto     float64 `json:"send_autotuned_bps"`
	RecvExplicit float64 `json:"receive_so_rcvbuf_bps"`
	SendExplicit float64 `json:"send_so_sndbuf_bps"`
}

// At is the caps at rtt.
func (l Limits) At(rtt time.Duration) Caps {
	return Caps{RTTms: float64(rtt) / 1e6,
		RecvAuto: Rate(float64(l.RecvAuto), rtt), SendAuto: Rate(float64(l.SendAuto), rtt),
		RecvExplicit: Rate(float64(l.RecvExplicit), rtt), SendExplicit: Rate(float64(l.SendExplicit), rtt)}
}

// LossRate is the rate (bit/s) a congestion control that cuts its
// window at each loss (Reno, CUBIC) carries under random loss p (a
// share of segments) at round-trip time rtt, RFC 8312's response
// functions: the larger of Reno's window, 1.22 ÷ √p segments, and
// CUBIC's, 1.17 × (RTT ÷ p)^¾ (RTT in seconds). +Inf without loss.
func LossRate(mss int64, rtt time.Duration, p float64) float64 {
	s := rtt.Seconds()
	if p <= 0 || s <= 0 {
		return math.Inf(1)
	}
	w := max(1.22/math.Sqrt(p), 1.17*math.Pow(s/p, 0.75))
	return w * float64(mss) * 8 / s
}
