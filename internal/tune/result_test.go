package tune

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The result's JSON keeps the fields bench/tune.sh reads (its jq
// paths): a rename would break the bench's table silently. Three runs:
// one that keeps a choice (from a lab whose relay fell behind), one
// whose core saturates (the levers), one already full.
func TestResultFieldsTheBenchReads(t *testing.T) {
	kept := newModel(1e9, 50*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	levers := newModel(1e9, 20*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	levers.cpuCap = 500e6
	full := newModel(100e6, 10*time.Millisecond, "4096 131072 33554432", "4096 16384 4194304")
	for _, c := range []struct {
		env   Env
		paths []string
	}{
		{lagging{kept, 900 * time.Microsecond, false}, []string{
			"controllable", "choice", "kept", "applied", "options.directions", "lab_relay.behind_us", "lab_relay.faithful",
			"candidates[].id", "candidates[].memory", "candidates[].settings[].key", "candidates[].settings[].value",
			"candidates[].summary.forward.median", "candidates[].trials[].direction", "candidates[].trials[].mss",
			"candidates[].trials[].seconds", "candidates[].trials[].delivered_bytes", "candidates[].trials[].bits_per_second",
			"verify.summary.reverse.median", "verify.trials[].direction", "verify.trials[].mss", "verify.trials[].bits_per_second",
		}},
		{levers, []string{"levers[].name", "levers[].helped"}},
		{full, []string{"already_full"}},
	} {
		res, err := Run(context.Background(), c.env, Options{}, quiet{})
		if err != nil {
			t.Fatal(err)
		}
		res.Burst = 1 << 20
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, path := range append(c.paths, "link_burst_bytes") {
			if !hasPath(doc, strings.Split(path, ".")) {
				t.Errorf("no %s in the result's JSON (kept %v: %s)", path, res.Kept, res.Why)
			}
		}
	}
}

// hasPath reports whether v has the path, a key per step; "k[]" steps
// into any element of array k.
func hasPath(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	key, each := strings.CutSuffix(path[0], "[]")
	next, ok := obj[key]
	if !ok {
		return false
	}
	if !each {
		return hasPath(next, path[1:])
	}
	arr, _ := next.([]any)
	for _, e := range arr {
		if hasPath(e, path[1:]) {
			return true
		}
	}
	return false
}
