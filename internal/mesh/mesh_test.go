package mesh

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchDoc is a bench -J document cut to what Parse reads.
func benchDoc(from, to string, bps float64, limit, verdict string, runs int) string {
	rep := ""
	if runs > 1 {
		rep = fmt.Sprintf(`,"repeat":{"runs":[%s],"summary":{"median":%g}}`, strings.TrimSuffix(strings.Repeat(`{},`, runs), ","), bps)
	}
	return fmt.Sprintf(`{"start":{},"intervals":[],"end":{"sum_received":{"bits_per_second":%g}},"extra_data":"from=%s to=%s",
		"tcptune":{"limits":[{"direction":"client→server","result":{"limit":%q,"verdict":%q}}]%s}}`, bps/2, from, to, limit, verdict, rep)
}

func write(t *testing.T, dir string, docs ...string) []string {
	var files []string
	for i, d := range docs {
		f := filepath.Join(dir, fmt.Sprintf("%d.json", i))
		os.WriteFile(f, []byte(d), 0o644)
		files = append(files, f)
	}
	return files
}

func TestMatrix(t *testing.T) {
	files := write(t, t.TempDir(),
		benchDoc("h1", "h2", 9.4e8, "path-full", "the path is full", 3),
		benchDoc("h2", "h1", 9.3e8, "network", "limited by the network", 3),
		benchDoc("h1", "h3", 2.1e8, "receiver-window", "limited by the receiver's window", 3),
		benchDoc("h3", "h1", 3.0e8, "send-buffer", "limited by the send buffer", 3),
		benchDoc("h2", "h3", 9.0e8, "path-full", "full", 1),
		`{"end":{},"extra_data":"from=h3 to=h2","error":"unable to connect to server"}`,
	)
	pairs, err := Read(files)
	if err != nil || len(pairs) != 6 {
		t.Fatalf("%d pairs, %v", len(pairs), err)
	}
	if p := pairs[0]; p.From != "h1" || p.To != "h2" || p.BitsPerSecond != 9.4e8 || p.Runs != 3 || p.Why() != "path full" {
		t.Fatalf("first pair %+v", p)
	}
	var b strings.Builder
	if err := WriteText(&b, pairs); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"rwnd on h3", "sndbuf on h3", "path full", "failed",
		"Slow pairs", "h1 → h3: 210 Mbit/s, rwnd on h3: limited by the receiver's window", "h3 → h2: 0 bit/s, unknown: unable to connect"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "h2 → h1") {
		t.Errorf("a fast pair listed as slow:\n%s", text)
	}
	b.Reset()
	if err := WriteHTML(&b, pairs); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`<td class="slow" title="h1 → h3: 210 Mbit/s over 3 run(s); limited by the receiver&#39;s window" data-from="h1" data-to="h3">`, `class="self"`, "<script"} {
		if got := strings.Contains(html, want); got != (want != "<script") {
			t.Errorf("HTML contains %q: %v", want, got)
		}
	}
}

func TestParseNeedsThePair(t *testing.T) {
	if _, err := Parse([]byte(`{"end":{},"extra_data":"hello"}`)); err == nil {
		t.Fatal("a document without from=/to= accepted")
	}
	if _, err := Parse([]byte(`not json`)); err == nil {
		t.Fatal("garbage accepted")
	}
}
