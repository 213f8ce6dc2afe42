// Package watch samples TCP sockets (sock_diag) and the host-wide
// counters that reveal buffer trouble, turns two samples into a report
// of per-socket figures and per-second counter deltas, and says in words
// what is wrong: "receive buffer overflowing on 10.0.0.2:5201: 312
// collapses/s; …". It also exports the same figures to Prometheus.
//
// Its flows mode records every TCP flow as it ends (the kernel's
// sock_diag destroy notifications), judges each with the attribution
// bench uses, and sums them per peer prefix or service port with one
// verdict and the setting that acts on it (flows.go, groups.go,
// flowsrun.go).
package watch

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/procnet"
	"github.com/tcptune/tcptune/internal/sockdiag"
)

// Sample is one reading.
type Sample struct {
	Time     time.Time
	Sockets  []sockdiag.Socket
	Counters procnet.Counters
}

// Source takes samples.
type Source interface {
	Sample() (Sample, error)
}

// Live samples a network namespace ("" = this one) of the running
// system, keeping the sockets Filter accepts.
type Live struct {
	NetNS  string
	Filter Filter
}

// Sample reads the sockets and the counters of the namespace.
func (l Live) Sample() (Sample, error) {
	s := Sample{Time: time.Now()}
	socks, err := sockdiag.Dump(l.NetNS)
	if err != nil {
		return s, err
	}
	for _, x := range socks {
		if l.Filter.Match(x) {
			s.Sockets = append(s.Sockets, x)
		}
	}
	err = nsx.Do(l.NetNS, func() error {
		fs := procnet.FS{Root: "/", NetDir: "proc/thread-self/net"}
		c, err := fs.Counters()
		if err != nil {
			return err
		}
		if d, err := fs.SoftnetDrops(); err == nil {
			c[SoftnetDrops] = d
		}
		s.Counters = c
		return nil
	})
	return s, err
}

// Filter selects sockets: every term given must hold.
type Filter struct {
	Port, SPort, DPort int
	Src, Dst           netip.Addr
	State              string
}

// ParseFilter reads "sport=5201 dst=10.0.0.2 state=estab" (terms sport,
// dport, port, src, dst, state; ss's "dport = :5201" spacing and colon
// are accepted too).
func ParseFilter(expr string) (Filter, error) {
	var f Filter
	expr = strings.NewReplacer(" = ", "=", "= ", "=", " =", "=").Replace(strings.TrimSpace(expr))
	for _, term := range strings.Fields(expr) {
		k, v, ok := strings.Cut(term, "=")
		v = strings.TrimPrefix(v, ":")
		if !ok || v == "" {
			return f, fmt.Errorf("--filter: %q: want KEY=VALUE with KEY sport, dport, port, src, dst or state", term)
		}
		var err error
		switch k {
		case "sport", "dport", "port":
			var n int
			n, err = strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				return f, fmt.Errorf("--filter: %s accepts a port 1..65535 (got %q)", k, v)
			}
			switch k {
			case "sport":
				f.SPort = n
			case "dport":
				f.DPort = n
			default:
				f.Port = n
			}
		case "src", "dst":
			var a netip.Addr
			if a, err = netip.ParseAddr(v); err != nil {
				return f, fmt.Errorf("--filter: %s accepts an IP address (got %q)", k, v)
			}
			if k == "src" {
				f.Src = a
			} else {
				f.Dst = a
			}
		case "state":
			f.State = strings.ToUpper(v)
		default:
			return f, fmt.Errorf("--filter: unknown key %q (sport, dport, port, src, dst, state)", k)
		}
	}
	return f, nil
}

// Match reports whether s passes the filter.
func (f Filter) Match(s sockdiag.Socket) bool {
	return (f.Port == 0 || int(s.Local.Port()) == f.Port || int(s.Remote.Port()) == f.Port) &&
		(f.SPort == 0 || int(s.Local.Port()) == f.SPort) &&
		(f.DPort == 0 || int(s.Remote.Port()) == f.DPort) &&
		(!f.Src.IsValid() || s.Local.Addr() == f.Src) &&
		(!f.Dst.IsValid() || s.Remote.Addr() == f.Dst) &&
		(f.State == "" || strings.HasPrefix(s.State, f.State))
}

