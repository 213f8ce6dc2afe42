package report

import (
	"fmt"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/result"
)

func role(m result.Meta, reverse bool) string {
	if !m.Params.Bidirectional {
		return ""
	}
	switch {
	case !m.Server && !reverse:
		return "TX-C"
	case !m.Server:
		return "RX-C"
	case !reverse:
		return "RX-S"
	}
	return "TX-S"
}

// Header is the column header printed before the interval lines.
func Header(m result.Meta, localSends, tcpInfo bool) string {
	base := "[ ID] Interval           Transfer     Bitrate"
	if m.Params.Bidirectional {
		base = "[ ID][Role] Interval           Transfer     Bitrate"
	}
	switch {
	case m.Params.UDP && localSends:
		return base + "         Total Datagrams"
	case m.Params.UDP:
		return base + "         Jitter    Lost/Total Datagrams"
	case localSends && tcpInfo:
		return base + "         Retr  Cwnd          RTT"
	}
	return base
}

func intervalLine(m result.Meta, s engine.StreamInterval, tag int) string {
	line := fmt.Sprintf("%s %s  %s  %s", id(tag, role(m, s.Reverse)), interval(s.Start, s.End), Bytes(float64(s.Bytes)), Rate(s.BitsPerSecond, m.Unit))
	switch {
	case s.UDP && s.Sender:
		line += fmt.Sprintf("  %d", s.Packets)
	case s.UDP:
		line += fmt.Sprintf("  %.3f ms  %d/%d (%.2g%%)", s.JitterMS, s.Lost, s.Packets, pct(s.Lost, s.Packets))
	case s.Sender && s.HasTCPInfo && tag >= 0:
		line += fmt.Sprintf("  %4d   %s  %s", s.Retransmits, pad(Bytes(float64(s.SndCwnd)), 12), RTT(s.RTT))
	case s.Sender && s.HasTCPInfo:
		line += fmt.Sprintf("  %4d", s.Retransmits)
	}
	if s.Omitted {
		line += "  (omitted)"
	}
	return line
}

// IntervalLines renders one reporting interval: a line per stream, and
// [SUM] lines when there are several streams.
func IntervalLines(m result.Meta, iv engine.Interval) []string {
	var out []string
	n := len(iv.Streams)
	for _, s := range iv.Streams {
		out = append(out, intervalLine(m, s, s.ID))
	}
	if n > 1 && !(m.Params.Bidirectional && n == 2) {
		for _, rev := range []bool{false, true} {
			var sum engine.StreamInterval
			k := 0
			for _, s := range iv.Streams {
				if s.Reverse != rev {
					continue
				}
				if k == 0 {
					sum = s
					sum.Bytes, sum.Retransmits, sum.Packets, sum.Lost, sum.JitterMS = 0, 0, 0, 0, 0
				}
				k++
				sum.Bytes += s.Bytes
				sum.Retransmits += s.Retransmits
				sum.Packets += s.Packets
				sum.Lost += s.Lost
				sum.JitterMS += s.JitterMS
			}
			if k > 1 {
				sum.JitterMS /= float64(k)
				if sum.Seconds > 0 {
					sum.BitsPerSecond = float64(sum.Bytes) * 8 / sum.Seconds
				}
				out = append(out, intervalLine(m, sum, -1))
			}
		}
	}
	if n > 1 {
		out = append(out, separator)
	}
	return out
}

func endLine(m result.Meta, tag int, reverse bool, sd result.Side, udp, tcpSender bool, label string) string {
	line := fmt.Sprintf("%s %s  %s  %s", id(tag, role(m, reverse)), interval(sd.Start, sd.End), Bytes(float64(sd.Bytes)), Rate(sd.BitsPerSecond, m.Unit))
	switch {
	case udp:
		line += fmt.Sprintf("  %.3f ms  %d/%d (%.2g%%)", sd.JitterMS, sd.Lost, sd.Packets, pct(sd.Lost, sd.Packets))
	case tcpSender && sd.HasRetransmits:
		line += fmt.Sprintf("  %4d", sd.Retransmits)
	default:
		line += "      "
	}
	return line + "             " + label
}

// EndLines renders the final summary: sender and receiver line per
// stream, then [SUM] lines.
func EndLines(m result.Meta, s result.Summary) []string {
	out := []string{separator}
	if s.UDP {
		out = append(out, Header(m, false, false))
	} else {
		out = append(out, Header(m, false, false)+"         Retr")
	}
	for _, st := range s.Streams {
		snd := st.Sender
		rcv := st.Receiver
		if s.UDP {
			snd.JitterMS, snd.Lost = 0, 0
			snd.Packets = max(snd.Packets, rcv.Packets)
		}
		out = append(out, endLine(m, st.ID, st.Reverse, snd, s.UDP, true, "sender"))
		out = append(out, endLine(m, st.ID, st.Reverse, rcv, s.UDP, false, "receiver"))
	}
	if len(s.Streams) > 1 {
		fwd, rev := 0, 0
		for _, st := range s.Streams {
			if st.Reverse {
				rev++
			} else {
				fwd++
			}
		}
		if fwd > 1 || (s.Bidir && fwd > 0 && rev > 0 && len(s.Streams) > 2) {
			out = append(out, endLine(m, -1, false, s.Sent, s.UDP, true, "sender"), endLine(m, -1, false, s.Recv, s.UDP, false, "receiver"))
		}
		if rev > 1 {
			out = append(out, endLine(m, -1, true, s.SentRev, s.UDP, true, "sender"), endLine(m, -1, true, s.RecvRev, s.UDP, false, "receiver"))
		}
	}
	return out
}
