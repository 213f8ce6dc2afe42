//go:build linux

package tune_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/testutil"
)

// tune --peer where the peer's own send buffer (1 MiB) holds reverse
// back: the forward gain is kept and applied, reverse is not judged,
// and the peer's needed change is printed as a command.
func TestTunePeerSmallPeerWmem(t *testing.T) {
	heavy(t)
	p := newPeerLab(t, "tt-tsmall", testutil.Binary(t), "serve", "-p", "5201")
	if out, err := exec.Command("ip", "netns", "exec", "tcptune-tt-tsmall-b", "sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 1048576").CombinedOutput(); err != nil {
		t.Fatalf("lower the peer's tcp_wmem: %v\n%s", err, out)
	}
	// This end starts send-buffer limited, whatever the host has.
	if out, err := exec.Command("ip", "netns", "exec", p.ns, "sysctl", "-w", "net.ipv4.tcp_wmem=4096 16384 4194304").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, errOut, err := p.tune("tt-tsmall", nil, "--rate", "1gbit", "--trials", "2", "--time", "1", "--json", "--apply", "--compare=none")
	if err != nil {
		t.Fatalf("tune --peer: %v\n%s\n%s", err, out, errOut)
	}
	var s summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Join(s.Controllable, ",") != "forward" {
		t.Errorf("controllable %v, want forward only", s.Controllable)
	}
	if len(s.PeerAdvice) == 0 || !strings.Contains(s.PeerAdvice[0], "sysctl -w net.ipv4.tcp_wmem=") || !strings.Contains(s.PeerAdvice[0], "10.201.") {
		t.Errorf("peer advice %q", s.PeerAdvice)
	}
	if !s.Kept || !s.Applied {
		t.Fatalf("the forward gain was thrown away: kept %v applied %v: %s\n%s", s.Kept, s.Applied, s.Why, errOut)
	}
	b, a := s.find("baseline").Summary["forward"], s.Verify.Summary["forward"]
	if a.Median < 1.4*b.Median {
		t.Errorf("forward: after %.0f, before %.0f", a.Median, b.Median)
	}
	if got := p.sysctl("net.ipv4.tcp_wmem"); maxField(got) <= 4194304 {
		t.Errorf("tcp_wmem after --apply: %q", got)
	}
}
