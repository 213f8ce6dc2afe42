package tune

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/advise"
	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/profiles"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/units"
)

// Keys whose maxima define a candidate's buffer memory per connection.
const (
	keyRmem = "net.ipv4.tcp_rmem"
	keyWmem = "net.ipv4.tcp_wmem"
	keyCC   = "net.ipv4.tcp_congestion_control"
	// keyRelease is the kernel's release, whose defaults differ.
	keyRelease = "kernel.osrelease"
)

// Setting is one sysctl of a candidate, with the reason it is there.
type Setting struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Reason string `json:"reason,omitempty"`
}

// Origin says where a candidate came from.
type Origin string

const (
	OriginBaseline Origin = "baseline"
	OriginSearch   Origin = "search"    // a step of the diagnosis-led search
	OriginLever    Origin = "lever"     // congestion control or streams, on a lossy path
	OriginProfile  Origin = "reference" // a reference profile, for comparison
	OriginVerify   Origin = "verify"
)

// Candidate is one set of settings under test. The baseline (the
// settings found at the start) is a candidate too.
type Candidate struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Source   string    `json:"source"`
	Origin   Origin    `json:"origin"`
	Settings []Setting `json:"settings"`
	// Congestion is a per-socket congestion control the trials use.
	Congestion string `json:"congestion,omitempty"`
	// Skipped lists the candidate's keys that cannot be applied here,
	// with the reason.
	Skipped  []string `json:"skipped,omitempty"`
	Baseline bool     `json:"baseline,omitempty"`
	// App marks a lever that is an application setting (-P, -Z): it is
	// measured and reported, never the choice.
	App bool `json:"application,omitempty"`
	// Cautions name settings the knob catalogue marks harmful in ways a
	// throughput test may not show (SACK off); such a candidate is
	// measured for comparison but never chosen.
	Cautions []string `json:"cautions,omitempty"`
	// SameAs names an earlier candidate whose applicable settings are
	// identical; such a candidate is not run again.
	SameAs string `json:"same_as,omitempty"`
	// RmemMax, WmemMax, RmemDefault and WmemDefault are the effective
	// values (the candidate's, or the current one where it sets none).
	// Memory is what one busy connection can reach (the maxima); Idle is
	// what every idle socket costs (the defaults); Cost, their sum, is
	// what the choice minimises.
	RmemMax     int64 `json:"rmem_max"`
	WmemMax     int64 `json:"wmem_max"`
	RmemDefault int64 `json:"rmem_default"`
	WmemDefault int64 `json:"wmem_default"`
	Memory      int64 `json:"memory"`
	Idle        int64 `json:"idle_memory"`
	Cost        int64 `json:"cost"`

	Trials  []Trial                     `json:"trials,omitempty"`
	Summary map[Direction]stats.Summary `json:"summary,omitempty"`
	// Score is the worse median over the directions this host controls.
	Score  float64 `json:"score_bits_per_second"`
	Status string  `json:"status"`
}

// KVs are the candidate's settings as apply takes them.
func (c *Candidate) KVs() []apply.KV {
	out := make([]apply.KV, len(c.Settings))
	for i, s := range c.Settings {
		out[i] = apply.KV{Key: s.Key, Value: s.Value}
	}
	return out
}

// Runs reports the number of trials in direction d.
func (c *Candidate) Runs(d Direction) int {
	n := 0
	for _, t := range c.Trials {
		if t.Direction == d {
			n++
		}
	}
	return n
}

// summarize recomputes the per-direction summaries and the score: the
// worse median among the judged directions (all of them when none is
// named), since one setting must serve them all.
func (c *Candidate) summarize(dirs, judged []Direction) {
	c.Summary = map[Direction]stats.Summary{}
	c.Score = 0
	first := true
	for _, d := range dirs {
		var xs []float64
		for _, t := range c.Trials {
			if t.Direction == d {
				xs = append(xs, t.BitsPerSecond)
			}
		}
		if len(xs) == 0 {
			continue
		}
		s := stats.Summarize(xs, 0.95)
		c.Summary[d] = s
		if len(judged) > 0 && !slices.Contains(judged, d) {
			continue
		}
		if first || s.Median < c.Score {
			c.Score, first = s.Median, false
		}
	}
}

// GenInput is what candidates are generated from.
type GenInput struct {
	Rate   float64       // bit/s of the path
	RTT    time.Duration // measured
	Kernel string        // this host's release (kernel.osrelease; "": unknown)
}

