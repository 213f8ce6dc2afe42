package pmtu

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// path is a fake path: it carries up to mtu bytes; above, a router
// answers with its MTU unless the path is a black hole; loss drops a
// share of probes at random (seeded).
type path struct {
	mtu       int
	blackhole bool
	noEcho    bool
	loss      float64
	rng       *rand.Rand
	sizes     []int
}

func (p *path) Probe(_ context.Context, size int, _ time.Duration) (Outcome, int, error) {
	p.sizes = append(p.sizes, size)
	switch {
	case p.noEcho:
		return Lost, 0, nil
	case p.rng != nil && p.rng.Float64() < p.loss:
		return Lost, 0, nil
	case size <= p.mtu:
		return Answered, 0, nil
	case p.blackhole:
		return Lost, 0, nil
	}
	return TooBig, p.mtu, nil
}

func TestSearch(t *testing.T) {
	o := Options{Base: 1200, Max: 9000, Timeout: time.Millisecond, Tries: 3, Step: 8}
	for _, tc := range []struct {
		name   string
		p      *path
		want   Result
		probes int // at most
	}{
		{"carries the interface's MTU: one round trip after the base", &path{mtu: 9000}, Result{Largest: 9000}, 2},
		{"a router says 1500", &path{mtu: 1500}, Result{Largest: 1500, ICMP: 1500}, 3},
		{"a black hole above 4000", &path{mtu: 4000, blackhole: true}, Result{Largest: 3995, Blackhole: true}, 60},
		{"a black hole above 1500: the common MTU is tried", &path{mtu: 1500, blackhole: true}, Result{Largest: 1500, Blackhole: true}, 60},
		{"no echo replies at all", &path{mtu: 9000, noEcho: true}, Result{Unknown: true}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Search(context.Background(), tc.p, o)
			if r.Largest != tc.want.Largest || r.ICMP != tc.want.ICMP || r.Blackhole != tc.want.Blackhole || r.Unknown != tc.want.Unknown || err != nil {
				t.Fatalf("%+v %v, want %+v (sizes %v)", r, err, tc.want, tc.p.sizes)
			}
			if r.Probes > tc.probes || r.Probes != len(tc.p.sizes) {
				t.Fatalf("%d probes (%v), want at most %d", r.Probes, tc.p.sizes, tc.probes)
			}
			t.Logf("%s: %v", tc.name, r)
		})
	}
}

// Random loss of a third of the probes does not make a black hole out
// of a path that carries 9000 bytes: a size is lost only after Tries
// losses in a row.
func TestSearchUnderLoss(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	wrong := 0
	for range 200 {
		r, _ := Search(context.Background(), &path{mtu: 9000, loss: 0.33, rng: rng}, Options{Base: 1200, Max: 9000, Tries: 6, Step: 8})
		if r.Largest != 9000 && !r.Unknown {
			wrong++
		}
	}
	// (1/3)^6 per size: a few in a thousand searches may still err.
	if wrong > 4 {
		t.Fatalf("%d of 200 searches under 33%% loss missed 9000 (seed %d)", wrong, seed)
	}
}
