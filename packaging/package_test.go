package packaging

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
	"github.com/tcptune/tcptune/internal/version"
)

// make package builds a .deb that lintian passes without errors, holds
// the binary, man pages, completions, the unit and its defaults, and
// whose unpacked binary and unit work; and an .rpm.
func TestPackages(t *testing.T) {
	if testing.Short() {
		testutil.Need(t, false, "-short: builds packages")
	}
	for _, tool := range []string{"make", "lintian", "dpkg-deb"} {
		_, err := exec.LookPath(tool)
		testutil.Need(t, err == nil && runtime.GOOS == "linux", tool+" is not installed (make deps)")
	}
	root := testutil.ModuleRoot()
	cmd := exec.Command("make", "--no-print-directory", "package")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make package: %v\n%s", err, out)
	}
	deb := filepath.Join(root, "dist", "tcptune_"+version.Version+"-1_amd64.deb")
	rpm := filepath.Join(root, "dist", "tcptune-"+version.Version+"-1.x86_64.rpm")

	out, _ := exec.Command("lintian", "--tag-display-limit", "0", deb).CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "E: ") {
			t.Errorf("lintian: %s", l)
		}
	}
	list, err := exec.Command("dpkg-deb", "-c", deb).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"./usr/bin/tcptune", "./usr/share/man/man1/tcptune.1.gz", "./usr/share/man/man1/tcptune-bench.1.gz",
		"./usr/share/bash-completion/completions/tcptune", "./usr/share/zsh/vendor-completions/_tcptune",
		"./usr/share/fish/vendor_completions.d/tcptune.fish", "./lib/systemd/system/tcptune-serve.service",
		"./etc/default/tcptune", "./usr/share/doc/tcptune/copyright"} {
		if !strings.Contains(string(list), p+"\n") {
			t.Errorf("the .deb lacks %s", p)
		}
	}
	ctl, _ := exec.Command("sh", "-c", "dpkg-deb --ctrl-tarfile '"+deb+"' | tar -xO ./conffiles").Output()
	if !strings.Contains(string(ctl), "/etc/default/tcptune") {
		t.Errorf("/etc/default/tcptune is not a conffile: %q", ctl)
	}

	dir := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", deb, dir).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "usr/bin/tcptune")
	got, _, err := testutil.Run(t, 10*time.Second, bin, "--version")
	if err != nil || !strings.Contains(got, version.Version) {
		t.Fatalf("the packaged binary: %v %q", err, got)
	}
	unit, err := os.ReadFile(filepath.Join(dir, "lib/systemd/system/tcptune-serve.service"))
	if err != nil {
		t.Fatal(err)
	}
	verifyUnit(t, string(unit), bin)

	b, err := os.ReadFile(rpm)
	if err != nil || len(b) < 4 || string(b[:4]) != "\xed\xab\xee\xdb" {
		t.Fatalf("no RPM at %s: %v", rpm, err)
	}

	// arm64: the same package around an aarch64 binary.
	debArm := filepath.Join(root, "dist", "tcptune_"+version.Version+"-1_arm64.deb")
	if a, err := exec.Command("dpkg-deb", "-f", debArm, "Architecture").Output(); err != nil || strings.TrimSpace(string(a)) != "arm64" {
		t.Fatalf("%s: architecture %q %v", debArm, a, err)
	}
	armDir := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", debArm, armDir).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	f, err := elf.Open(filepath.Join(armDir, "usr/bin/tcptune"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != elf.EM_AARCH64 {
		t.Errorf("the arm64 .deb holds a %v binary", f.Machine)
	}
	if b, err := os.ReadFile(filepath.Join(root, "dist", "tcptune-"+version.Version+"-1.aarch64.rpm")); err != nil || len(b) < 4 || string(b[:4]) != "\xed\xab\xee\xdb" {
		t.Errorf("no aarch64 RPM: %v", err)
	}
}
