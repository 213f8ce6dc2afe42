package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/testutil"
)

// The unit runs serve as a transient, unprivileged user on a read-only
// system, and systemd accepts it.
func TestServeUnit(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("systemd", "tcptune-serve.service"))
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	for _, want := range []string{"DynamicUser=yes", "NoNewPrivileges=yes", "ProtectSystem=strict", "CapabilityBoundingSet=\n",
		"EnvironmentFile=-/etc/default/tcptune", "ExecStart=/usr/bin/tcptune serve $TCPTUNE_SERVE_ARGS"} {
		if !strings.Contains(unit, want) {
			t.Errorf("the unit lacks %q", want)
		}
	}
	verifyUnit(t, unit, testutil.Binary(t))
}

// verifyUnit runs systemd-analyze verify and security on a unit whose
// ExecStart names bin instead of /usr/bin/tcptune.
func verifyUnit(t *testing.T, unit, bin string) {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	testutil.Need(t, err == nil, "systemd-analyze is not installed (package systemd)")
	dir := t.TempDir()
	local := strings.ReplaceAll(unit, "/usr/bin/tcptune", bin)
	path := filepath.Join(dir, "tcptune-serve.service")
	os.WriteFile(path, []byte(local), 0o644)
	if out, err := exec.Command(sa, "verify", path).CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err := exec.Command(sa, "security", "--offline=yes", "--threshold=30", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: exposure above 3.0 (threshold 30 of 100): %v\n%s", err, out)
	}
}
