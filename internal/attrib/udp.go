package attrib

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/units"
)

// ReceiveBuffer: a UDP receiver's socket buffer overflowed, and its
// kernel dropped the datagrams (Udp RcvbufErrors).
const ReceiveBuffer Limit = "receive-buffer"

// UDPInput is what a UDP direction showed: its datagrams, those the
// receiver counted as lost, and the receiving host's socket-buffer drops
// over the test.
type UDPInput struct {
	Packets, Lost int64
	// RcvbufErrors is the rise of the receiving host's Udp RcvbufErrors
	// during the test; -1 when out of reach (a stock iperf3 receives).
	RcvbufErrors    int64
	Window          int     // -w, bytes (0 = the default buffer)
	TargetRate      float64 // -b per stream, bit/s
	Streams         int
	BitsPerSecond   float64 // received
	Receiver        string
	ReceiverIsLocal bool
}

// AttributeUDP says where a UDP test's datagrams were lost: the
// receiver's socket buffer when its drops explain the loss, the path
// when the receiver dropped none, and "unknown" when its counters are
// out of reach. The drop counter is the host's (every UDP socket in its
// namespace), so the verdict names it as such.
func AttributeUDP(in UDPInput) Result {
	r := attributeUDP(in)
	r.From = FromReceiver
	return r
}

func attributeUDP(in UDPInput) Result {
	if in.Packets <= 0 {
		return Unavailable("no datagram was counted")
	}
	share := float64(in.Lost) / float64(in.Packets)
	lost := fmt.Sprintf("%d of %d datagrams lost (%.2f%%)", in.Lost, in.Packets, 100*share)
	switch {
	case in.Lost <= 0:
		r := Result{Limit: Application, Share: 1, Verdict: "no datagram lost: the rate is the one -b asked for"}
		if in.TargetRate > 0 {
			r.Verdict = fmt.Sprintf("no datagram lost: limited by the requested bitrate (-b %s per stream)", units.FormatRateShort(in.TargetRate))
		}
		return r
	case in.RcvbufErrors < 0:
		return Result{Limit: Unknown, Share: share, Verdict: lost + "; whether the receiver's socket or the path dropped them is unknown: the receiver's counters are out of reach (run tcptune serve there)"}
	case float64(in.RcvbufErrors) >= 0.5*float64(in.Lost):
		where := "on the receiver " + in.Receiver
		if in.ReceiverIsLocal {
			where = "on this host"
		}
		buf := "the receiving socket's buffer"
		if in.Window > 0 {
			buf = "the -w " + units.FormatIEC(float64(in.Window)) + " buffer"
		}
		return Result{Limit: ReceiveBuffer, Share: share,
			Verdict: fmt.Sprintf("limited by the receiver's socket buffer: %s, and the receiving host's UDP sockets dropped %d datagrams for a full receive buffer (Udp RcvbufErrors) meanwhile", lost, in.RcvbufErrors),
			Advice:  fmt.Sprintf("%s is too small for this rate: raise -w (capped by net.core.rmem_max %s), or net.core.rmem_default for applications that set none", buf, where)}
	}
	return Result{Limit: Network, Share: share,
		Verdict: fmt.Sprintf("%s on the way: the receiving host's UDP sockets dropped %d for a full buffer (Udp RcvbufErrors), so the path lost the rest", lost, in.RcvbufErrors),
		Advice:  "the path drops them: its capacity is below -b, or it loses datagrams"}
}
