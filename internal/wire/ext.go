package wire

// Ext is what a tcptune peer adds to its results under the key
// "tcptune" (iperf3 ignores unknown keys): its sending sockets'
// TCP_INFO figures, so that the other side can attribute the limit of a
// transfer it only received (-R, --bidir).
type Ext struct {
	Version string      `json:"version"`
	Cores   int         `json:"cores"`
	SndBuf  int         `json:"sndbuf_actual"`
	RcvBuf  int         `json:"rcvbuf_actual"`
	Streams []ExtStream `json:"streams"`
	// IntervalsLeftOut counts the intervals a server left out of its
	// report to bound its memory (the middle of a long test).
	IntervalsLeftOut int `json:"intervals_left_out,omitempty"`
	// RcvbufErrors is how many datagrams this side's host dropped for a
	// full UDP receive buffer during a UDP test it received in (Udp
	// RcvbufErrors); nil when unknown or not receiving UDP.
	RcvbufErrors *int64 `json:"udp_rcvbuf_errors,omitempty"`
	// Received is this side's kernel count of what each of its receiving
	// TCP streams got over its measured period: the other side, which
	// sent them, takes the smaller of it and its own count.
	Received []ExtReceived `json:"received,omitempty"`
}

// ExtReceived is one receiving stream's view: tcpi_bytes_received
// over the measured period (payload in order, so it jumps when a
// retransmission fills a hole, but never runs ahead of what arrived),
// the window it advertised (tcpi_rcv_wnd, Linux 6.2+; the mean of the
// intervals' samples), its
// receive buffer at the end, its RTT estimate under load (tcpi_rcv_rtt)
// and the smallest RTT it saw.
type ExtReceived struct {
	ID      int     `json:"id"`
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"received_bytes"`
	RcvWnd  uint64  `json:"mean_rcv_wnd,omitempty"`
	RcvBuf  uint64  `json:"rcvbuf,omitempty"`
	RcvRTT  uint32  `json:"mean_rcv_rtt,omitempty"`
	MinRTT  uint32  `json:"min_rtt,omitempty"`
	MSS     uint32  `json:"rcv_mss,omitempty"`
}

// ExtStream is one sending stream's sender-side view.
type ExtStream struct {
	ID          int     `json:"id"`
	Seconds     float64 `json:"seconds"`
	Bytes       int64   `json:"bytes"`
	BusyUS      uint64  `json:"busy_us"`
	RwndUS      uint64  `json:"rwnd_limited_us"`
	SndbufUS    uint64  `json:"sndbuf_limited_us"`
	SndWnd      uint64  `json:"max_snd_wnd"`
	SndBuf      uint64  `json:"sndbuf"`
	Cwnd        uint64  `json:"max_snd_cwnd"`
	RTT         uint32  `json:"mean_rtt"`
	MinRTT      uint32  `json:"min_rtt"`
	Retransmits int64   `json:"retransmits"`
	// Spurious is how many of them the receiver reported as duplicates
	// (DSACK): reordering or a late ACK, not loss.
	Spurious int64  `json:"dsack_dups,omitempty"`
	MSS      uint32 `json:"mss"`
	PMTU     uint32 `json:"pmtu"`
	// Delivered is the payload the kernel counted as delivered over
	// the measured period (tcpi_delivered × the average segment
	// payload); Inflight and Notsent
	// are the measured bytes in flight and not yet sent, averaged.
	Delivered int64  `json:"delivered_bytes,omitempty"`
	Inflight  uint64 `json:"mean_inflight,omitempty"`
	Notsent   uint64 `json:"mean_notsent,omitempty"`
	// RTTSamples counts the samples of the smoothed RTT under load,
	// QueuedSamples those that showed a queue over the socket's least
	// RTT (absent from a peer that does not count them).
	RTTSamples    uint64 `json:"rtt_samples,omitempty"`
	QueuedSamples uint64 `json:"queued_rtt_samples,omitempty"`
}
