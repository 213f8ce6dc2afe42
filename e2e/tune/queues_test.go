//go:build linux

package tune_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/testutil"
)

// The host's transmit queue in the loop: hosts whose interfaces have a
// transmit ring of 8 packets (lab --txqueuelen 8: the TUN drops what the
// ring cannot hold, as a NIC queue too short for the host's bursts
// does), cubic, 1 Gbit/s × 20 ms. Cubic's bursts overflow the ring, the
// drops read as loss and the flow collapses. The baseline's verdict names
// the transmit queue from the interface's tx_dropped; txqueuelen 1000 is
// a dimension of the search, measured there, and the verified choice
// fills the path: with the raise, or with a control the drops no longer
// hold (BBR paces its bursts: a packet its verification's trial drops
// at the ring, as one in a CI run did, leaves the flow at the path).
//
// Alone: it asserts rates (the path filled, within 3%), which another
// test's relay beside it could cost.
func TestTuneLabTransmitQueue(t *testing.T) {
	heavyAlone(t)
	bin := setup(t)
	out, errOut, err := testutil.Run(t, 5*time.Minute, bin, "tune", "--lab", "--name", "tt-ttxq", "--rate", "1gbit", "--rtt", "20ms",
		"--txqueuelen", "8", "-C", "cubic", "--time", "1", "--trials", "2", "--direction", "forward", "--json", "--compare=none")
	if err != nil {
		t.Fatalf("tune: %v\n%s\n%s", err, out, errOut)
	}
	var s struct {
		summary
		Steps []string `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	steps := strings.Join(s.Steps, "\n")
	base := s.find("baseline")
	if base == nil || len(base.Trials) == 0 {
		t.Fatalf("no baseline: %s", out)
	}
	dropped := false
	for _, tr := range base.Trials {
		dropped = dropped || strings.Contains(tr.Verdict, "the transmit queue of tlab")
	}
	if !dropped {
		t.Fatalf("no baseline trial names the transmit queue (the ring of 8 did not overflow here):\n%s", steps)
	}
	ch := s.find(s.Choice)
	if ch == nil || s.Verify == nil || !s.Kept {
		t.Fatalf("choice %q, kept %v: %s\n%s", s.Choice, s.Kept, s.Why, steps)
	}
	txq := ""
	for _, x := range ch.Settings {
		if strings.HasPrefix(x.Key, "link.") && strings.HasSuffix(x.Key, ".txqueuelen") {
			txq = x.Value
		}
	}
	b, a := base.Summary["forward"].Median, s.Verify.Summary["forward"].Median
	t.Logf("%s: %.1f → %.1f Mbit/s, txqueuelen %q\n%s", s.Choice, b/1e6, a/1e6, txq, steps)
	measured := false
	for _, c := range s.Cands {
		for _, x := range c.Settings {
			measured = measured || strings.HasSuffix(x.Key, ".txqueuelen") && x.Value == "1000" && len(c.Trials) > 0
		}
	}
	if !measured || !strings.Contains(steps, "host queues: txqueuelen of tlab") {
		t.Errorf("the raise to txqueuelen 1000 was not measured")
	}
	if txq != "1000" {
		for _, tr := range s.Verify.Trials {
			if tr.HostDrops != nil && tr.HostDrops.TxDrop > 0 && tr.Limit != "path-full" {
				t.Errorf("the choice keeps the ring of 8 and its drops still hold its verification: %s", tr.Verdict)
			}
		}
	}
	// The ring's drops may spare a short trial, so the baseline's median
	// is not a fixed fraction of the path: the choice fills the path (the
	// attribution's "full") where the baseline did not.
	goodput := 1e9 * 1448 / 1500
	if attrib.Full(b, goodput) {
		t.Fatalf("the baseline filled the path (%.1f Mbit/s): the ring of 8 did not hold it here", b/1e6)
	}
	if !attrib.Full(a, goodput) || a > 1.001*goodput {
		t.Errorf("forward %.1f → %.1f Mbit/s: want the path filled, within the goodput (965.3)", b/1e6, a/1e6)
	}
}
