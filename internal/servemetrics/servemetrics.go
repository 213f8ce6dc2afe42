// Package servemetrics turns the tests a server finishes into Prometheus
// metrics (serve --prometheus): counts, rates, retransmits and RTTs per
// direction and limit verdict. Every label takes its values from a fixed
// set (direction, protocol, the limits of package attrib), never from a
// test or a client, so the number of series is bounded however many
// tests run.
package servemetrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/server"
)

// Metrics is a prometheus.Collector of finished tests; Record adds one.
type Metrics struct {
	tests      *prometheus.CounterVec
	bps        *prometheus.HistogramVec
	retrans    *prometheus.CounterVec
	rtt        *prometheus.HistogramVec
	lastBPS    *prometheus.GaugeVec
	lastLimit  *prometheus.GaugeVec
	lastEnd    prometheus.Gauge
	collectors []prometheus.Collector
}

// New returns the metrics, all at zero.
func New() *Metrics {
	dl := []string{"direction", "protocol", "limit"}
	m := &Metrics{
		tests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tcptune_serve_tests_total",
			Help: "Tests that ended, by outcome: completed (results exchanged) or failed."}, []string{"outcome"}),
		bps: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tcptune_serve_test_bits_per_second",
			Help:    "Each finished test's rate per direction, as its receiver counted it, by what limited it.",
			Buckets: []float64{1e6, 3e6, 1e7, 3e7, 1e8, 3e8, 1e9, 3e9, 1e10, 3e10, 1e11}}, dl),
		retrans: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tcptune_serve_test_retransmits_total",
			Help: "Segments the senders of finished tests retransmitted (when the sender reported them)."}, dl),
		rtt: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "tcptune_serve_test_rtt_seconds",
			Help:    "Each finished test's mean smoothed RTT per direction, as its sender measured it.",
			Buckets: prometheus.ExponentialBuckets(100e-6, 2, 14)}, dl), // 0.1 ms .. 0.8 s
		lastBPS: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tcptune_serve_last_test_bits_per_second",
			Help: "The last finished test's rate per direction."}, []string{"direction", "protocol"}),
		lastLimit: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tcptune_serve_last_test_limit",
			Help: "1 for what limited the last finished test in each direction, 0 for the other limits."}, []string{"direction", "limit"}),
		lastEnd: prometheus.NewGauge(prometheus.GaugeOpts{Name: "tcptune_serve_last_test_end_timestamp_seconds",
			Help: "When the last test ended (Unix time)."}),
	}
	m.collectors = []prometheus.Collector{m.tests, m.bps, m.retrans, m.rtt, m.lastBPS, m.lastLimit, m.lastEnd}
	m.tests.WithLabelValues("completed")
	m.tests.WithLabelValues("failed")
	return m
}

// Limits are the values of the "limit" label.
var Limits = []attrib.Limit{attrib.ReceiverWindow, attrib.SendBuffer, attrib.Network, attrib.CPU, attrib.Application, attrib.PathFull, attrib.ReceiveBuffer, attrib.Unknown}

// direction names a direction for a label.
func direction(name string) string {
	if name == limits.ServerToClient {
		return "server_to_client"
	}
	return "client_to_server"
}

// limit is a verdict's label value, "unknown" for anything outside Limits.
func limit(l attrib.Limit) string {
	for _, k := range Limits {
		if l == k {
			return string(l)
		}
	}
	return string(attrib.Unknown)
}

// Record adds a finished test.
func (m *Metrics) Record(r server.TestRecord) {
	m.lastEnd.Set(float64(time.Now().UnixNano()) / 1e9)
	if !r.Completed {
		m.tests.WithLabelValues("failed").Inc()
		return
	}
	m.tests.WithLabelValues("completed").Inc()
	proto := "tcp"
	if r.UDP {
		proto = "udp"
	}
	for _, d := range r.Directions {
		dir, lim := direction(d.Name), limit(d.Verdict.Result.Limit)
		if r.UDP {
			lim = string(attrib.Unknown)
		}
		m.bps.WithLabelValues(dir, proto, lim).Observe(d.BitsPerSecond)
		if d.Retransmits >= 0 {
			m.retrans.WithLabelValues(dir, proto, lim).Add(float64(d.Retransmits))
		}
		if d.RTT > 0 {
			m.rtt.WithLabelValues(dir, proto, lim).Observe(d.RTT.Seconds())
		}
		m.lastBPS.WithLabelValues(dir, proto).Set(d.BitsPerSecond)
		for _, k := range Limits {
			v := 0.0
			if string(k) == lim {
				v = 1
			}
			m.lastLimit.WithLabelValues(dir, string(k)).Set(v)
		}
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors {
		c.Collect(ch)
	}
}
