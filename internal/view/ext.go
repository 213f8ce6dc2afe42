package view

import (
	"github.com/tcptune/tcptune/internal/cpuusage"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/wire"
)

// Ext is the sender-side view of a stream, as exchanged between tcptune
// peers; ok is false when this side did not send or has no TCP_INFO.
func Ext(t engine.StreamTotal) (wire.ExtStream, bool) {
	if !t.Sender || !t.HasTCPInfo {
		return wire.ExtStream{}, false
	}
	e := wire.ExtStream{
		ID: t.ID, Seconds: t.Seconds, Bytes: t.Bytes,
		BusyUS: t.BusyUS, RwndUS: t.RwndUS, SndbufUS: t.SndbufUS,
		SndWnd: t.MaxSndWnd, SndBuf: uint64(max(t.SndBuf, 0)), Cwnd: t.MaxCwnd,
		RTT: t.MeanRTT, MinRTT: t.MinRTT, Retransmits: t.Retransmits, Spurious: t.Spurious,
		Delivered: t.Delivered, Inflight: t.MeanInflight, Notsent: t.MeanNotsent,
		RTTSamples: t.RTTSamples, QueuedSamples: t.QueuedSamples,
	}
	if t.Last != nil {
		e.MSS, e.PMTU = t.Last.SndMSS, t.Last.PMTU
		if e.MinRTT == 0 || (t.Last.MinRTT > 0 && t.Last.MinRTT < e.MinRTT) {
			e.MinRTT = t.Last.MinRTT
		}
	}
	return e, true
}

// ExtStreams collects the sender-side views of all sending streams.
func ExtStreams(totals []engine.StreamTotal) []wire.ExtStream {
	var out []wire.ExtStream
	for _, t := range totals {
		if e, ok := Ext(t); ok {
			out = append(out, e)
		}
	}
	return out
}

// Received is this side's receiver view of each TCP stream it
// received: its kernel's tcpi_bytes_received over the measured period,
// for the sender's side to compare with its own count, and the window
// it advertised, its buffer and RTT, for the verdict where the sender's
// view is out of reach.
func Received(totals []engine.StreamTotal) []wire.ExtReceived {
	var out []wire.ExtReceived
	for _, t := range totals {
		if !t.Sender && t.DeliveredBy == string(Receiver) && t.Delivered > 0 && t.Seconds > 0 {
			r := wire.ExtReceived{ID: t.ID, Seconds: t.Seconds, Bytes: t.Delivered,
				RcvWnd: t.MeanRcvWnd, RcvBuf: uint64(max(t.RcvBuf, 0)), RcvRTT: t.MeanRcvRTT, MinRTT: t.MinRTT}
			if t.Last != nil {
				r.MSS = t.Last.RcvMSS
			}
			out = append(out, r)
		}
	}
	return out
}

// Result is the stream's entry in iperf3's results message.
func Result(t engine.StreamTotal) wire.StreamResult {
	r := wire.StreamResult{ID: t.ID, Bytes: t.Bytes, Retransmits: -1, StartTime: 0, EndTime: t.Seconds}
	if t.Sender && t.HasTCPInfo {
		r.Retransmits = t.Retransmits
	}
	if t.UDP {
		r.Packets = t.Packets
		if !t.Sender {
			r.Jitter = t.JitterMS / 1000
			r.Errors = t.Lost
		}
		r.OmittedPackets, r.OmittedErrors = t.OmittedPackets, t.OmittedLost
	}
	return r
}

// Results is this side's results message: CPU, the congestion control
// used and every stream, as client and server both send it.
func Results(totals []engine.StreamTotal, cpu cpuusage.Util, congestion string) wire.Results {
	res := wire.Results{CPUTotal: cpu.Total, CPUUser: cpu.User, CPUSystem: cpu.System, SenderHasRetransmits: -1, CongestionUsed: congestion}
	for _, st := range totals {
		if st.Sender {
			if st.HasTCPInfo {
				res.SenderHasRetransmits = 1
			} else if res.SenderHasRetransmits < 0 {
				res.SenderHasRetransmits = 0
			}
		}
		res.Streams = append(res.Streams, Result(st))
	}
	return res
}
