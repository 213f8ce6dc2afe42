package window

import (
	"math"
	"testing"
	"time"
)

func TestBDPAndRate(t *testing.T) {
	if got := BDP(1e9, 50*time.Millisecond); got != 6250000 {
		t.Errorf("BDP 1G × 50ms = %d", got)
	}
	if got := Rate(6250000, 50*time.Millisecond); got != 1e9 {
		t.Errorf("Rate = %v", got)
	}
	if Rate(1, 0) != 0 {
		t.Error("rate at RTT 0")
	}
}

func TestModel(t *testing.T) {
	for _, c := range []struct {
		rel  string
		recv float64
	}{{"6.18.44-fc", 0.65}, {"6.6.0", 0.65}, {"6.1.0-18-amd64", 0.5}, {"5.15.0", 0.5}, {"", 0.65}, {"garbage", 0.65}} {
		if got := Linux(c.rel).Recv; got != c.recv {
			t.Errorf("%q: recv share %v, want %v", c.rel, got, c.recv)
		}
	}
	m := Linux66
	// show and advise used to disagree about a 4 MiB send buffer at 50
	// ms (671 vs 520 Mbit/s); the model says one thing.
	sc := m.SendCap(4<<20, 50*time.Millisecond)
	if math.Abs(sc-436.2e6) > 1e6 {
		t.Errorf("send cap %v", sc)
	}
	if m.RecvBuffer(m.RecvWindow(1<<20)) > 1<<20+2 {
		t.Error("RecvBuffer does not invert RecvWindow")
	}
	if got := m.Cap(8<<20, 4<<20, 50*time.Millisecond); got != sc {
		t.Errorf("cap %v, want the send side %v", got, sc)
	}
	if ExplicitBuffer(65536, 212992) != 131072 || ExplicitBuffer(1<<20, 212992) != 425984 {
		t.Error("explicit buffer")
	}
}
