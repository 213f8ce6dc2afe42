package doctor

import (
	"fmt"
	"strconv"

	"github.com/tcptune/tcptune/internal/procnet"
)

// checkTCPMem: TCP's memory against tcp_mem's thresholds (pages), and
// whether pressure has been entered.
func checkTCPMem(h Host, in inputs) []Result {
	tm, err := h.sysctlInts("net.ipv4.tcp_mem")
	fs := procnet.FS{Root: h.Root}
	used, err2 := fs.TCPMemPages()
	if err != nil || err2 != nil || len(tm) != 3 {
		return []Result{na("tcp-mem", "tcp_mem or /proc/net/sockstat unreadable")}
	}
	r := Result{Check: "tcp-mem", Verdict: OK, Evidence: fmt.Sprintf("TCP uses %d pages; tcp_mem pressure at %d, max %d (pages of 4 KiB)", used, tm[1], tm[2])}
	if c, err := fs.Counters(); err == nil {
		if n := c.Get("TcpExt.TCPMemoryPressures"); n > 0 {
			r.Evidence += fmt.Sprintf("; entered pressure %d times since boot", n)
			r.Verdict = Warn
		}
	}
	switch {
	case used >= tm[1]:
		r.Verdict = Fail
	case float64(used) >= 0.8*float64(tm[1]):
		r.Verdict = Warn
	}
	if r.Verdict != OK {
		r.Why = "under pressure the kernel shrinks every socket's buffers: raise net.ipv4.tcp_mem (in pages), or lower buffer maxima or connection counts"
	}
	return []Result{r}
}

// checkBacklog: netdev_max_backlog against softnet drops.
func checkBacklog(h Host, in inputs) []Result {
	b, err := h.sysctl("net.core.netdev_max_backlog")
	drops, err2 := procnet.FS{Root: h.Root}.SoftnetDrops()
	if err != nil || err2 != nil {
		return []Result{na("backlog", "netdev_max_backlog or softnet_stat unreadable")}
	}
	r := Result{Check: "backlog", Verdict: OK, Evidence: fmt.Sprintf("netdev_max_backlog %s; %d softnet drops since boot", b, drops)}
	if drops > 0 {
		r.Verdict, r.Why = Warn, "the per-CPU input queue overflowed: raise net.core.netdev_max_backlog (10 × the current value), or spread interrupts (RSS, irqbalance)"
		if n, err := strconv.ParseInt(b, 10, 64); err == nil && n > 0 {
			r.Fix = fmt.Sprintf("sysctl -w net.core.netdev_max_backlog=%d", 10*n)
		}
	}
	return []Result{r}
}
