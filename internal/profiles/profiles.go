// Package profiles holds the reference tuning profiles that tcptune
// compares itself with — TuneD's network-throughput, ESnet fasterdata's
// classes, and the seed articles' values — as data (profiles.json), and
// picks ESnet's class for a path.
package profiles

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

//go:embed profiles.json
var profilesJSON []byte

// Setting is one sysctl of a profile.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Condition selects a profile of a class for a path: every bound given
// must hold.
type Condition struct {
	RateMin   float64 `json:"rate_min"`    // bit/s
	RTTMaxMS  float64 `json:"rtt_max_ms"`  // 0 = no bound
	RTTOverMS float64 `json:"rtt_over_ms"` // RTT must exceed this; 0 = no bound
}

func (c Condition) holds(rate float64, rtt time.Duration) bool {
	ms := rtt.Seconds() * 1000
	return rate >= c.RateMin && (c.RTTMaxMS == 0 || ms <= c.RTTMaxMS) && (c.RTTOverMS == 0 || ms > c.RTTOverMS)
}

// Profile is one published set of values.
type Profile struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Source   string      `json:"source"`
	Summary  string      `json:"summary,omitempty"`
	Class    string      `json:"class,omitempty"`
	When     []Condition `json:"when,omitempty"`
	Settings []Setting   `json:"settings"`
}

// Matches reports whether any of the profile's conditions holds.
func (p Profile) Matches(rate float64, rtt time.Duration) bool {
	for _, c := range p.When {
		if c.holds(rate, rtt) {
			return true
		}
	}
	return false
}

var load = sync.OnceValues(func() ([]Profile, error) {
	var doc struct {
		Profiles []Profile `json:"profiles"`
	}
	if err := json.Unmarshal(profilesJSON, &doc); err != nil {
		return nil, fmt.Errorf("reference profiles: %w", err)
	}
	return doc.Profiles, nil
})

// All returns every profile, in the file's order.
func All() ([]Profile, error) { return load() }

// ESnet returns ESnet fasterdata's class for the path: the most specific
// class whose conditions hold (the file lists 10G, then the 200 ms/40G
// class, then 100G, so the last match wins). ok is false when the path is
// below every class (slower than 10G).
func ESnet(rate float64, rtt time.Duration) (p Profile, ok bool) {
	all, err := load()
	if err != nil {
		return Profile{}, false
	}
	for _, x := range all {
		if x.Class == "esnet" && x.Matches(rate, rtt) {
			p, ok = x, true
		}
	}
	return p, ok
}

// ESnetSmallest is ESnet's class for 10G hosts, the smallest it publishes
// (fasterdata has no class below 10G).
func ESnetSmallest() (Profile, bool) {
	return ESnet(10e9, time.Millisecond)
}
