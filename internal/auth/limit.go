package auth

import (
	"net/netip"
	"sync"
	"time"
)

// Limits bound how fast tokens are decrypted: each check costs the
// server one RSA private-key operation before anything is known of the
// client, so anyone who can connect could otherwise keep its cores busy.
// A token is checked only while the client's address, its /64 (IPv6;
// an IPv4 address is its own) and the server as a whole each have
// budget left; refused checks cost nothing.
type Limits struct {
	PerAddr, PerPrefix, Global float64 // checks per second
	Burst                      float64 // each bucket's depth, in seconds of its rate
}

// DefaultLimits are serve's: 2 checks a second per address, 8 per /64,
// 50 in all (about a tenth of a core for RSA-2048), bursts of 4 × each.
var DefaultLimits = Limits{PerAddr: 2, PerPrefix: 8, Global: 50, Burst: 4}

// maxBuckets bounds the per-address and per-prefix tables; past it, the
// buckets that have refilled (as good as new) are dropped, and if none
// has, the check waits for the global budget alone to say no.
const maxBuckets = 16384

type bucket struct {
	tokens float64
	at     time.Time
}

// take refills b at rate for the time since its last use (to depth) and
// takes one token if there is one.
func (b *bucket) take(now time.Time, rate, depth float64) bool {
	if b.at.IsZero() {
		b.tokens = depth
	} else if d := now.Sub(b.at).Seconds(); d > 0 {
		b.tokens = min(depth, b.tokens+d*rate)
	}
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (b *bucket) full(now time.Time, rate, depth float64) bool {
	return b.tokens+now.Sub(b.at).Seconds()*rate >= depth
}

// limiter applies Limits.
type limiter struct {
	mu     sync.Mutex
	l      Limits
	global bucket
	addr   map[netip.Addr]*bucket
	prefix map[netip.Prefix]*bucket
}

func newLimiter(l Limits) *limiter {
	return &limiter{l: l, addr: map[netip.Addr]*bucket{}, prefix: map[netip.Prefix]*bucket{}}
}

// allow reports whether a check from a may run now. A refusal by a
// narrower bucket takes nothing from the wider ones.
func (lm *limiter) allow(a netip.Addr, now time.Time) bool {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	a = a.Unmap()
	burst := max(lm.l.Burst, 1)
	p := netip.PrefixFrom(a, a.BitLen())
	if a.Is6() {
		p, _ = a.Prefix(64)
	}
	ab, pb := lm.addr[a], lm.prefix[p]
	if ab == nil {
		lm.trim(now)
		ab = &bucket{}
	}
	if pb == nil {
		lm.trim(now)
		pb = &bucket{}
	}
	// Peek with copies: only a check every bucket allows takes a token.
	a2, p2, g2 := *ab, *pb, lm.global
	if !a2.take(now, lm.l.PerAddr, burst*lm.l.PerAddr) || !p2.take(now, lm.l.PerPrefix, burst*lm.l.PerPrefix) || !g2.take(now, lm.l.Global, burst*lm.l.Global) {
		return false
	}
	*ab, *pb, lm.global = a2, p2, g2
	if len(lm.addr) < maxBuckets {
		lm.addr[a] = ab
	}
	if len(lm.prefix) < maxBuckets {
		lm.prefix[p] = pb
	}
	return true
}

// trim drops the buckets that have refilled, when the tables are full.
func (lm *limiter) trim(now time.Time) {
	if len(lm.addr) >= maxBuckets {
		for k, b := range lm.addr {
			if b.full(now, lm.l.PerAddr, max(lm.l.Burst, 1)*lm.l.PerAddr) {
				delete(lm.addr, k)
			}
		}
	}
	if len(lm.prefix) >= maxBuckets {
		for k, b := range lm.prefix {
			if b.full(now, lm.l.PerPrefix, max(lm.l.Burst, 1)*lm.l.PerPrefix) {
				delete(lm.prefix, k)
			}
		}
	}
}
