package linkem

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Capacity is a link rate that changes over time and repeats each
// Period: a schedule of rates (bytes flow linearly between its points)
// or a Mahimahi packet-delivery trace (Steps: each point is a delivery
// opportunity, and what it could carry and no packet waited for is
// lost, as on a cellular link).
type Capacity struct {
	Period int64      `json:"period_ns"`
	Points []CapPoint `json:"points"` // ascending, the last at Period
	Steps  bool       `json:"steps,omitempty"`
}

// CapPoint is the bytes the link could have carried since the period
// began, by At (ns into it).
type CapPoint struct {
	At    int64   `json:"at_ns"`
	Bytes float64 `json:"bytes"`
}

// MTUBytes is what one delivery opportunity of a trace carries.
const MTUBytes = 1500

// Schedule builds the Capacity of rates (bit/s) held for durations (ns),
// in turn.
func Schedule(rates []float64, durations []int64) (*Capacity, error) {
	if len(rates) == 0 || len(rates) != len(durations) {
		return nil, fmt.Errorf("a schedule needs rate:duration pairs")
	}
	c := &Capacity{}
	var bytes float64
	for i, r := range rates {
		if r < 1e3 || r > 100e9 || durations[i] <= 0 {
			return nil, fmt.Errorf("schedule step %d: rate %g bit/s for %d ns out of range (1 kbit/s .. 100 Gbit/s, for more than 0)", i+1, r, durations[i])
		}
		c.Period += durations[i]
		bytes += r / 8 * float64(durations[i]) / 1e9
		c.Points = append(c.Points, CapPoint{At: c.Period, Bytes: bytes})
	}
	return c, nil
}

// ReadTrace reads a Mahimahi trace: one line per delivery opportunity,
// its time in milliseconds; the trace repeats from its last time.
func ReadTrace(r io.Reader) (*Capacity, error) {
	sc := bufio.NewScanner(r)
	c := &Capacity{Steps: true}
	last, n := int64(-1), 0
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil || ms < 0 || ms < last || ms > 24*3600*1000 {
			return nil, fmt.Errorf("trace line %d: %q: want milliseconds, not decreasing", line, s)
		}
		n++
		at := ms * 1e6
		if k := len(c.Points); k > 0 && c.Points[k-1].At == at {
			c.Points[k-1].Bytes += MTUBytes
		} else {
			c.Points = append(c.Points, CapPoint{At: at, Bytes: float64(n-1)*MTUBytes + MTUBytes})
		}
		last = ms
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if n == 0 || last <= 0 {
		return nil, fmt.Errorf("trace: no delivery opportunities over a time above 0 ms")
	}
	c.Period = last * 1e6
	return c, nil
}

// Mean is the capacity's average rate, bit/s.
func (c *Capacity) Mean() float64 { return c.total() * 8 / (float64(c.Period) / 1e9) }

func (c *Capacity) total() float64 { return c.Points[len(c.Points)-1].Bytes }

// bytesBy is what the link could have carried from time 0 to t (ns).
func (c *Capacity) bytesBy(t int64) float64 {
	k, r := t/c.Period, t%c.Period
	base := float64(k) * c.total()
	i := sort.Search(len(c.Points), func(i int) bool { return c.Points[i].At > r })
	var prev CapPoint
	if i > 0 {
		prev = c.Points[i-1]
	}
	if c.Steps || i == len(c.Points) {
		return base + prev.Bytes
	}
	next := c.Points[i]
	return base + prev.Bytes + (next.Bytes-prev.Bytes)*float64(r-prev.At)/float64(next.At-prev.At)
}

// timeFor is the first time (ns) by which the link could have carried
// b bytes in all (b > 0).
func (c *Capacity) timeFor(b float64) int64 {
	tot := c.total()
	k := math.Floor(b / tot)
	rem := b - k*tot
	if rem <= 0 {
		k, rem = k-1, tot
	}
	i := sort.Search(len(c.Points), func(i int) bool { return c.Points[i].Bytes >= rem })
	i = min(i, len(c.Points)-1)
	p := c.Points[i]
	at := p.At
	if !c.Steps {
		var prev CapPoint
		if i > 0 {
			prev = c.Points[i-1]
		}
		at = prev.At + int64(math.Ceil((rem-prev.Bytes)/(p.Bytes-prev.Bytes)*float64(p.At-prev.At)))
	}
	return int64(k)*c.Period + at
}

// validate checks the points.
func (c *Capacity) validate() error {
	if c.Period <= 0 || len(c.Points) == 0 || c.Points[len(c.Points)-1].At != c.Period && !c.Steps || c.total() <= 0 {
		return fmt.Errorf("capacity: a period above 0 with points up to it, carrying more than nothing")
	}
	for i := 1; i < len(c.Points); i++ {
		if c.Points[i].At < c.Points[i-1].At || c.Points[i].Bytes < c.Points[i-1].Bytes {
			return fmt.Errorf("capacity: points out of order at %d", i)
		}
	}
	return nil
}
