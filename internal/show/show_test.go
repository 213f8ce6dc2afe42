package show

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/knobs"
	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/window"
)

func TestReadAndWrite(t *testing.T) {
	cat, err := knobs.Catalogue("linux")
	if err != nil {
		t.Fatal(err)
	}
	m := window.Linux("6.1.0")
	r := Read(sysctl.FS{Root: "testdata"}, cat, m, []time.Duration{50 * time.Millisecond})
	if len(r.Knobs) != 4 {
		t.Fatalf("knobs read from the fixture: %+v", r.Knobs)
	}
	want := m.Limits(33554432, 4194304, 212992, 212992)
	if r.Windows != want || len(r.Caps) != 1 || r.Caps[0] != want.At(50*time.Millisecond) {
		t.Fatalf("windows %+v caps %+v, want %+v", r.Windows, r.Caps, want)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"net.ipv4.tcp_rmem", "4096 131072 33554432", "per namespace", "autotuned:", "50 ms"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}
	js, _ := json.Marshal(r)
	for _, k := range []string{`"knobs"`, `"windows"`, `"caps"`, `"receive_autotuned"`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("JSON lacks %s: %s", k, js)
		}
	}
}
