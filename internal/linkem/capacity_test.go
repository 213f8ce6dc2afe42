package linkem

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestSchedule: a backlog drains at each step's rate in turn: 15 MB
// queued at once into 100 Mbit/s for 1 s then 20 Mbit/s take 2 s.
func TestSchedule(t *testing.T) {
	c, err := Schedule([]float64{100e6, 20e6}, []int64{1e9, 1e9})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Mean(); math.Abs(got-60e6) > 1 {
		t.Fatalf("mean %g, want 60 Mbit/s", got)
	}
	m := New(Config{Rate: c.Mean(), Capacity: c}, 1)
	var last int64
	for i := range 10000 {
		out := m.Enqueue(superPacket(1, 1448, uint32(i), 0x10), 0)
		last = out[0].Release
	}
	if want := int64(2e9); math.Abs(float64(last-want)) > 2e5 {
		t.Fatalf("the last of 15 MB left at %d ns, want %d", last, want)
	}
	// The next period starts over at 100 Mbit/s.
	if got := c.timeFor(c.bytesBy(2e9) + 12.5e6); got != 3e9 {
		t.Fatalf("a period later: %d", got)
	}
	for _, bad := range [][2][]float64{{{1e9}, {}}, {{10}, {1e9}}, {{1e9}, {0}}} {
		d := make([]int64, len(bad[1]))
		for i, v := range bad[1] {
			d[i] = int64(v)
		}
		if _, err := Schedule(bad[0], d); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// TestTrace: a Mahimahi trace delivers a packet per opportunity, loses
// the opportunities no packet waited for, and repeats from its last
// time.
func TestTrace(t *testing.T) {
	var b strings.Builder
	for ms := 1; ms <= 100; ms++ { // two opportunities a millisecond for 100 ms, then one at 200 ms
		b.WriteString(strings.Repeat(strconv.Itoa(ms)+"\n", 2))
	}
	b.WriteString("200\n")
	c, err := ReadTrace(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if want := 201.0 * 1500 * 8 / 0.2; math.Abs(c.Mean()-want) > 1 {
		t.Fatalf("mean %g, want %g", c.Mean(), want)
	}
	m := New(Config{Rate: c.Mean(), Capacity: c}, 1)
	// Backlogged for a second: five periods of 201 packets.
	n := 0
	for i := range 2000 {
		if out := m.Enqueue(superPacket(1, 1400, uint32(i), 0x10), 0); out[0].Release <= 1e9 {
			n++
		}
	}
	if n != 5*201 {
		t.Errorf("%d packets by 1 s, want %d", n, 5*201)
	}
	// A packet every 2 ms leaves at the next opportunity: none piles up.
	m = New(Config{Rate: c.Mean(), Capacity: c}, 1)
	for i := range int64(40) {
		now := 10e6 + i*2e6
		if out := m.Enqueue(superPacket(1, 1400, uint32(i), 0x10), now); out[0].Release-now > 1e6 {
			t.Fatalf("packet %d waited %d ns", i, out[0].Release-now)
		}
	}
	for _, bad := range []string{"", "x\n", "5\n3\n", "0\n"} {
		if _, err := ReadTrace(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read as a trace", bad)
		}
	}
}
