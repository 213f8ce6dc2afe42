package tune

import (
	"time"
)

// Result is everything tune found.
type Result struct {
	Env           string        `json:"env"`
	Peer          string        `json:"peer"`
	BothEnds      bool          `json:"both_ends"`
	Rate          float64       `json:"rate_bits_per_second"`
	RateSource    string        `json:"rate_source"`
	RTT           time.Duration `json:"-"`
	RTTms         float64       `json:"rtt_ms"`
	BDP           int64         `json:"bdp_bytes"`
	Goodput       float64       `json:"link_goodput_bits_per_second,omitempty"`
	GoodputSource string        `json:"goodput_source,omitempty"`
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
	// Levers are what was tried beyond buffers on a lossy path
	// (congestion control, parallel streams), with what each did.
	Levers []Lever `json:"levers,omitempty"`
	// Verify holds the fresh trials of the choice.
	Verify *Candidate `json:"verify,omitempty"`
	// AlreadyFull: the baseline filled the path; tune stopped there.
	AlreadyFull bool `json:"already_full,omitempty"`
	// Kept is true when the choice beat the baseline by more than the
	// noise; Why says how it was judged.
	Kept     bool      `json:"kept"`
	Why      string    `json:"why"`
	Applied  bool      `json:"applied"`
	BackupID string    `json:"backup_id,omitempty"`
	Started  time.Time `json:"started"`
	Elapsed  float64   `json:"elapsed_s"`
}

// Lever is one thing beyond buffers tried on a lossy path.
type Lever struct {
	Name   string  `json:"name"`
	Median float64 `json:"bits_per_second"`
	Gain   float64 `json:"gain"` // × the buffers' best
	Helped bool    `json:"helped"`
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

// controls reports whether d is judged.
func (r *Result) controls(d Direction) bool {
	for _, x := range r.Controllable {
		if x == d {
			return true
		}
	}
	return false
}
