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
	if math.Abs(sc-536.9e6) > 1e6 {
		t.Errorf("send cap %v", sc)
	}
	if m.RecvBuffer(m.RecvWindow(1<<20)) > 1<<20+2 {
		t.Error("RecvBuffer does not invert RecvWindow")
	}
	if got := m.Cap(8<<20, 4<<20, 50*time.Millisecond); got != sc {
		t.Errorf("cap %v, want the send side %v", got, sc)
	}
	// The receive share follows the MSS on 6.6+, not before.
	for _, c := range []struct {
		m    Model
		mss  int64
		want float64
	}{{m, 0, 0.65}, {m, 1448, 0.65}, {m, 8948, 0.83}, {m, 65483, 0.83}, {m, 5198, 0.74}, {Linux("6.1.0"), 8948, 0.5}} {
		if got := c.m.ForMSS(c.mss).Recv; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s at MSS %d: recv share %v, want %v", c.m.Kernel, c.mss, got, c.want)
		}
	}
	if ExplicitBuffer(65536, 212992) != 131072 || ExplicitBuffer(1<<20, 212992) != 425984 {
		t.Error("explicit buffer")
	}
}

// Packets: timestamps off at the same MTU, and another MTU.
func TestPacketAndPayload(t *testing.T) {
	for _, c := range []struct{ mss, ref, want int }{{1448, 1448, 1500}, {1460, 1448, 1500}, {8948, 1448, 9000}, {1448, 8948, 1500}, {1448, 0, 1500}} {
		if got := Packet(c.mss, c.ref); got != c.want {
			t.Errorf("Packet(%d, %d) = %d, want %d", c.mss, c.ref, got, c.want)
		}
	}
	if got := Payload(972.8e6, 1460, 1448, 1448); math.Abs(got-972.8e6*1448/1460) > 1 {
		t.Errorf("1460 → 1448: %.6g", got)
	}
	if got := Payload(2484e6, 8948, 1448, 1448); math.Abs(got-2484e6*9000/8948*1448/1500) > 1 {
		t.Errorf("8948 → 1448: %.6g", got)
	}
	if got := Payload(5e8, 0, 1448, 1448); got != 5e8 {
		t.Errorf("unknown MSS: %.6g", got)
	}
}
