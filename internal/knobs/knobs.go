// Package knobs is the catalogue of socket-buffer knobs per operating
// system — name, unit, defaults, bounds, meaning, namespace scope and how
// to set and persist it — kept as data in catalogue.json.
package knobs

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

//go:embed catalogue.json
var catalogueJSON []byte

// Knob is one tunable.
type Knob struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`  // bytes, pages, bool, enum, int, packets
	Count   int     `json:"count"` // 3 for min/default/max vectors
	Default []int64 `json:"default,omitempty"`
	// DefaultBefore is the default of the kernels before a release
	// ("6.16") where it changed; Default is the newest's.
	DefaultBefore map[string][]int64 `json:"default_before,omitempty"`
	Min           int64              `json:"min"`
	Max           int64              `json:"max"`
	PerNetns      *bool              `json:"per_netns,omitempty"` // Linux only
	Meaning       string             `json:"meaning"`
	Obsolete      bool               `json:"obsolete,omitempty"`
	// Caution maps a value to why setting it is harmful in ways a short
	// throughput test may not show.
	Caution map[string]string `json:"caution,omitempty"`
	// Acts is the traffic it changes (Linux; empty: not classified,
	// taken as both).
	Acts Side `json:"acts,omitempty"`
}

// Side is the traffic of a TCP transfer whose buffers autotune that a
// setting changes on the host it is set on: what the host sends, what it
// receives, both (negotiated options, the MTU, global memory), or none
// (a cap on explicit SO_SNDBUF/SO_RCVBUF requests, the initial buffers of
// sockets other than TCP's).
type Side string

const (
	SideSend    Side = "send"
	SideReceive Side = "receive"
	SideBoth    Side = "both"
	SideNone    Side = "none"
)

// Numeric reports whether the knob takes numbers.
func (k Knob) Numeric() bool { return k.Unit != "enum" }

// OS is one system's knobs and how they are set and persisted.
type OS struct {
	Persist string `json:"persist"`
	Set     string `json:"set"`
	Knobs   []Knob `json:"knobs"`
}

// Systems tcptune knows.
var Systems = []string{"linux", "freebsd", "solaris10", "solaris11", "macos", "windows"}

var load = sync.OnceValues(func() (map[string]OS, error) {
	var m map[string]OS
	if err := json.Unmarshal(catalogueJSON, &m); err != nil {
		return nil, fmt.Errorf("knob catalogue: %w", err)
	}
	return m, nil
})

// Catalogue returns the knobs of one OS.
func Catalogue(osName string) (OS, error) {
	m, err := load()
	if err != nil {
		return OS{}, err
	}
	o, ok := m[osName]
	if !ok {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		return OS{}, fmt.Errorf("unknown OS %q (known: %v)", osName, names)
	}
	return o, nil
}

// Lookup finds a knob by name.
func Lookup(osName, name string) (Knob, bool) {
	o, err := Catalogue(osName)
	if err != nil {
		return Knob{}, false
	}
	for _, k := range o.Knobs {
		if k.Name == name {
			return k, true
		}
	}
	return Knob{}, false
}

// DefaultOn is the default of kernel release rel ("6.18.4-…", as
// uname -r): of the earliest change after it, else the newest's ("":
// unknown, the newest's, which no stock kernel's value is above).
func (k Knob) DefaultOn(rel string) []int64 {
	v, ok := release(rel)
	out, at := k.Default, [2]int{1 << 30}
	for before, d := range k.DefaultBefore {
		if b, okb := release(before); ok && okb && less(v, b) && less(b, at) {
			out, at = d, b
		}
	}
	return out
}

// release reads a kernel release's major and minor numbers.
func release(s string) ([2]int, bool) {
	var v [2]int
	n, _ := fmt.Sscanf(s, "%d.%d", &v[0], &v[1])
	return v, n == 2
}

func less(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// CheckCount checks only the number of values: the form of a value the
// kernel itself held, which may lie outside the catalogue's bounds.
func (k Knob) CheckCount(vals []int64) error {
	if k.Count > 0 && len(vals) != k.Count {
		return fmt.Errorf("%s takes %d value(s), got %d", k.Name, k.Count, len(vals))
	}
	return nil
}

// Check validates values for a known knob: count, bounds, and for
// min/default/max triples the ordering.
func (k Knob) Check(vals []int64) error {
	if err := k.CheckCount(vals); err != nil {
		return err
	}
	for _, v := range vals {
		if v < k.Min || v > k.Max {
			return fmt.Errorf("%s: %d is out of range (%d .. %d %s)", k.Name, v, k.Min, k.Max, k.Unit)
		}
	}
	if len(vals) == 3 && k.Unit != "pages" && !(vals[0] <= vals[1] && vals[1] <= vals[2]) {
		return fmt.Errorf("%s: want min ≤ default ≤ max, got %d %d %d", k.Name, vals[0], vals[1], vals[2])
	}
	if len(vals) == 3 && k.Unit == "pages" && !(vals[0] <= vals[1] && vals[1] <= vals[2]) {
		return fmt.Errorf("%s: want min ≤ pressure ≤ max (pages), got %d %d %d", k.Name, vals[0], vals[1], vals[2])
	}
	return nil
}
