// Package drops counts the packets a host drops outside TCP while a test
// runs: the receive backlog (softnet_stat's dropped, and time_squeeze,
// when the softirq ran out of budget with work left) and the transmit
// queue of the interface the peer is reached through (its tx_dropped and
// its root qdisc's drops). A verdict names them with the lever, since
// retransmits alone cannot tell a full path from a full host queue.
package drops

import (
	"fmt"
	"strings"
)

// Counters are the counts at one moment, or their rise over a test.
type Counters struct {
	Backlog  int64  `json:"backlog_drops,omitempty"`      // softnet_stat column 2, all CPUs
	Squeezed int64  `json:"time_squeeze,omitempty"`       // softnet_stat column 3, all CPUs
	Iface    string `json:"iface,omitempty"`              // the route's interface
	TxDrop   int64  `json:"tx_dropped,omitempty"`         // the interface's tx_dropped
	Qdisc    int64  `json:"qdisc_drops,omitempty"`        // its root qdisc's drops
	Backlogs int64  `json:"netdev_max_backlog,omitempty"` // the limit, for the advice
	TxQLen   int64  `json:"txqueuelen,omitempty"`         // the interface's, for the advice
}

// What a queue that dropped is raised to: a transmit queue to at least
// the kernel's default for Ethernet and four times what it had, at most
// seed 002's value for 10G; the receive backlog likewise. One place, for
// the verdict's advice and for tune's lever alike.
const (
	txqueuelenFloor = 1000
	txqueuelenTop   = 10000
	backlogFloor    = 10000
	backlogTop      = 1 << 20
)

// NextTxQueueLen is the txqueuelen to try after a transmit queue of cur
// packets dropped; cur itself when it is already at the top.
func NextTxQueueLen(cur int64) int64 {
	return max(cur, min(max(txqueuelenFloor, 4*cur), txqueuelenTop))
}

// NextBacklog is the net.core.netdev_max_backlog to try after a
// receive backlog of cur packets dropped; cur when at the top.
func NextBacklog(cur int64) int64 {
	return max(cur, min(max(backlogFloor, 4*cur), backlogTop))
}

// Since is what rose from before to c.
func (c Counters) Since(before Counters) Counters {
	d := Counters{Iface: c.Iface, Backlogs: c.Backlogs, TxQLen: c.TxQLen,
		Backlog: c.Backlog - before.Backlog, Squeezed: c.Squeezed - before.Squeezed}
	if c.Iface == before.Iface {
		d.TxDrop, d.Qdisc = c.TxDrop-before.TxDrop, c.Qdisc-before.Qdisc
	}
	return d
}

// Rose reports whether any drop counter rose.
func (c Counters) Rose() bool { return c.Backlog > 0 || c.TxDrop > 0 || c.Qdisc > 0 }

// Verdict says which queue dropped and what to raise; "" when none did.
// The counters are the host's, not one socket's: other traffic on the
// host during the test counts too, and the verdict says so.
func (c Counters) Verdict() string {
	var parts []string
	if c.Backlog > 0 {
		lever := "raise net.core.netdev_max_backlog"
		if c.Backlogs > 0 {
			lever = fmt.Sprintf("raise net.core.netdev_max_backlog (now %d; sysctl -w net.core.netdev_max_backlog=%d)", c.Backlogs, NextBacklog(c.Backlogs))
		}
		p := fmt.Sprintf("the receive backlog dropped %s packets: %s", count(c.Backlog), lever)
		if c.Squeezed > 0 {
			p += fmt.Sprintf(" (the softirq also ran out of budget %s times: net.core.netdev_budget)", count(c.Squeezed))
		}
		parts = append(parts, p)
	}
	if c.TxDrop > 0 || c.Qdisc > 0 {
		lever := fmt.Sprintf("raise its txqueuelen (ip link set dev %s txqueuelen %d)", c.Iface, txqueuelenTop)
		if c.TxQLen > 0 {
			lever = fmt.Sprintf("raise its txqueuelen (now %d; ip link set dev %s txqueuelen %d)", c.TxQLen, c.Iface, NextTxQueueLen(c.TxQLen))
		}
		parts = append(parts, fmt.Sprintf("the transmit queue of %s dropped %s packets (qdisc %s, device %s): %s",
			c.Iface, count(c.TxDrop+c.Qdisc), count(c.Qdisc), count(c.TxDrop), lever))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + " (this host's counters during the test: other traffic counts too)"
}

// count formats n with thousands separators (1,203).
func count(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
