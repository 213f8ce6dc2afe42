package view

import (
	"math"
	"slices"
	"testing"

	"github.com/tcptune/tcptune/internal/engine"
)

func TestCrossed(t *testing.T) {
	for _, c := range []struct {
		name        string
		rates, secs []float64
		path        float64
		want        []float64
		omitted     bool
	}{
		// A hole filled in the third interval releases 11.9 Mbit of what
		// arrived in the second: 193 Mbit/s goodput.
		{"a hole's release moves back", []float64{190e6, 181.1e6, 204.9e6}, []float64{1, 1, 1}, 193e6, []float64{190e6, 193e6, 193e6}, false},
		{"carried over two intervals", []float64{150e6, 193e6, 220e6}, []float64{1, 1, 1}, 193e6, []float64{177e6, 193e6, 193e6}, false},
		{"a shorter interval before", []float64{190e6, 200e6}, []float64{0.5, 1}, 193e6, []float64{204e6, 193e6}, false},
		{"unknown path", []float64{190e6, 204.9e6}, []float64{1, 1}, 0, []float64{190e6, 204.9e6}, false},
		{"nothing above", []float64{100e6, 120e6}, []float64{1, 1}, 193e6, []float64{100e6, 120e6}, false},
		// Measured after -O: what the first interval counted above the
		// path crossed during the omitted start (bbr, 0.5% loss, a stock
		// iperf3 sending: 195.6 Mbit/s in the first second of 193).
		{"released from the omitted start", []float64{195.6e6, 193e6}, []float64{1, 1}, 193e6, []float64{193e6, 193e6}, true},
	} {
		got := Crossed(c.rates, c.secs, c.path, c.omitted)
		if !slices.EqualFunc(got, c.want, func(a, b float64) bool { return math.Abs(a-b) < 1 }) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		var in, out float64
		for i := range got {
			in += c.rates[i] * c.secs[i]
			out += got[i] * c.secs[i]
		}
		if math.Abs(in-out) > 1 && !c.omitted {
			t.Errorf("%s: %v bits became %v", c.name, in, out)
		}
	}
}

func TestRatesPerDirection(t *testing.T) {
	ivs := []engine.Interval{
		{Omitted: true, Streams: []engine.StreamInterval{{Sender: false, Delivered: 1e6, Seconds: 1}}},
		{Streams: []engine.StreamInterval{{Sender: false, Delivered: 23.75e6, Seconds: 1}, {Sender: true, Delivered: 5e6, Seconds: 1}}},
		{Streams: []engine.StreamInterval{{Sender: false, Delivered: 25.6125e6, Seconds: 1}, {Sender: true, Delivered: 5e6, Seconds: 1}}},
	}
	got, early := Rates(ivs, false, 193e6)
	if len(got) != 2 || got[0] != 193e6 || got[1] != 193e6 || math.Abs(early-8.9e6) > 1 {
		t.Errorf("received: %v, %v bits early", got, early)
	}
	if got, early := Rates(ivs, true, 193e6); !slices.Equal(got, []float64{40e6, 40e6}) || early != 0 {
		t.Errorf("sent: %v, %v bits early", got, early)
	}
}