// SocketRow is one socket in a report.
type SocketRow struct {
	Local         string  `json:"local"`
	Remote        string  `json:"remote"`
	State         string  `json:"state"`
	RecvQ         uint32  `json:"recv_q"`
	SendQ         uint32  `json:"send_q"`
	RmemAlloc     uint32  `json:"rmem_alloc"`
	Rcvbuf        uint32  `json:"rcvbuf"`
	WmemQueued    uint32  `json:"wmem_queued"`
	Sndbuf        uint32  `json:"sndbuf"`
	Drops         uint32  `json:"drops"`
	CwndBytes     uint64  `json:"cwnd_bytes"`
	RTTms         float64 `json:"rtt_ms"`
	DeliveryRate  float64 `json:"delivery_rate_bits_per_second"`
	RwndLimited   float64 `json:"rwnd_limited_share"`
	SndbufLimited float64 `json:"sndbuf_limited_share"`
	// Limit is what held the socket over the interval, as bench judges
	// a test (from its sender's view where it sent, its receiver's where
	// it only received); nil when it moved nothing.
	Limit *attrib.Result `json:"limit,omitempty"`
}

// CounterRow is one counter's change.
type CounterRow struct {
	Name    string  `json:"name"`
	Meaning string  `json:"meaning"`
	Delta   int64   `json:"delta"`
	PerSec  float64 `json:"per_second"`
	trouble string
}

// Report is the difference between two samples.
type Report struct {
	Time     time.Time    `json:"time"`
	Seconds  float64      `json:"interval_s"`
	Sockets  []SocketRow  `json:"sockets"`
	Counters []CounterRow `json:"counters"`
	Verdicts []string     `json:"verdicts"`
}

// DiffOver builds the report of cur against prev, with the verdicts
// reading ev, the samples taken within the interval (nil: cur alone).
func DiffOver(prev, cur Sample, ev Evidence) Report {
	dt := cur.Time.Sub(prev.Time).Seconds()
	if dt <= 0 {
		dt = 1e-9
	}
	r := Report{Time: cur.Time, Seconds: dt, Sockets: []SocketRow{}, Verdicts: []string{}}
	old := map[string]sockdiag.Socket{}
	for _, s := range prev.Sockets {
		old[s.Key()] = s
	}
	for _, s := range cur.Sockets {
		row := newRow(s)
		if p, ok := old[s.Key()]; ok && s.Info != nil && p.Info != nil {
			us := dt * 1e6
			row.RwndLimited = min(float64(sub(s.Info.RwndLimited, p.Info.RwndLimited))/us, 1)
			row.SndbufLimited = min(float64(sub(s.Info.SndbufLimited, p.Info.SndbufLimited))/us, 1)
			if l, ok := judge(p, s, dt, ev[s.Key()]); ok {
				row.Limit = &l
			}
		}
		r.Sockets = append(r.Sockets, row)
	}
	sort.Slice(r.Sockets, func(i, j int) bool {
		return r.Sockets[i].Local+r.Sockets[i].Remote < r.Sockets[j].Local+r.Sockets[j].Remote
	})
	for _, c := range Counters {
		a, okA := prev.Counters[c.Name]
		b, okB := cur.Counters[c.Name]
		if !okA || !okB {
			continue
		}
		d := max(b-a, 0)
		r.Counters = append(r.Counters, CounterRow{Name: c.Name, Meaning: c.Meaning, Delta: d, PerSec: float64(d) / dt, trouble: c.Trouble})
	}
	r.Verdicts = verdicts(r)
	return r
}

// newRow is a socket's figures from one sample (no shares: they need two).
func newRow(s sockdiag.Socket) SocketRow {
	row := SocketRow{Local: s.Local.String(), Remote: s.Remote.String(), State: s.State, RecvQ: s.RecvQ, SendQ: s.SendQ}
	if m := s.Mem; m != nil {
		row.RmemAlloc, row.Rcvbuf, row.WmemQueued, row.Sndbuf, row.Drops = m.RmemAlloc, m.Rcvbuf, m.WmemQueued, m.Sndbuf, m.Drops
	}
	if i := s.Info; i != nil {
		row.CwndBytes, row.RTTms, row.DeliveryRate = i.CwndBytes(), float64(i.RTT)/1000, float64(i.DeliveryRate)*8
	}
	return row
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
