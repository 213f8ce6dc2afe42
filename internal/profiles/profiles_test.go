package profiles

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/knobs"
)

func TestESnetClasses(t *testing.T) {
	cases := []struct {
		rate float64
		rtt  time.Duration
		id   string
	}{
		{1e9, 50 * time.Millisecond, ""},
		{10e9, 50 * time.Millisecond, "esnet-10g"},
		{10e9, 100 * time.Millisecond, "esnet-10g"},
		{10e9, 150 * time.Millisecond, "esnet-10g-200ms"},
		{40e9, 40 * time.Millisecond, "esnet-10g-200ms"},
		{40e9, 80 * time.Millisecond, "esnet-10g"},
		{100e9, 10 * time.Millisecond, "esnet-100g"},
	}
	for _, c := range cases {
		p, ok := ESnet(c.rate, c.rtt)
		if c.id == "" {
			if ok {
				t.Errorf("%g × %v: got %s, want none", c.rate, c.rtt, p.ID)
			}
			continue
		}
		if !ok || p.ID != c.id {
			t.Errorf("%g × %v: got %q, want %q", c.rate, c.rtt, p.ID, c.id)
		}
	}
	if p, ok := ESnetSmallest(); !ok || p.ID != "esnet-10g" {
		t.Errorf("smallest class: %q", p.ID)
	}
}

// Every value of every profile passes the knob catalogue's checks, so
// tune never tries a value apply would refuse.
func TestProfilesValid(t *testing.T) {
	all, err := All()
	if err != nil || len(all) < 8 {
		t.Fatalf("profiles: %d, %v", len(all), err)
	}
	seen := map[string]bool{}
	for _, p := range all {
		if seen[p.ID] || p.ID == "" || p.Name == "" || p.Source == "" || len(p.Settings) == 0 {
			t.Errorf("profile %+v: duplicate or incomplete", p)
		}
		seen[p.ID] = true
		for _, s := range p.Settings {
			k, ok := knobs.Lookup("linux", s.Key)
			if !ok {
				t.Errorf("%s: %s is not in the knob catalogue", p.ID, s.Key)
				continue
			}
			var vals []int64
			for _, f := range strings.Fields(s.Value) {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					t.Errorf("%s: %s = %q", p.ID, s.Key, s.Value)
				}
				vals = append(vals, v)
			}
			if err := k.Check(vals); err != nil {
				t.Errorf("%s: %v", p.ID, err)
			}
		}
	}
}
