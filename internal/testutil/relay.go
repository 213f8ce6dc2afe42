package testutil

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/lab"
)

// RelayStats is lab link name's counters as its relay published them
// after at (it publishes every second); it fails the test when none come.
func RelayStats(t testing.TB, name string, at time.Time) lab.Stats {
	t.Helper()
	for i := 0; ; i++ {
		if s, err := lab.ReadStats(name); err == nil && s.Updated.After(at) {
			return s
		}
		if i == 100 {
			t.Fatalf("lab link %s: the relay published no counters", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// UnlessBehind runs measure, and again (three runs at most) while it
// failed with lab link name's relay behind the lab's accuracy target
// (lab.Faithful, at the link's idle RTT rtt): this machine, busy
// elsewhere, was measured then, not the link. The error is the last
// run's, with the relay's lateness where it fell behind.
func UnlessBehind(t testing.TB, name string, rtt time.Duration, measure func() error) error {
	t.Helper()
	for try := 0; ; try++ {
		before := RelayStats(t, name, time.Time{})
		err := measure()
		if err == nil {
			return nil
		}
		behind := RelayStats(t, name, time.Now()).Since(before).Behind()
		if lab.Faithful(behind, rtt) {
			return err
		}
		var b strings.Builder
		lab.WriteBehind(&b, "link "+name, behind, rtt)
		if try == 2 {
			return fmt.Errorf("%w (%s)", err, strings.TrimSpace(b.String()))
		}
		t.Logf("%v; measuring again: %s", err, strings.TrimSpace(b.String()))
	}
}
