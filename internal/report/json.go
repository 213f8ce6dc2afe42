package report

import (
	"encoding/json"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/result"
)

func b01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// StartObj is the -J "start" object.
func StartObj(m result.Meta) Obj {
	var conns []Obj
	for _, c := range m.Connected {
		conns = append(conns, Obj{{"socket", c.Socket}, {"local_host", c.LocalHost}, {"local_port", c.LocalPort}, {"remote_host", c.RemoteHost}, {"remote_port", c.RemotePort}})
	}
	if conns == nil {
		conns = []Obj{}
	}
	p := m.Params
	o := Obj{
		{"connected", conns},
		{"version", m.Version},
		{"system_info", m.SystemInfo},
		{"timestamp", Obj{{"time", m.Started.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")}, {"timesecs", m.Started.Unix()}, {"timemillisecs", m.Started.UnixMilli()}}},
	}
	if m.Server {
		o = append(o, KV{"accepted_connection", Obj{{"host", m.Host}, {"port", m.Port}}})
	} else {
		o = append(o, KV{"connecting_to", Obj{{"host", m.Host}, {"port", m.Port}}})
	}
	o = append(o, KV{"cookie", m.Cookie})
	if !p.UDP {
		if p.MSS > 0 {
			o = append(o, KV{"tcp_mss", p.MSS})
		} else {
			o = append(o, KV{"tcp_mss_default", m.MSS})
		}
	}
	o = append(o,
		KV{"target_bitrate", p.Bandwidth},
		KV{"fq_rate", p.FQRate},
		KV{"sock_bufsize", p.Window},
		KV{"sndbuf_actual", m.SndBufActual},
		KV{"rcvbuf_actual", m.RcvBufActual},
	)
	proto := "TCP"
	if p.UDP {
		proto = "UDP"
	}
	o = append(o, KV{"test_start", Obj{
		{"protocol", proto}, {"num_streams", p.Parallel}, {"blksize", m.BlockLen},
		{"omit", p.Omit}, {"duration", p.Time}, {"bytes", p.Num}, {"blocks", p.BlockCount},
		{"reverse", b01(p.Reverse)}, {"tos", p.TOS}, {"target_bitrate", p.Bandwidth},
		{"bidir", b01(p.Bidirectional)}, {"fqrate", p.FQRate}, {"interval", m.Interval.Seconds()},
		{"gso", 0}, {"gro", 0},
	}})
	return o
}

func streamIntervalObj(s engine.StreamInterval) Obj {
	o := Obj{{"socket", s.Socket}, {"start", s.Start}, {"end", s.End}, {"seconds", s.Seconds}, {"bytes", s.Bytes}, {"bits_per_second", s.BitsPerSecond}}
	switch {
	case s.UDP && s.Sender:
		o = append(o, KV{"packets", s.Packets})
	case s.UDP:
		o = append(o, KV{"jitter_ms", s.JitterMS}, KV{"lost_packets", s.Lost}, KV{"packets", s.Packets}, KV{"lost_percent", pct(s.Lost, s.Packets)})
	case s.Sender && s.HasTCPInfo:
		o = append(o, KV{"retransmits", s.Retransmits}, KV{"snd_cwnd", s.SndCwnd}, KV{"snd_wnd", s.SndWnd},
			KV{"rtt", s.RTT}, KV{"rttvar", s.RTTVar}, KV{"pmtu", s.PMTU}, KV{"reorder", s.Reorder})
	}
	return append(o, KV{"omitted", s.Omitted}, KV{"sender", s.Sender})
}

func pct(lost, packets int64) float64 {
	if packets <= 0 {
		return 0
	}
	return 100 * float64(lost) / float64(packets)
}

// intervalSum adds up the streams of one direction of an interval.
func intervalSum(streams []engine.StreamInterval, reverse bool) (Obj, bool) {
	var sum engine.StreamInterval
	n := 0
	var jit float64
	for _, s := range streams {
		if s.Reverse != reverse {
			continue
		}
		if n == 0 {
			sum = engine.StreamInterval{Start: s.Start, End: s.End, Seconds: s.Seconds, Omitted: s.Omitted, Sender: s.Sender, UDP: s.UDP, HasTCPInfo: s.HasTCPInfo}
		}
		n++
		sum.Bytes += s.Bytes
		sum.Retransmits += s.Retransmits
		sum.Packets += s.Packets
		sum.Lost += s.Lost
		jit += s.JitterMS
	}
	if n == 0 {
		return nil, false
	}
	if sum.Seconds > 0 {
		sum.BitsPerSecond = float64(sum.Bytes) * 8 / sum.Seconds
	}
	o := Obj{{"start", sum.Start}, {"end", sum.End}, {"seconds", sum.Seconds}, {"bytes", sum.Bytes}, {"bits_per_second", sum.BitsPerSecond}}
	switch {
	case sum.UDP && sum.Sender:
		o = append(o, KV{"packets", sum.Packets})
	case sum.UDP:
		o = append(o, KV{"jitter_ms", jit / float64(n)}, KV{"lost_packets", sum.Lost}, KV{"packets", sum.Packets}, KV{"lost_percent", pct(sum.Lost, sum.Packets)})
	case sum.Sender && sum.HasTCPInfo:
		o = append(o, KV{"retransmits", sum.Retransmits})
	}
	return append(o, KV{"omitted", sum.Omitted}, KV{"sender", sum.Sender}), true
}

// IntervalObj is one element of the -J "intervals" array.
func IntervalObj(iv engine.Interval) Obj {
	var streams []Obj
	for _, s := range iv.Streams {
		streams = append(streams, streamIntervalObj(s))
	}
	if streams == nil {
		streams = []Obj{}
	}
	o := Obj{{"streams", streams}}
	if sum, ok := intervalSum(iv.Streams, false); ok {
		o = append(o, KV{"sum", sum})
	}
	if sum, ok := intervalSum(iv.Streams, true); ok {
		if _, has := o.Get("sum"); has {
			o = append(o, KV{"sum_bidir_reverse", sum})
		} else {
			o = append(o, KV{"sum", sum})
		}
	}
	return o
}

func sideObj(sd result.Side, socket int, tcpSender bool) Obj {
	o := Obj{}
	if socket >= 0 {
		o = append(o, KV{"socket", socket})
	}
	o = append(o, KV{"start", sd.Start}, KV{"end", sd.End}, KV{"seconds", sd.Seconds}, KV{"bytes", sd.Bytes}, KV{"bits_per_second", sd.BitsPerSecond})
	if tcpSender {
		if sd.HasRetransmits {
			o = append(o, KV{"retransmits", sd.Retransmits})
			if socket >= 0 { // streams only, as 3.20+ prints it
				o = append(o, KV{"reorder", sd.Reorder})
			}
		}
		if socket >= 0 {
			o = append(o, KV{"max_snd_cwnd", sd.MaxCwnd}, KV{"max_snd_wnd", sd.MaxSndWnd}, KV{"max_rtt", sd.MaxRTT}, KV{"min_rtt", sd.MinRTT}, KV{"mean_rtt", sd.MeanRTT})
		}
	}
	return append(o, KV{"sender", sd.LocalSent})
}

func udpSideObj(sd result.Side, socket int, sender bool, ooo bool) Obj {
	o := Obj{}
	if socket >= 0 {
		o = append(o, KV{"socket", socket})
	}
	o = append(o, KV{"start", sd.Start}, KV{"end", sd.End}, KV{"seconds", sd.Seconds}, KV{"bytes", sd.Bytes}, KV{"bits_per_second", sd.BitsPerSecond},
		KV{"jitter_ms", sd.JitterMS}, KV{"lost_packets", sd.Lost}, KV{"packets", sd.Packets}, KV{"lost_percent", pct(sd.Lost, sd.Packets)})
	if ooo {
		o = append(o, KV{"out_of_order", sd.OOO})
	}
	return append(o, KV{"sender", sender})
}

// EndObj is the -J "end" object.
func EndObj(s result.Summary) Obj {
	var streams []Obj
	o := Obj{}
	if s.UDP {
		for _, st := range s.Streams {
			// The per-stream udp object: bytes as this side saw them,
			// loss and jitter as the receiver saw them.
			sd := st.Receiver
			local := st.Receiver
			if st.LocalSent {
				local = st.Sender
			}
			sd.Start, sd.End, sd.Seconds, sd.Bytes, sd.BitsPerSecond = local.Start, local.End, local.Seconds, local.Bytes, local.BitsPerSecond
			streams = append(streams, Obj{{"udp", udpSideObj(sd, st.Socket, st.LocalSent, true)}})
		}
		if streams == nil {
			streams = []Obj{}
		}
		o = append(o, KV{"streams", streams})
		legacy := s.Sent
		legacy.JitterMS, legacy.Lost, legacy.Packets = s.Recv.JitterMS, s.Recv.Lost, s.Recv.Packets
		o = append(o, KV{"sum", udpSideObj(legacy, -1, s.Sent.LocalSent, false)})
		sent := s.Sent
		sent.JitterMS, sent.Lost = 0, 0
		o = append(o, KV{"sum_sent", udpSideObj(sent, -1, true, false)}, KV{"sum_received", udpSideObj(s.Recv, -1, false, false)})
		if s.Bidir {
			legacy := s.SentRev
			legacy.JitterMS, legacy.Lost, legacy.Packets = s.RecvRev.JitterMS, s.RecvRev.Lost, s.RecvRev.Packets
			sentRev := s.SentRev
			sentRev.JitterMS, sentRev.Lost = 0, 0
			o = append(o, KV{"sum_bidir_reverse", udpSideObj(legacy, -1, s.SentRev.LocalSent, false)},
				KV{"sum_sent_bidir_reverse", udpSideObj(sentRev, -1, true, false)},
				KV{"sum_received_bidir_reverse", udpSideObj(s.RecvRev, -1, false, false)})
		}
	} else {
		for _, st := range s.Streams {
			streams = append(streams, Obj{{"sender", sideObj(st.Sender, st.Socket, true)}, {"receiver", sideObj(st.Receiver, st.Socket, false)}})
		}
		if streams == nil {
			streams = []Obj{}
		}
		o = append(o, KV{"streams", streams}, KV{"sum_sent", sideObj(s.Sent, -1, true)}, KV{"sum_received", sideObj(s.Recv, -1, false)})
		if s.Bidir {
			o = append(o, KV{"sum_sent_bidir_reverse", sideObj(s.SentRev, -1, true)}, KV{"sum_received_bidir_reverse", sideObj(s.RecvRev, -1, false)})
		}
	}
	o = append(o, KV{"cpu_utilization_percent", Obj{
		{"host_total", s.CPU.Total}, {"host_user", s.CPU.User}, {"host_system", s.CPU.System},
		{"remote_total", s.RemoteCPU.Total}, {"remote_user", s.RemoteCPU.User}, {"remote_system", s.RemoteCPU.System},
	}})
	if !s.UDP {
		if s.SenderCC != "" {
			o = append(o, KV{"sender_tcp_congestion", s.SenderCC})
		}
		if s.RecvCC != "" {
			o = append(o, KV{"receiver_tcp_congestion", s.RecvCC})
		}
	}
	return o
}

// Document is a whole -J document.
type Document struct {
	Start     Obj
	Intervals []Obj
	End       Obj
	Error     string
	Title     string
	Extra     string
	ServerOut json.RawMessage
	ServerTxt string
	Tcptune   any
}

// MarshalJSON orders the document as iperf3 does.
func (d Document) MarshalJSON() ([]byte, error) {
	o := Obj{}
	if d.Title != "" {
		o = append(o, KV{"title", d.Title})
	}
	if d.Extra != "" {
		o = append(o, KV{"extra_data", d.Extra})
	}
	start := d.Start
	if start == nil {
		start = Obj{}
	}
	ivs := d.Intervals
	if ivs == nil {
		ivs = []Obj{}
	}
	end := d.End
	if end == nil {
		end = Obj{}
	}
	o = append(o, KV{"start", start}, KV{"intervals", ivs}, KV{"end", end})
	if len(d.ServerOut) > 0 {
		o = append(o, KV{"server_output_json", d.ServerOut})
	}
	if d.ServerTxt != "" {
		o = append(o, KV{"server_output_text", d.ServerTxt})
	}
	if d.Error != "" {
		o = append(o, KV{"error", d.Error})
	}
	if d.Tcptune != nil {
		o = append(o, KV{"tcptune", d.Tcptune})
	}
	return o.MarshalJSON()
}