// Profiles lists the reference profiles measured for comparison:
// tcptune advise's static rule for the path, the kernel defaults, TuneD
// network-throughput, ESnet fasterdata's class for the rate, and the
// seed articles' values. They are not the search.
func Profiles(in GenInput) ([]*Candidate, error) {
	var out []*Candidate
	a, err := advise.Advise(advise.Input{Rate: in.Rate, RTT: in.RTT, Streams: 1, Connections: 1, Role: "host", OS: "linux", Kernel: in.Kernel})
	if err != nil {
		return nil, err
	}
	adv := &Candidate{ID: "advise", Origin: OriginProfile, Name: "tcptune advise", Source: fmt.Sprintf("tcptune advise for %s × %s (BDP %s)", units.FormatRateShort(in.Rate), units.FormatDuration(in.RTT), units.FormatSize(float64(a.BDP)))}
	for _, s := range a.Settings {
		adv.Settings = append(adv.Settings, Setting{Key: s.Key, Value: s.Value(), Reason: s.Reason})
	}
	out = append(out, adv)

	def := &Candidate{ID: "kernel-defaults", Origin: OriginProfile, Name: "kernel defaults", Source: "the Linux defaults of this host's kernel (knob catalogue)"}
	for _, k := range []string{keyRmem, keyWmem, "net.core.rmem_max", "net.core.wmem_max"} {
		kn, ok := knobs.Lookup("linux", k)
		if !ok || len(kn.Default) == 0 {
			return nil, fmt.Errorf("knob catalogue: no default for %s", k)
		}
		def.Settings = append(def.Settings, Setting{Key: k, Value: joinInts(kn.DefaultOn(in.Kernel)), Reason: "kernel default"})
	}
	out = append(out, def)

	all, err := profiles.All()
	if err != nil {
		return nil, err
	}
	esnet, ok := profiles.ESnet(in.Rate, in.RTT)
	esnetNote := ""
	if !ok {
		esnet, _ = profiles.ESnetSmallest()
		esnetNote = " (fasterdata has no class below 10G: its smallest)"
	}
	for _, p := range all {
		if p.Class == "esnet" && p.ID != esnet.ID {
			continue
		}
		c := &Candidate{ID: p.ID, Origin: OriginProfile, Name: p.Name, Source: p.Source}
		if p.Class == "esnet" {
			c.Source += esnetNote
		}
		for _, s := range p.Settings {
			c.Settings = append(c.Settings, Setting{Key: s.Key, Value: s.Value, Reason: p.Name})
		}
		out = append(out, c)
	}
	return out, nil
}

// profileKeys lists every key the reference profiles touch at any
// rate (the ESnet classes differ only in values), plus the congestion
// control.
func profileKeys() []string {
	seen := map[string]bool{keyRmem: true, keyWmem: true}
	var keys []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, k := range []string{"net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_mtu_probing", keyCC} {
		add(k)
	}
	all, _ := profiles.All()
	for _, p := range all {
		for _, s := range p.Settings {
			add(s.Key)
		}
	}
	return keys
}

// cautionOf is why the knob catalogue cautions against s ("" if it
// does not).
func cautionOf(s Setting) string {
	k, ok := knobs.Lookup("linux", s.Key)
	if !ok {
		return ""
	}
	return k.Caution[norm(s.Value)]
}

// resolve fixes a candidate's memory from its settings over the current
// values, and notes the settings the catalogue cautions against.
func (c *Candidate) resolve(current map[string]string) {
	c.Cautions = nil
	for _, s := range c.Settings {
		if why := cautionOf(s); why != "" {
			c.Cautions = append(c.Cautions, fmt.Sprintf("%s = %s: %s", s.Key, norm(s.Value), why))
		}
	}
	eff := map[string]string{}
	for k, v := range current {
		eff[k] = v
	}
	for _, s := range c.Settings {
		eff[s.Key] = s.Value
	}
	c.RmemMax, c.RmemDefault = maxOf(eff[keyRmem]), defaultOf(eff[keyRmem])
	c.WmemMax, c.WmemDefault = maxOf(eff[keyWmem]), defaultOf(eff[keyWmem])
	c.Memory = c.RmemMax + c.WmemMax
	c.Idle = c.RmemDefault + c.WmemDefault
	c.Cost = c.Memory + c.Idle
}

// defaultOf is the middle field of a min/default/max triple.
func defaultOf(v string) int64 {
	f := strings.Fields(v)
	if len(f) != 3 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n
}

// sameAs reports whether c changes nothing relative to current.
func (c *Candidate) sameAs(current map[string]string) bool {
	for _, s := range c.Settings {
		if norm(current[s.Key]) != norm(s.Value) {
			return false
		}
	}
	return true
}

// signature identifies a candidate's settings, for de-duplication.
func (c *Candidate) signature(current map[string]string) string {
	return c.signatureOf(current, func(string) bool { return true })
}

// signatureOf identifies the candidate's settings whose keys meet in
// ("" where none differs from the current ones).
func (c *Candidate) signatureOf(current map[string]string, in func(key string) bool) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(keysOf(c.Settings))) {
		for _, s := range c.Settings {
			if s.Key == k && in(k) && norm(current[k]) != norm(s.Value) {
				fmt.Fprintf(&b, "%s=%s;", k, norm(s.Value))
			}
		}
	}
	return b.String()
}

func keysOf(ss []Setting) map[string]bool {
	m := map[string]bool{}
	for _, s := range ss {
		m[s.Key] = true
	}
	return m
}

func norm(v string) string { return strings.Join(strings.Fields(v), " ") }

// maxOf is the last field of a min/default/max triple.
func maxOf(v string) int64 {
	f := strings.Fields(v)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
	return n
}

func joinInts(vs []int64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, " ")
}
