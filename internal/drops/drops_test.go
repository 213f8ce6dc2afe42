package drops

import (
	"net"
	"runtime"
	"strings"
	"testing"
)

func TestVerdictNamesTheQueue(t *testing.T) {
	before := Counters{Backlog: 10, Squeezed: 3, Iface: "eth0", TxDrop: 5, Qdisc: 7, Backlogs: 1000}
	if d := before.Since(before); d.Rose() || d.Verdict() != "" {
		t.Errorf("nothing rose: %+v %q", d, d.Verdict())
	}
	after := before
	after.Backlog, after.Squeezed = 1213, 40
	v := after.Since(before).Verdict()
	if !strings.Contains(v, "the receive backlog dropped 1,203 packets: raise net.core.netdev_max_backlog (now 1000; sysctl -w net.core.netdev_max_backlog=10000)") || !strings.Contains(v, "37 times") || strings.Contains(v, "transmit") {
		t.Errorf("backlog: %q", v)
	}
	after = before
	after.Qdisc += 2000
	after.TxQLen = 500
	v = after.Since(before).Verdict()
	if !strings.Contains(v, "raise its txqueuelen (now 500; ip link set dev eth0 txqueuelen 2000)") {
		t.Errorf("tx with its txqueuelen: %q", v)
	}
	after.TxQLen = 0
	v = after.Since(before).Verdict()
	if !strings.Contains(v, "the transmit queue of eth0 dropped 2,000 packets (qdisc 2,000, device 0)") || !strings.Contains(v, "ip link set dev eth0 txqueuelen 10000") || strings.Contains(v, "backlog") {
		t.Errorf("tx: %q", v)
	}
	// Another interface's counters are not a rise.
	after.Iface = "eth1"
	if d := after.Since(before); d.Rose() {
		t.Errorf("interface changed: %+v", d)
	}
	for cur, want := range map[int64]int64{8: 1000, 500: 2000, 5000: 10000, 10000: 10000, 20000: 20000} {
		if got := NextTxQueueLen(cur); got != want {
			t.Errorf("NextTxQueueLen(%d) = %d, want %d", cur, got, want)
		}
	}
	for cur, want := range map[int64]int64{1000: 10000, 5000: 20000, 1 << 19: 1 << 20, 1 << 21: 1 << 21} {
		if got := NextBacklog(cur); got != want {
			t.Errorf("NextBacklog(%d) = %d, want %d", cur, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q", n, got)
		}
	}
}

// Live, on loopback: the counters read, and a quiet loopback drops
// nothing of its own.
func TestSnapshotLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	c, err := Snapshot("/", net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Iface != "lo" || c.Backlogs <= 0 {
		t.Errorf("%+v", c)
	}
}
