package tunesim

import (
	"math"

	"github.com/tcptune/tcptune/internal/tune"
)

// Grid is the oracle's search space: each maximum at the host's value
// and at multiples of the BDP above it (a choice never lowers a maximum
// an administrator set: the host serves other paths too), both
// congestion controls, the MTUs the path offers (the lab), and the
// transmit queue as it is and raised.
func (e *Env) grid() []point {
	bdp := e.s.bdp(e.s.goodput(1500))
	sizes := func(floor int64) []int64 {
		out := []int64{floor}
		for _, k := range []float64{0.5, 1, 1.5, 2, 3, 4, 6, 8} {
			if v := roundUp(k * bdp); v > floor {
				out = append(out, v)
			}
		}
		return out
	}
	rs, ws := sizes(e.s.Rmem), sizes(e.s.Wmem)
	mtus := []int{1500}
	if e.s.Both && e.pathMTU() > 1500 {
		mtus = append(mtus, e.pathMTU())
	}
	txqs := []int64{1000}
	if e.s.TxqNeed > 0 {
		txqs = append(txqs, 2*e.s.TxqNeed)
	}
	var out []point
	for _, r := range rs {
		for _, w := range ws {
			for _, cc := range []string{"cubic", "bbr"} {
				for _, m := range mtus {
					for _, q := range txqs {
						out = append(out, point{rcv: r, snd: w, cc: cc, mtu: m, txq: q, parallel: 1})
					}
				}
			}
		}
	}
	return out
}

func roundUp(b float64) int64 { return int64(math.Ceil(b/65536)) * 65536 }

// rates are the truth's mean rates per direction with this host's
// maxima r and w, congestion control cc, MTU and transmit queue, as
// each direction sees them (the peer's own settings where it sends or
// receives).
func (e *Env) rates(h point) map[tune.Direction]float64 {
	out := map[tune.Direction]float64{}
	for _, d := range []tune.Direction{tune.Forward, tune.Reverse} {
		p := h
		if !e.s.Both {
			p.mtu = min(h.mtu, e.pathMTU())
			if d == tune.Forward {
				p.rcv = e.s.PeerRmem
			} else {
				p.snd, p.cc = e.s.PeerWmem, e.s.CC
			}
		}
		out[d] = e.s.mean(e.t, p, d == tune.Forward)
	}
	return out
}

// Oracle is the best the grid offers: per direction the highest mean
// rate, and the cheapest point (rmem + wmem maxima) reaching 97% of it
// in every direction at once.
type Oracle struct {
	Best     map[tune.Direction]float64
	Cheapest int64
}

// Oracle evaluates the truth over the grid, without noise.
func (e *Env) Oracle() Oracle {
	o := Oracle{Best: map[tune.Direction]float64{}}
	grid := e.grid()
	all := make([]map[tune.Direction]float64, len(grid))
	for i, p := range grid {
		all[i] = e.rates(p)
		for d, v := range all[i] {
			o.Best[d] = max(o.Best[d], v)
		}
	}
	bestWorst := 0.0
	for i, p := range grid {
		worst := math.Inf(1)
		for d, v := range all[i] {
			worst = min(worst, v/o.Best[d])
		}
		mem := p.rcv + p.snd
		switch {
		case worst >= 0.97 && (o.Cheapest == 0 || mem < o.Cheapest || bestWorst < 0.97):
			o.Cheapest, bestWorst = mem, max(worst, 0.97)
		case bestWorst < 0.97 && worst > bestWorst:
			o.Cheapest, bestWorst = mem, worst
		}
	}
	return o
}

// Score is how a final set of the host's settings does against the
// oracle: the worst direction's share of its best, and the memory of
// the maxima against the oracle's cheapest.
type Score struct {
	Worst, Memory float64
	Rates         map[tune.Direction]float64
}

// Judge scores the host's settings values (a tune.Result's choice
// applied, or the start) with a per-socket congestion control cc ("" =
// the host's).
func (e *Env) Judge(values map[string]string, cc string, o Oracle) Score {
	p := point{rcv: maxOf(values[keyRmem]), snd: maxOf(values[keyWmem]), cc: values[keyCC], parallel: 1}
	if cc != "" {
		p.cc = cc
	}
	p.mtu, _ = atoi(values[keyMTU])
	p.mtu = min(p.mtu, e.pathMTU())
	q, _ := atoi(values[keyTxq])
	p.txq = int64(q)
	s := Score{Worst: math.Inf(1), Rates: e.rates(p)}
	for d, v := range s.Rates {
		if o.Best[d] > 0 {
			s.Worst = min(s.Worst, v/o.Best[d])
		}
	}
	if o.Cheapest > 0 {
		s.Memory = float64(p.rcv+p.snd) / float64(o.Cheapest)
	}
	return s
}

// Final is the host's settings after a tune run that applied nothing:
// its start, with the choice's settings where tune kept one, and the
// choice's per-socket congestion control.
func Final(start map[string]string, res *tune.Result) (map[string]string, string) {
	out := map[string]string{}
	for k, v := range start {
		out[k] = v
	}
	if res == nil || !res.Kept {
		return out, ""
	}
	c := res.Choice()
	if c == nil {
		return out, ""
	}
	for _, s := range c.Settings {
		if _, ok := out[s.Key]; ok {
			out[s.Key] = s.Value
		}
	}
	return out, c.Congestion
}
