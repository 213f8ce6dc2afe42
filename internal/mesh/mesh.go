// Package mesh renders the results of a mesh of tests (every ordered pair
// of hosts, as the Ansible playbook mesh.yml runs them) as a matrix, in
// text and in self-contained HTML: one cell per pair with its rate and
// what limited it ("rwnd on host3", "sndbuf on host1", "path full"), so
// that the slow pairs, and why, stand out.
package mesh

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/client"
)

// Pair is one ordered pair's result: From sent to To.
type Pair struct {
	From, To      string
	BitsPerSecond float64 // the median of --repeat runs, or the one run's receiver rate
	Runs          int
	Limit         attrib.Limit
	Verdict       string // the attribution's sentence
	Error         string // the test failed
}

// Why is the cell's short reason, naming the host to change.
func (p Pair) Why() string {
	switch p.Limit {
	case attrib.ReceiverWindow:
		return "rwnd on " + p.To
	case attrib.SendBuffer:
		return "sndbuf on " + p.From
	case attrib.PathFull:
		return "path full"
	case attrib.Network:
		return "network"
	case attrib.CPU:
		return "cpu"
	case attrib.Application:
		return "application"
	}
	return "unknown"
}

// Parse reads one pair from a bench -J document whose --extra-data
// names it: "from=HOST to=HOST".
func Parse(data []byte) (Pair, error) {
	d, err := client.ReadDoc(data)
	if err != nil {
		return Pair{}, err
	}
	var p Pair
	for _, f := range strings.Fields(d.ExtraData) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "from":
			p.From = v
		case "to":
			p.To = v
		}
	}
	if p.From == "" || p.To == "" {
		return Pair{}, fmt.Errorf("extra_data %q does not name the pair (from=HOST to=HOST)", d.ExtraData)
	}
	p.Error, p.Runs, p.BitsPerSecond = d.Error, 1, d.End.SumReceived.BitsPerSecond
	if r := d.Tcptune.Repeat; r != nil {
		p.Runs, p.BitsPerSecond = len(r.Runs), r.Summary.Median
	}
	p.Limit = attrib.Unknown
	if v, ok := d.Forward(); ok {
		p.Limit, p.Verdict = v.Result.Limit, v.Result.Verdict
	}
	return p, nil
}

// Read parses files; a later file for the same pair replaces an earlier.
func Read(files []string) ([]Pair, error) {
	byPair := map[[2]string]Pair{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p, err := Parse(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		byPair[[2]string{p.From, p.To}] = p
	}
	out := make([]Pair, 0, len(byPair))
	for _, p := range byPair {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out, nil
}

// Matrix is the pairs arranged by host.
type Matrix struct {
	Hosts []string
	Cells map[[2]string]Pair // [from, to]
	Best  float64            // the fastest pair's rate
}

// NewMatrix arranges pairs.
func NewMatrix(pairs []Pair) Matrix {
	m := Matrix{Cells: map[[2]string]Pair{}}
	seen := map[string]bool{}
	for _, p := range pairs {
		for _, h := range []string{p.From, p.To} {
			if !seen[h] {
				seen[h] = true
				m.Hosts = append(m.Hosts, h)
			}
		}
		m.Cells[[2]string{p.From, p.To}] = p
		if p.Error == "" {
			m.Best = max(m.Best, p.BitsPerSecond)
		}
	}
	sort.Strings(m.Hosts)
	return m
}

// Slow reports whether a pair moved less than half the fastest pair.
func (m Matrix) Slow(p Pair) bool { return p.Error != "" || p.BitsPerSecond < m.Best/2 }
