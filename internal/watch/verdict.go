package watch

import (
	"fmt"
	"strings"

	"github.com/tcptune/tcptune/internal/attrib"
)

// verdicts says what the report shows, worst first: host-wide trouble
// tied to the socket that shows it, then per-socket limits.
func verdicts(r Report) []string {
	var out []string
	per := map[string]float64{}
	what := map[string][]string{}
	for _, c := range r.Counters {
		if c.Delta > 0 {
			per[c.trouble] += c.PerSec
			what[c.trouble] = append(what[c.trouble], fmt.Sprintf("%.0f %s/s", c.PerSec, short(c.Name)))
		}
	}
	fullest := fullestReceiver(r.Sockets)
	on := ""
	if fullest != nil {
		on = fmt.Sprintf(" on %s (from %s, receive buffer %d of %d bytes used)", fullest.Local, fullest.Remote, fullest.RmemAlloc, fullest.Rcvbuf)
	}
	if per[rcvOverflow] > 0 {
		out = append(out, fmt.Sprintf("receive buffer overflowing%s: %s; the application reads too slowly or tcp_rmem is too small", on, strings.Join(what[rcvOverflow], ", ")))
	}
	if per[zeroWindow] > 0 {
		out = append(out, fmt.Sprintf("receiver window closing%s: %s; the receiving application reads too slowly for the sender", on, strings.Join(what[zeroWindow], ", ")))
	}
	if per[backlog] > 0 {
		out = append(out, fmt.Sprintf("socket backlog drops: %s; short buffers or an application holding the socket lock", strings.Join(what[backlog], ", ")))
	}
	if per[memory] > 0 {
		out = append(out, fmt.Sprintf("TCP memory pressure: %s; the global net.ipv4.tcp_mem (in pages) is too low for the buffers in use", strings.Join(what[memory], ", ")))
	}
	if per[listen] > 0 {
		out = append(out, fmt.Sprintf("accept queue overflowing: %s; the server accepts too slowly: raise its listen backlog and net.core.somaxconn", strings.Join(what[listen], ", ")))
	}
	if per[softnet] > 0 {
		out = append(out, fmt.Sprintf("input backlog drops: %s; raise net.core.netdev_max_backlog or spread the NIC's interrupts", strings.Join(what[softnet], ", ")))
	}
	if per[retrans] > 0 {
		out = append(out, retransVerdict(per[retrans], per[spurious], what[retrans]))
	}
	for _, s := range r.Sockets {
		switch {
		case s.Rcvbuf > 0 && s.RecvQ > 0 && float64(s.RmemAlloc) >= 0.9*float64(s.Rcvbuf) && (fullest == nil || s.Local != fullest.Local || per[rcvOverflow]+per[zeroWindow] == 0):
			out = append(out, fmt.Sprintf("receive buffer full on %s (from %s): %d of %d bytes queued for the application, which reads too slowly", s.Local, s.Remote, s.RmemAlloc, s.Rcvbuf))
		}
		if l := s.Limit; l != nil && held(l.Limit) {
			out = append(out, fmt.Sprintf("%s → %s: %s", s.Local, s.Remote, l))
		}
		if s.Drops > 0 && s.RecvQ > 0 {
			out = append(out, fmt.Sprintf("%d packets dropped on %s", s.Drops, s.Local))
		}
	}
	return out
}

// retransVerdict says what the host's retransmits were (n a second,
// dup of them the receiver reported it already had): loss, or where
// every one was a duplicate, reordering or early timeouts.
func retransVerdict(n, dup float64, what []string) string {
	w := strings.Join(what, ", ")
	switch {
	case dup <= 0:
		return w + ": loss on the path or a queue overflowing along it"
	case dup >= n:
		return fmt.Sprintf("%s, the receivers already had each (%.0f duplicates/s reported): reordering on the path or early timeouts, not loss", w, dup)
	}
	return fmt.Sprintf("%s, %.0f/s of them segments the receivers already had (reordering or early timeouts); the rest: loss on the path or a queue overflowing along it", w, dup)
}

// held reports whether a socket's limit is one to act on: a buffer, a
// window, the path or a core, not an application that paced it or
// evidence that did not decide.
func held(l attrib.Limit) bool {
	switch l {
	case attrib.ReceiverWindow, attrib.SendBuffer, attrib.Network, attrib.PathFull, attrib.CPU:
		return true
	}
	return false
}

// fullestReceiver is the socket with the highest rmem_alloc/rcvbuf that
// has data queued, if any.
func fullestReceiver(socks []SocketRow) *SocketRow {
	var best *SocketRow
	var bestFill float64
	for i := range socks {
		s := &socks[i]
		if s.Rcvbuf == 0 || s.RecvQ == 0 {
			continue
		}
		if f := float64(s.RmemAlloc) / float64(s.Rcvbuf); f > bestFill {
			best, bestFill = s, f
		}
	}
	return best
}

// short drops the prefix and names counters as people read them.
func short(name string) string {
	switch name {
	case "TcpExt.TCPRcvCollapsed":
		return "collapses"
	case "TcpExt.PruneCalled":
		return "prunes"
	case "Tcp.RetransSegs":
		return "retransmits"
	case "TcpExt.TCPToZeroWindowAdv":
		return "zero-window advertisements"
	}
	_, n, _ := strings.Cut(name, ".")
	return n
}
