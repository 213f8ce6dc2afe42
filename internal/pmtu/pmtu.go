// Package pmtu finds the largest packet a path carries toward a host, as
// packetization-layer PMTU discovery does (RFC 4821, RFC 8899): probes
// of chosen sizes with DF set (ICMP echo requests, which any host
// answers), each answered, refused by a router's "fragmentation needed"
// (which names the MTU it can carry), or lost. A size lost Tries times
// while a smaller one is answered is a black hole: the path drops it and
// says nothing, which breaks connections that rely on ICMP. The search
// is the pure logic here (Search, over a Prober); the Linux prober sends
// real packets.
package pmtu

import (
	"context"
	"fmt"
	"time"
)

// Outcome is what became of one probe.
type Outcome int

const (
	Answered Outcome = iota // the echo reply came back
	TooBig                  // a router said "fragmentation needed" (MTU in the result)
	Lost                    // nothing came back within the timeout
)

// Prober sends one probe of size bytes (the whole IP packet) with DF
// set and waits up to timeout. For TooBig, mtu is what the router said.
type Prober interface {
	Probe(ctx context.Context, size int, timeout time.Duration) (o Outcome, mtu int, err error)
}

// Options bound the search.
type Options struct {
	// Base is a size every path carries (RFC 8899's BASE_PLPMTU); a
	// path that does not answer it does not answer echo requests at
	// all, and the search reports Unknown.
	Base int
	// Max is the largest size to try: the interface's MTU.
	Max int
	// Timeout is how long a probe waits (a few RTTs); 0 = the base
	// probe waits up to 2 s, the others 4 × its round trip (at least
	// 50 ms). Tries is how many losses in a row make a size lost
	// (MAX_PROBES), not random loss.
	Timeout time.Duration
	Tries   int
	// Step is the precision of the search between an answered and a
	// lost size, in bytes.
	Step int
}

// Result is what the search found.
type Result struct {
	// Largest is the largest size answered (0 with Unknown).
	Largest int `json:"largest"`
	// ICMP is the smallest MTU a router reported (0 = none came).
	ICMP int `json:"icmp_mtu,omitempty"`
	// Blackhole: a size above Largest was lost Tries times with no ICMP
	// while Largest was answered.
	Blackhole bool `json:"blackhole,omitempty"`
	// Unknown: not even Base was answered (echo filtered, or no path).
	Unknown bool `json:"unknown,omitempty"`
	Probes  int  `json:"probes"`
}

// String says in words what the search found.
func (r Result) String() string {
	switch {
	case r.Unknown:
		return "unknown: no echo reply even to the base size (ICMP echo filtered?)"
	case r.Blackhole:
		return fmt.Sprintf("%d bytes; larger packets vanish without an ICMP \"fragmentation needed\" (a PMTU black hole)", r.Largest)
	case r.ICMP > 0:
		return fmt.Sprintf("%d bytes (a router said so: ICMP \"fragmentation needed\", MTU %d)", r.Largest, r.ICMP)
	}
	return fmt.Sprintf("at least %d bytes (the largest probe tried)", r.Largest)
}

// plateaus are common MTUs (RFC 1191's table and jumbo frames).
var plateaus = []int{1500, 9000, 1492, 4352, 2002, 8166, 1280}

// Search finds the largest size in [o.Base, o.Max] that p's path
// carries: o.Max first (the common case costs one round trip), a
// router's MTU next when one answers, and otherwise a binary search
// between the largest answered and the smallest lost size, to o.Step.
func Search(ctx context.Context, p Prober, o Options) (Result, error) {
	if o.Tries < 1 {
		o.Tries = 1
	}
	if o.Step < 1 {
		o.Step = 1
	}
	var r Result
	// try probes size up to o.Tries times: answered or too big at once,
	// lost only if every try is.
	try := func(size int) (Outcome, error) {
		for i := 0; i < o.Tries; i++ {
			r.Probes++
			out, mtu, err := p.Probe(ctx, size, o.Timeout)
			if err != nil {
				return Lost, err
			}
			if out == TooBig && mtu > 0 && (r.ICMP == 0 || mtu < r.ICMP) {
				r.ICMP = mtu
			}
			if out != Lost {
				return out, nil
			}
		}
		return Lost, nil
	}
	auto := o.Timeout == 0
	if auto {
		o.Timeout = 2 * time.Second
	}
	start := time.Now()
	out, err := try(o.Base)
	if err != nil {
		return r, err
	}
	if out != Answered {
		r.Unknown = true
		return r, nil
	}
	if auto {
		o.Timeout = max(4*time.Since(start), 50*time.Millisecond)
	}
	lo, hi := o.Base, o.Max+1 // lo answered; hi the smallest size known not to pass
	lostAbove := false
	next := o.Max
	for next > lo && next < hi {
		out, err := try(next)
		if err != nil {
			return r, err
		}
		switch out {
		case Answered:
			lo = next
			if next == r.ICMP {
				hi = min(hi, next+1) // the router's word, confirmed
			}
		case TooBig:
			hi = next
			if r.ICMP > lo && r.ICMP < hi {
				next = r.ICMP // try what the router said it carries
				continue
			}
		case Lost:
			hi, lostAbove = next, true
		}
		if hi-lo <= o.Step {
			break
		}
		next = lo + (hi-lo)/2
	}
	// The search stops within Step of the truth; a common MTU in that
	// gap (Ethernet's 1500 most of all) is worth one more probe.
	for _, m := range plateaus {
		if m > lo && m < hi {
			out, err := try(m)
			if err != nil {
				return r, err
			}
			if out == Answered {
				lo = m
			}
			break
		}
	}
	r.Largest = lo
	// A black hole is a size lost without any router saying why.
	r.Blackhole = lostAbove && r.ICMP == 0
	return r, nil
}
