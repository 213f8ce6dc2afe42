package watch

import (
	"github.com/prometheus/client_golang/prometheus"
)

// FlowCollector exports a FlowRun's groups to Prometheus. Its labels are
// bounded: the group (at most MaxGroups), the direction and the limit,
// never a socket.
type FlowCollector struct {
	run                                    *FlowRun
	flows, bytes, judged, limitS, overruns *prometheus.Desc
	median, top                            *prometheus.Desc
}

// NewFlowCollector builds the collector of run.
func NewFlowCollector(run *FlowRun) *FlowCollector {
	l := []string{"group", "dir"}
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("tcptune_flows_"+name, help, labels, nil)
	}
	return &FlowCollector{
		run:      run,
		flows:    d("ended_total", "TCP flows that ended, per group and direction.", l...),
		bytes:    d("bytes_total", "Bytes the ended flows carried in their direction.", l...),
		judged:   d("judged_total", "Ended flows long enough to judge.", l...),
		limitS:   d("limit_seconds_total", "Time of the judged flows under each verdict.", append(l, "limit")...),
		median:   d("median_bits_per_second", "Median rate of the judged flows.", l...),
		top:      d("top_bits_per_second", "Highest rate of a judged flow.", l...),
		overruns: d("event_overruns_total", "Overflows of the event socket; each lost at least one flow."),
	}
}

// Describe implements prometheus.Collector.
func (c *FlowCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.flows, c.bytes, c.judged, c.limitS, c.median, c.top, c.overruns} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *FlowCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.run.Summary()
	ch <- prometheus.MustNewConstMetric(c.overruns, prometheus.CounterValue, float64(s.Overruns))
	for _, g := range s.Groups {
		lv := []string{g.Group, string(g.Role)}
		ch <- prometheus.MustNewConstMetric(c.flows, prometheus.CounterValue, float64(g.Flows), lv...)
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.CounterValue, float64(g.Bytes), lv...)
		ch <- prometheus.MustNewConstMetric(c.judged, prometheus.CounterValue, float64(g.Judged), lv...)
		ch <- prometheus.MustNewConstMetric(c.median, prometheus.GaugeValue, g.MedianBPS, lv...)
		ch <- prometheus.MustNewConstMetric(c.top, prometheus.GaugeValue, g.TopBPS, lv...)
		for l, share := range g.Limits {
			ch <- prometheus.MustNewConstMetric(c.limitS, prometheus.CounterValue, share*g.JudgedSeconds, append(lv, string(l))...)
		}
	}
}
