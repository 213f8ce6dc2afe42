package rollout

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/attrib"
)

func runs(xs ...float64) Sample {
	for i := range xs {
		xs[i] *= 1e6
	}
	return Sample{Runs: xs, Limit: attrib.PathFull}
}

func TestJudge(t *testing.T) {
	for _, c := range []struct {
		name                 string
		before, after, again Sample
		floor                float64
		want                 Result
	}{
		{"within the floor", runs(100), runs(96), Sample{}, 0.05, Same},
		{"better", runs(100), runs(120), Sample{}, 0.05, Better},
		{"worse beyond the floor, one run each", runs(100), runs(90), Sample{}, 0.05, Worse},
		// Runs that spread by ±20% make a 24% drop of two runs each noise.
		{"worse by less than the runs' spread", runs(300, 210), runs(200, 187), Sample{}, 0.05, Same},
		{"worse beyond the runs' spread", runs(255, 254), runs(194, 193), Sample{}, 0.05, Worse},
		// Rolled back, the host does as badly: the path, not the change.
		{"the path varied", runs(255, 254), runs(194, 193), runs(196, 190), 0.05, PathVaried},
		{"rolling back restores the rate", runs(255, 254), runs(194, 193), runs(250, 252), 0.05, Worse},
		// Rolled back it does better than after, though below before:
		// more than the noise better is the change's doing.
		{"partly the path, partly the change", runs(255, 254), runs(150, 151), runs(220, 222), 0.05, Worse},
		{"the floor holds without spread", runs(100), runs(85), runs(84), 0.2, Same},
	} {
		var again *Sample
		if len(c.again.Runs) > 0 {
			again = &c.again
		}
		d := Judge(c.before, c.after, again, c.floor)
		if d.Result != c.want {
			t.Errorf("%s: %s, want %s", c.name, d, c.want)
		}
		if d.Noise < c.floor {
			t.Errorf("%s: noise %.3f below the floor %.3f", c.name, d.Noise, c.floor)
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		doc   string
		runs  int
		mean  float64
		limit attrib.Limit
		err   string
	}{
		{`{"end":{"sum_received":{"bits_per_second":9e8}},"tcptune":{"limits":[{"direction":"server→client","result":{"limit":"send-buffer"}},{"direction":"client→server","result":{"limit":"path-full"}}]}}`, 1, 9e8, attrib.PathFull, ""},
		{`{"end":{"sum_received":{"bits_per_second":9e8}},"tcptune":{"repeat":{"runs":[{"bits_per_second":1e8},{"bits_per_second":3e8}]}}}`, 2, 2e8, attrib.Unknown, ""},
		{`{"error":"unable to connect"}`, 0, 0, "", "unable to connect"},
		{`{"end":{}}`, 0, 0, "", "no rate"},
		{`[`, 0, 0, "", "not a bench -J document"},
	} {
		s, err := Parse([]byte(c.doc))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.doc, err, c.err)
			}
			continue
		}
		if err != nil || len(s.Runs) != c.runs || s.Mean() != c.mean || s.Limit != c.limit {
			t.Errorf("%s: %+v %v", c.doc, s, err)
		}
	}
}

func TestJudgeFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, runs ...float64) string {
		var rs []string
		for _, r := range runs {
			rs = append(rs, fmt.Sprintf(`{"bits_per_second":%g}`, r*1e6))
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"end":{},"tcptune":{"repeat":{"runs":[`+strings.Join(rs, ",")+`]}}}`), 0o644)
		return p
	}
	before, after, again := write("b.json", 255, 254), write("a.json", 194, 193), write("c.json", 250, 252)
	if d, err := JudgeFiles(0.05, before, after); err != nil || d.Result != Worse || d.Again != 0 {
		t.Errorf("before, after: %v %v", d, err)
	}
	if d, err := JudgeFiles(0.05, before, after, again); err != nil || d.Result != Worse || d.Again != 251e6 {
		t.Errorf("before, after, again: %v %v", d, err)
	}
	if d, err := JudgeFiles(0.05, before, after, after); err != nil || d.Result != PathVaried {
		t.Errorf("again as low as after: %v %v", d, err)
	}
	if _, err := JudgeFiles(0.05, before, filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a missing file: %v, want an error naming it", err)
	}
}
