package servemetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	promtest "github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/server"
)

func rec(bps float64, l attrib.Limit) server.TestRecord {
	return server.TestRecord{Completed: true, Directions: []server.DirectionRecord{
		{Name: limits.ClientToServer, BitsPerSecond: bps, Retransmits: 3, RTT: 20 * time.Millisecond,
			Verdict: limits.Verdict{Result: attrib.Result{Limit: l}}},
		{Name: limits.ServerToClient, BitsPerSecond: bps / 2, Retransmits: -1,
			Verdict: limits.Verdict{Result: attrib.Result{Limit: attrib.Unknown}}},
	}}
}

func TestRecord(t *testing.T) {
	m := New()
	m.Record(rec(9e8, attrib.ReceiverWindow))
	m.Record(rec(5e8, attrib.ReceiverWindow))
	m.Record(server.TestRecord{})
	want := `
# HELP tcptune_serve_tests_total Tests that ended, by outcome: completed (results exchanged) or failed.
# TYPE tcptune_serve_tests_total counter
tcptune_serve_tests_total{outcome="completed"} 2
tcptune_serve_tests_total{outcome="failed"} 1
# HELP tcptune_serve_test_retransmits_total Segments the senders of finished tests retransmitted (when the sender reported them).
# TYPE tcptune_serve_test_retransmits_total counter
tcptune_serve_test_retransmits_total{direction="client_to_server",limit="receiver-window",protocol="tcp"} 6
# HELP tcptune_serve_last_test_bits_per_second The last finished test's rate per direction.
# TYPE tcptune_serve_last_test_bits_per_second gauge
tcptune_serve_last_test_bits_per_second{direction="client_to_server",protocol="tcp"} 5e+08
tcptune_serve_last_test_bits_per_second{direction="server_to_client",protocol="tcp"} 2.5e+08
`
	if err := promtest.CollectAndCompare(m, strings.NewReader(want), "tcptune_serve_tests_total", "tcptune_serve_test_retransmits_total", "tcptune_serve_last_test_bits_per_second"); err != nil {
		t.Fatal(err)
	}
	if got := promtest.ToFloat64(m.lastLimit.WithLabelValues("client_to_server", "receiver-window")); got != 1 {
		t.Fatalf("last limit gauge %g", got)
	}
	if got := promtest.ToFloat64(m.lastLimit.WithLabelValues("client_to_server", "network")); got != 0 {
		t.Fatalf("other limit gauge %g", got)
	}
	if n := promtest.CollectAndCount(m, "tcptune_serve_test_rtt_seconds"); n != 1 {
		t.Fatalf("%d RTT series: the unknown RTT was observed", n)
	}
}

// However many tests, and whatever their verdicts, the series are
// bounded by the label sets.
func TestCardinalityIsBounded(t *testing.T) {
	m := New()
	odd := []attrib.Limit{"made-up", attrib.Limit(strings.Repeat("x", 100))}
	for i := range 5000 {
		ls := append(Limits, odd...)
		r := rec(float64(i)*1e6, ls[i%len(ls)])
		r.UDP = i%3 == 0
		m.Record(r)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, mf := range mfs {
		series += len(mf.GetMetric())
	}
	// tests 2; per (direction 2 × protocol 2 × limit 7): bps, retransmits, rtt;
	// last bps 2 × 2; last limit 2 × 7; last end 1.
	if bound := 2 + 3*2*2*7 + 4 + 14 + 1; series > bound {
		t.Fatalf("%d series after 5000 tests, bound %d", series, bound)
	}
}
