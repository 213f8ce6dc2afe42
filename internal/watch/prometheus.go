package watch

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tcptune/tcptune/internal/sockdiag"
)

// queued is what a socket holds: its receive and send queues.
func queued(s sockdiag.Socket) int64 { return int64(s.RecvQ) + int64(s.SendQ) }

// Collector exports a Source's figures to Prometheus, sampling on each
// scrape (node_exporter style): every counter of Counters, and per socket
// its queues, skmem, cwnd, RTT, delivery rate and limited time.
type Collector struct {
	src     Source
	counter *prometheus.Desc
	gauges  []sockGauge
	limited *prometheus.Desc
	errors  prometheus.Counter
	leftOut *prometheus.Desc
}

// MaxSockets bounds the sockets one scrape exports, each a set of
// series labelled by its address pair: remote peers come and go, and a
// busy server must not create series without bound. The sockets with
// the most bytes queued (receive and send) are kept; the number left
// out is exported.
const MaxSockets = 64

type sockGauge struct {
	desc *prometheus.Desc
	val  func(SocketRow) float64
}

// NewCollector builds the collector.
func NewCollector(src Source) *Collector {
	labels := []string{"local", "remote", "state"}
	g := func(name, help string, val func(SocketRow) float64) sockGauge {
		return sockGauge{prometheus.NewDesc("tcptune_socket_"+name, help, labels, nil), val}
	}
	return &Collector{
		src:     src,
		counter: prometheus.NewDesc("tcptune_netstat_total", "Kernel counters that reveal buffer trouble (/proc/net/netstat, snmp, softnet_stat).", []string{"name"}, nil),
		limited: prometheus.NewDesc("tcptune_socket_limited_seconds_total", "Time the socket was limited, by the peer's receive window (rwnd) or its send buffer (sndbuf).", append(labels, "by"), nil),
		errors:  prometheus.NewCounter(prometheus.CounterOpts{Name: "tcptune_scrape_errors_total", Help: "Samples that failed."}),
		leftOut: prometheus.NewDesc("tcptune_sockets_left_out", "Sockets this scrape did not export, beyond the most-queued "+strconv.Itoa(MaxSockets)+".", nil, nil),
		gauges: []sockGauge{
			g("recv_queue_bytes", "Recv-Q: bytes not yet read by the application.", func(s SocketRow) float64 { return float64(s.RecvQ) }),
			g("send_queue_bytes", "Send-Q: bytes not yet acknowledged.", func(s SocketRow) float64 { return float64(s.SendQ) }),
			g("rmem_alloc_bytes", "skmem r: memory queued for the application.", func(s SocketRow) float64 { return float64(s.RmemAlloc) }),
			g("rcvbuf_bytes", "skmem rb: receive-buffer limit.", func(s SocketRow) float64 { return float64(s.Rcvbuf) }),
			g("wmem_queued_bytes", "skmem w: bytes in the write queue.", func(s SocketRow) float64 { return float64(s.WmemQueued) }),
			g("sndbuf_bytes", "skmem tb: send-buffer limit.", func(s SocketRow) float64 { return float64(s.Sndbuf) }),
			g("drops", "skmem d: packets dropped on the socket.", func(s SocketRow) float64 { return float64(s.Drops) }),
			g("cwnd_bytes", "Congestion window.", func(s SocketRow) float64 { return float64(s.CwndBytes) }),
			g("rtt_seconds", "Smoothed RTT.", func(s SocketRow) float64 { return s.RTTms / 1000 }),
			g("delivery_rate_bits_per_second", "Delivery rate.", func(s SocketRow) float64 { return s.DeliveryRate }),
		},
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.counter
	ch <- c.limited
	ch <- c.leftOut
	c.errors.Describe(ch)
	for _, g := range c.gauges {
		ch <- g.desc
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	defer c.errors.Collect(ch)
	s, err := c.src.Sample()
	if err != nil {
		c.errors.Inc()
		return
	}
	for _, k := range Counters {
		if v, ok := s.Counters[k.Name]; ok {
			ch <- prometheus.MustNewConstMetric(c.counter, prometheus.CounterValue, float64(v), k.Name)
		}
	}
	socks := slices.Clone(s.Sockets)
	if len(socks) > MaxSockets {
		slices.SortStableFunc(socks, func(a, b sockdiag.Socket) int {
			return cmp.Compare(queued(b), queued(a))
		})
		socks = socks[:MaxSockets]
	}
	ch <- prometheus.MustNewConstMetric(c.leftOut, prometheus.GaugeValue, float64(len(s.Sockets)-len(socks)))
	for _, x := range socks {
		row := newRow(x)
		lv := []string{row.Local, row.Remote, row.State}
		for _, g := range c.gauges {
			ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, g.val(row), lv...)
		}
		if x.Info != nil {
			ch <- prometheus.MustNewConstMetric(c.limited, prometheus.CounterValue, float64(x.Info.RwndLimited)/1e6, append(lv, "rwnd")...)
			ch <- prometheus.MustNewConstMetric(c.limited, prometheus.CounterValue, float64(x.Info.SndbufLimited)/1e6, append(lv, "sndbuf")...)
		}
	}
}
