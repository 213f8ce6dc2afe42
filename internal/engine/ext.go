package engine

import "github.com/tcptune/tcptune/internal/wire"

// Ext is the sender-side view of a stream, as exchanged between tcptune
// peers; ok is false when this side did not send or has no TCP_INFO.
func (t StreamTotal) Ext() (wire.ExtStream, bool) {
	if !t.Sender || !t.HasTCPInfo {
		return wire.ExtStream{}, false
	}
	e := wire.ExtStream{
		ID: t.ID, Seconds: t.Seconds, Bytes: t.Bytes,
		BusyUS: t.BusyUS, RwndUS: t.RwndUS, SndbufUS: t.SndbufUS,
		SndWnd: t.MaxSndWnd, SndBuf: uint64(max(t.SndBuf, 0)), Cwnd: t.MaxCwnd,
		RTT: t.MeanRTT, MinRTT: t.MinRTT, Retransmits: t.Retransmits,
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
func ExtStreams(totals []StreamTotal) []wire.ExtStream {
	var out []wire.ExtStream
	for _, t := range totals {
		if e, ok := t.Ext(); ok {
			out = append(out, e)
		}
	}
	return out
}
