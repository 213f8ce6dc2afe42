package watch

// Counter is a host-wide counter that reveals buffer trouble, with what
// it means (kernel-knobs reference §5.3). The list is the one place this
// knowledge lives; watch and its Prometheus collector both read it.
type Counter struct {
	Name    string // as procnet names it: "TcpExt.PruneCalled"
	Meaning string
	// Trouble groups counters that share a verdict.
	Trouble string
}

// Troubles a counter can indicate.
const (
	rcvOverflow = "receive-overflow"
	zeroWindow  = "zero-window"
	memory      = "memory"
	listen      = "listen"
	retrans     = "retransmits"
	// spurious qualifies retrans: the retransmitted segments the
	// receiver reported it already had.
	spurious = "spurious"
	backlog  = "backlog"
	softnet  = "softnet"
)

// SoftnetDrops is the name watch gives softnet_stat's drop column.
const SoftnetDrops = "Softnet.Dropped"

// Counters are the counters watch follows, in display order.
var Counters = []Counter{
	{"TcpExt.PruneCalled", "receive queue over rcvbuf: the kernel tried to collapse it", rcvOverflow},
	{"TcpExt.RcvPruned", "pruning failed: data dropped from a receive queue", rcvOverflow},
	{"TcpExt.OfoPruned", "out-of-order queue purged for lack of rcvbuf", rcvOverflow},
	{"TcpExt.TCPRcvCollapsed", "received segments collapsed to save memory (CPU cost)", rcvOverflow},
	{"TcpExt.TCPRcvQDrop", "in-order segment dropped: receive memory exhausted", rcvOverflow},
	{"TcpExt.TCPOFODrop", "out-of-order segment dropped: receive memory exhausted", rcvOverflow},
	{"TcpExt.TCPBacklogDrop", "socket backlog full while the application held the lock", backlog},
	{"TcpExt.TCPZeroWindowDrop", "segment arrived while our window was 0", zeroWindow},
	{"TcpExt.TCPToZeroWindowAdv", "we advertised a zero window (the reader fell behind)", zeroWindow},
	{"TcpExt.TCPMemoryPressures", "entered tcp_mem pressure (global, in pages)", memory},
	{"TcpExt.TCPAbortOnMemory", "connections aborted for lack of TCP memory", memory},
	{"TcpExt.ListenOverflows", "accept queue overflowed", listen},
	{"Tcp.RetransSegs", "segments retransmitted", retrans},
	{"TcpExt.TCPDSACKRecvSegs", "retransmitted segments the receiver already had (DSACK): reordering or an early timeout, not loss", spurious},
	{SoftnetDrops, "packets dropped: input backlog (netdev_max_backlog) full", softnet},
}
