package tune

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Result is everything tune found.
type Result struct {
	Env        string        `json:"env"`
	Peer       string        `json:"peer"`
	BothEnds   bool          `json:"both_ends"`
	Rate       float64       `json:"rate_bits_per_second"`
	RateSource string        `json:"rate_source"`
	RTT        time.Duration `json:"-"`
	RTTms      float64       `json:"rtt_ms"`
	BDP        int64         `json:"bdp_bytes"`
	Goodput    float64       `json:"link_goodput_bits_per_second,omitempty"`
	// Burst is what the path passes above its rate after an idle moment
	// (a lab policer's bucket, wire bytes): a trial may count it on top.
	Burst         int64  `json:"link_burst_bytes,omitempty"`
	GoodputSource string `json:"goodput_source,omitempty"`
	Options       struct {
		Trials     int         `json:"trials"`
		TimeS      float64     `json:"time_s"`
		OmitS      float64     `json:"omit_s"`
		Directions []Direction `json:"directions"`
	} `json:"options"`
	// Controllable are the directions whose limit this host can move
	// (every direction in the lab; in --peer mode, those not limited by
	// the peer's own buffer). The choice is judged by them.
	Controllable []Direction `json:"controllable"`
	// PeerAdvice are the changes only the peer can make, as commands.
	PeerAdvice []string `json:"peer_advice,omitempty"`
	// Steps is the search's log: what each step moved, and why.
	Steps      []string     `json:"steps,omitempty"`
	Candidates []*Candidate `json:"candidates"`
	ChoiceID   string       `json:"choice"`
	// Levers are what was tried beyond buffers where the congestion
	// window held the flow (congestion control, parallel streams) or a
	// saturated core did (parallel streams, zero-copy sends), with what
	// each did.
	Levers []Lever `json:"levers,omitempty"`
	// Verify holds the choice's verification: its full set from the
	// search (FullSet, always set with it).
	Verify  *Candidate `json:"verify,omitempty"`
	FullSet bool       `json:"verified_by_full_set,omitempty"`
	// NotLowered are the buffer maxima the choice would have lowered
	// and that stay as the host has them (Options.AllowLower).
	NotLowered []NotLowered `json:"not_lowered,omitempty"`
	// AlreadyFull: the baseline filled the path; tune stopped there.
	AlreadyFull bool `json:"already_full,omitempty"`
	// PathMTU is what tune found about the path's MTU, where it may
	// change the interfaces (the lab).
	PathMTU *PathMTU `json:"path_mtu,omitempty"`
	// Kept is true when the search chose a point over the current
	// settings and its full set was worse beyond the noise in no
	// direction a changed setting acts on; Why says how it was judged.
	Kept     bool      `json:"kept"`
	Why      string    `json:"why"`
	Applied  bool      `json:"applied"`
	BackupID string    `json:"backup_id,omitempty"`
	Started  time.Time `json:"started"`
	Elapsed  float64   `json:"elapsed_s"`
	// Relay is, in the lab, what its relay added to the RTT over the
	// run: beyond the lab's accuracy target the figures are the
	// machine's, not the link's.
	Relay *Relay `json:"lab_relay,omitempty"`
}

// Relay is what a lab's relay added to the link's RTT, on average.
type Relay struct {
	BehindUS float64 `json:"behind_us"`
	Faithful bool    `json:"faithful"`
}

// Lever is one thing tried beyond buffers.
type Lever struct {
	Name string `json:"name"`
	// Direction is where it gained most over the choice:
	// Median is its rate there, Gain the ratio.
	Direction Direction `json:"direction,omitempty"`
	Median    float64   `json:"bits_per_second"`
	Gain      float64   `json:"gain"` // × the choice's rate there
	Helped    bool      `json:"helped"`
}

// Baseline is the settings found at the start.
func (r *Result) Baseline() *Candidate { return r.Candidates[0] }

// Choice is the chosen candidate (the baseline when nothing beat it).
func (r *Result) Choice() *Candidate { return r.find(r.ChoiceID) }

func (r *Result) find(id string) *Candidate {
	for _, c := range r.Candidates {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// medianTrial is the trial of direction d whose throughput is the
// median (the lower middle one for an even count).
func medianTrial(c *Candidate, d Direction) (Trial, bool) {
	var ts []Trial
	for _, t := range c.Trials {
		if t.Direction == d {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return Trial{}, false
	}
	slices.SortFunc(ts, func(a, b Trial) int { return cmp.Compare(a.BitsPerSecond, b.BitsPerSecond) })
	return ts[(len(ts)-1)/2], true
}

// CountedBy says whose kernel counted the trials' throughput.
func (r *Result) CountedBy() string {
	seen := map[string]bool{}
	for _, c := range append(slices.Clone(r.Candidates), r.Verify) {
		if c == nil {
			continue
		}
		for _, t := range c.Trials {
			seen[t.CountedBy] = true
		}
	}
	var parts []string
	if seen["sender"] {
		parts = append(parts, "tcpi_delivered × the average segment payload, at the sender")
	}
	if seen["receiver"] {
		parts = append(parts, "tcpi_bytes_received at the receiver where the sender's count was out of reach (a stock iperf3 sending) or ran ahead of it (ACKs held up at the period's start): it jumps when a hole is filled")
	}
	if seen["application"] {
		parts = append(parts, "the application's bytes where TCP_INFO is missing")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// After is the candidate whose trials describe the end state: the
// verification of the choice, or the baseline when nothing changed.
func (r *Result) After() *Candidate {
	if r.Verify != nil {
		return r.Verify
	}
	return r.Baseline()
}

// AfterLabel names the end state for tables.
func (r *Result) AfterLabel() string {
	if r.Verify != nil {
		return r.Choice().Name + ", its full set"
	}
	return r.Baseline().Name
}

// Headline is the articles' line: "before 520 Mbit/s → after 960
// Mbit/s, 1.85×", per direction.
func (r *Result) Headline(d Direction) string {
	b, a := r.Baseline().Summary[d], r.After().Summary[d]
	line := fmt.Sprintf("before %s → after %s, %.2f×", rate(b.Median), rate(a.Median), a.Median/max(b.Median, 1))
	if r.Goodput > 0 {
		line += fmt.Sprintf(" (%.0f%% of the link's goodput, %s)", 100*a.Median/r.Goodput, rate(r.Goodput))
	}
	return line
}

// Limit is the attribution of the median trial before or after, per
// direction.
type Limit struct {
	When      string // "before" or "after"
	Direction Direction
	Verdict   string
}

// Limits lists what limited the transfer before and after.
func (r *Result) Limits() []Limit {
	var out []Limit
	for _, d := range r.Options.Directions {
		for _, x := range []struct {
			when string
			c    *Candidate
		}{{"before", r.Baseline()}, {"after", r.After()}} {
			if t, ok := medianTrial(x.c, d); ok && t.Verdict != "" {
				out = append(out, Limit{x.when, d, t.Verdict})
			}
		}
	}
	return out
}

// NotLowered is a buffer maximum the host already had above what the
// measured path needs: tune kept it.
type NotLowered struct {
	Key     string `json:"key"`
	Current int64  `json:"current_bytes"`
	Chosen  int64  `json:"path_needs_bytes"`
}
