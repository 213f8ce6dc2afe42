//go:build linux

package apply_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/linkpersist"
	"github.com/tcptune/tcptune/internal/linkset"
	"github.com/tcptune/tcptune/internal/testutil"
)

func TestMain(m *testing.M) {
	// As a helper process (see TestFaultInjection): apply in namespace
	// NS, pausing before the second write, until killed.
	if ns := os.Getenv("TCPTUNE_APPLYTEST_PAUSED_APPLY"); ns != "" {
		o := apply.Options{NetNS: ns, BackupDir: os.Getenv("TCPTUNE_APPLYTEST_BACKUPS"), BeforeWrite: func(i int, _ apply.Change) error {
			if i == 1 {
				time.Sleep(time.Minute)
			}
			return nil
		}}
		apply.Apply(faultKVs, o)
		os.Exit(0)
	}
	// As a helper process (see TestLinkFileAsUdevDecides): print, for
	// each interface named, the .link file tcptune's model says udev
	// applies to it, as "IF FILE" lines.
	if ifs := os.Getenv("TCPTUNE_APPLYTEST_APPLIES"); ifs != "" {
		for _, name := range strings.Fields(ifs) {
			d, err := linkset.Store{}.Device(name)
			if err != nil {
				fmt.Println(name, "error:", err)
				continue
			}
			f, err := linkpersist.Applies("/", d, ".link")
			if err != nil {
				f = "error: " + err.Error()
			}
			fmt.Println(name, f)
		}
		os.Exit(0)
	}
	testutil.MainHostUnchanged(m)
}

var faultKVs = []apply.KV{{Key: "net.ipv4.tcp_rmem", Value: "4096 131072 16777216"},
	{Key: "net.ipv4.tcp_wmem", Value: "4096 16384 16777216"}, {Key: "net.ipv4.tcp_mtu_probing", Value: "1"}}

type env struct {
	t   *testing.T
	bin string
	ns  string
	dir string
}

// setup makes a throwaway namespace and a private state directory.
func setup(t *testing.T) *env {
	t.Helper()
	testutil.NeedRoot(t)
	e := &env{t: t, bin: testutil.Binary(t), ns: fmt.Sprintf("tcptune-apply-%d", rand.IntN(1e6)), dir: t.TempDir()}
	if out, err := exec.Command("ip", "netns", "add", e.ns).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("ip", "netns", "del", e.ns).Run() })
	return e
}

func (e *env) cmd(args ...string) *exec.Cmd {
	c := exec.Command(e.bin, args...)
	c.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+e.dir, "TCPTUNE_SYSCTL_D="+filepath.Join(e.dir, "sysctl.d"))
	return c
}

func (e *env) run(extraEnv []string, args ...string) (string, error) {
	c := e.cmd(args...)
	c.Env = append(c.Env, extraEnv...)
	out, err := c.CombinedOutput()
	return string(out), err
}

// get reads a sysctl inside the namespace.
func (e *env) get(key string) string {
	e.t.Helper()
	out, err := exec.Command("ip", "netns", "exec", e.ns, "cat", "/proc/sys/"+strings.ReplaceAll(key, ".", "/")).Output()
	if err != nil {
		e.t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

func TestSysctlAcceptsAdvice(t *testing.T) {
	e := setup(t)
	for _, format := range []string{"sysctl"} {
		out, err := e.run(nil, "advise", "--rate", "1gbit", "--rtt", "50ms", "--format", format, "--memory", "16G")
		if err != nil {
			t.Fatal(out)
		}
		file := filepath.Join(e.dir, "p.conf")
		os.WriteFile(file, []byte(out), 0o644)
		if res, err := exec.Command("ip", "netns", "exec", e.ns, "sysctl", "-p", file).CombinedOutput(); err != nil {
			t.Fatalf("sysctl -p rejected the advice: %v\n%s\n%s", err, res, out)
		}
		if got, want := e.get("net.ipv4.tcp_rmem"), advised(t, out, "net.ipv4.tcp_rmem"); got != want {
			t.Fatalf("tcp_rmem after sysctl -p: %s, advised %s", got, want)
		}
	}
}

func TestApplyAndRollback(t *testing.T) {
	e := setup(t)
	origR, origW := e.get("net.ipv4.tcp_rmem"), e.get("net.ipv4.tcp_wmem")
	out, _ := e.run(nil, "advise", "--rate", "1gbit", "--rtt", "50ms", "--format", "sysctl", "--memory", "16G")
	file := filepath.Join(e.dir, "p.conf")
	os.WriteFile(file, []byte(out), 0o644)
	rmem, wmem := advised(t, out, "net.ipv4.tcp_rmem"), advised(t, out, "net.ipv4.tcp_wmem")
	// Dry run writes nothing (tcp_wmem is raised; tcp_rmem's kernel
	// default, 32 MiB since Linux 6.16, is above this path's need).
	if out, err := e.run(nil, "apply", file, "--netns", e.ns, "--dry-run"); err != nil || !strings.Contains(out, "-> "+wmem) {
		t.Fatalf("dry run: %v %s", err, out)
	}
	if e.get("net.ipv4.tcp_rmem") != origR {
		t.Fatal("dry run wrote")
	}
	out, err := e.run(nil, "apply", file, "--netns", e.ns, "--persist")
	if err != nil {
		t.Fatalf("apply: %v %s", err, out)
	}
	if e.get("net.ipv4.tcp_rmem") != rmem || e.get("net.ipv4.tcp_wmem") != wmem {
		t.Fatal("values not applied")
	}
	persisted := filepath.Join(e.dir, "sysctl.d", "90-tcptune.conf")
	if b, err := os.ReadFile(persisted); err != nil || !strings.Contains(string(b), "net.ipv4.tcp_rmem = "+rmem) {
		t.Fatalf("persist file: %v %s", err, b)
	}
	if out, _ := e.run(nil, "rollback", "--list"); !strings.Contains(out, "applied") || !strings.Contains(out, e.ns) {
		t.Fatalf("list: %s", out)
	}
	if out, err := e.run(nil, "rollback", "--netns", e.ns); err != nil {
		t.Fatalf("rollback: %v %s", err, out)
	}
	if e.get("net.ipv4.tcp_rmem") != origR || e.get("net.ipv4.tcp_wmem") != origW {
		t.Fatal("rollback did not restore")
	}
	if _, err := os.Stat(persisted); !os.IsNotExist(err) {
		t.Fatal("rollback left the persist file (it did not exist before)")
	}
	if _, err := e.run(nil, "rollback", "--netns", e.ns); err == nil {
		t.Fatal("a second rollback found something to undo")
	}
}

func TestValidationWritesNothing(t *testing.T) {
	e := setup(t)
	orig := e.get("net.ipv4.tcp_rmem")
	for _, set := range [][]string{
		{"--set", "net.ipv4.tcp_rmem=4096 131072 16777216", "--set", "net.ipv4.no_such_knob=1"},
		{"--set", "net.ipv4.tcp_rmem=4096 33554432 16777216"},                                     // default > max
		{"--set", "net.ipv4.tcp_rmem=4096 131072 4294967296"},                                     // above INT_MAX
		{"--set", "net.ipv4.tcp_rmem=4096 131072"},                                                // two values
		{"--set", "net.ipv4.tcp_rmem=4096 lots 16777216"},                                         // not a number
		{"--set", "net.ipv4.tcp_rmem=4096 131072 16777216", "--set", "net.core.rmem_max=8388608"}, // host-only in a namespace
	} {
		out, err := e.run(nil, append([]string{"apply", "--netns", e.ns}, set...)...)
		if err == nil {
			t.Errorf("%v accepted: %s", set, out)
		}
		if e.get("net.ipv4.tcp_rmem") != orig {
			t.Fatalf("%v: a rejected apply wrote tcp_rmem", set)
		}
	}
	out, _ := e.run(nil, "apply", "--netns", e.ns, "--set", "net.core.rmem_max=8388608")
	if !strings.Contains(out, "not writable in this namespace") {
		t.Errorf("host-only key: %s", out)
	}
}

// TestFaultInjection: a write that fails mid-way restores every value
// written; an apply killed between two writes is undone by rollback. The
// faults come through apply's package API (BeforeWrite), in this process
// and in a helper process (this test binary, see TestMain), never from
// the shipped binary's environment.
func TestFaultInjection(t *testing.T) {
	e := setup(t)
	origR, origW, origM := e.get("net.ipv4.tcp_rmem"), e.get("net.ipv4.tcp_wmem"), e.get("net.ipv4.tcp_mtu_probing")
	backups := filepath.Join(e.dir, "backups")
	_, _, err := apply.Apply(faultKVs, apply.Options{NetNS: e.ns, BackupDir: backups, BeforeWrite: func(i int, c apply.Change) error {
		if i == 2 {
			return fmt.Errorf("sysctl %s: injected failure", c.Key)
		}
		return nil
	}})
	if err == nil || !strings.Contains(err.Error(), "restored") {
		t.Fatalf("injected failure: %v", err)
	}
	if e.get("net.ipv4.tcp_rmem") != origR || e.get("net.ipv4.tcp_wmem") != origW || e.get("net.ipv4.tcp_mtu_probing") != origM {
		t.Fatal("values not restored after a failed write")
	}
	// Kill apply between its first and second write.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(self, "-test.run=^$")
	c.Env = append(os.Environ(), "TCPTUNE_APPLYTEST_PAUSED_APPLY="+e.ns, "TCPTUNE_APPLYTEST_BACKUPS="+backups)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for e.get("net.ipv4.tcp_rmem") == origR && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	if e.get("net.ipv4.tcp_rmem") == origR || e.get("net.ipv4.tcp_wmem") != origW {
		t.Fatal("the kill did not land between the two writes")
	}
	if out, err := e.run(nil, "rollback", "--netns", e.ns); err != nil {
		t.Fatalf("rollback after a kill: %v %s", err, out)
	}
	if e.get("net.ipv4.tcp_rmem") != origR || e.get("net.ipv4.tcp_wmem") != origW || e.get("net.ipv4.tcp_mtu_probing") != origM {
		t.Fatal("rollback after a kill did not restore every value")
	}
}

// A backup file is input: a key that leaves /proc/sys after the "/"→"."
// translation, or a persist file other than the one apply writes, is
// refused before anything is written.
func TestRollbackValidatesBackups(t *testing.T) {
	e := setup(t)
	canary := filepath.Join(os.TempDir(), fmt.Sprintf("tcptune-canary-%d", rand.IntN(1e9)))
	os.WriteFile(canary, []byte("original\n"), 0o644)
	defer os.Remove(canary)
	evil := filepath.Join(e.dir, "evil.conf")
	backups := filepath.Join(e.dir, "backups")
	os.MkdirAll(backups, 0o700)
	orig := e.get("net.ipv4.tcp_rmem")
	for id, b := range map[string]string{
		"20260101-000000-aaaaaa": fmt.Sprintf(`{"id":"20260101-000000-aaaaaa","netns":%q,"state":"applied","changes":[{"key":"net.ipv4.tcp_rmem","old":"4096 65536 1048576","new":"x"},{"key":"net.//.//.//.%s","old":"pwned","new":"x"}]}`,
			e.ns, strings.ReplaceAll(strings.TrimPrefix(canary, "/"), ".", "/")),
		"20260101-000000-bbbbbb": fmt.Sprintf(`{"id":"20260101-000000-bbbbbb","netns":%q,"state":"applied","changes":[{"key":"net.ipv4.tcp_rmem","old":"4096 65536 1048576","new":"x"}],"persist_file":%q,"persist_old":"pwned"}`,
			e.ns, evil),
	} {
		os.WriteFile(filepath.Join(backups, id+".json"), []byte(b), 0o600)
		out, err := e.run(nil, "rollback", id)
		if err == nil {
			t.Errorf("rollback of a forged backup %s exited 0: %s", id, out)
		}
		if b, _ := os.ReadFile(canary); string(b) != "original\n" {
			t.Fatalf("rollback %s overwrote %s: %q", id, canary, b)
		}
		if _, err := os.Stat(evil); err == nil {
			t.Fatalf("rollback %s wrote %s", id, evil)
		}
		if got := e.get("net.ipv4.tcp_rmem"); got != orig {
			t.Fatalf("rollback %s wrote tcp_rmem (%s) before refusing", id, got)
		}
	}
}

// Keys outside the knob catalogue are refused unless --force is given;
// with it they are written, backed up and rolled back like any other.
func TestForceForKeysOutsideTheCatalogue(t *testing.T) {
	e := setup(t)
	key := "net.ipv4.tcp_fin_timeout" // per namespace, not in the catalogue
	orig := e.get(key)
	out, err := e.run(nil, "apply", "--set", key+"=37", "--netns", e.ns)
	if err == nil || !strings.Contains(out, "--force") {
		t.Fatalf("a key outside the catalogue was not refused: %v %s", err, out)
	}
	if e.get(key) != orig {
		t.Fatal("refused, yet written")
	}
	if out, err := e.run(nil, "apply", "--set", key+"=37", "--netns", e.ns, "--force"); err != nil || e.get(key) != "37" {
		t.Fatalf("--force: %v %s (now %s)", err, out, e.get(key))
	}
	// Rollback needs --force too: the backup's own word is not taken.
	if out, err := e.run(nil, "rollback", "--netns", e.ns); err == nil || !strings.Contains(out, "--force") || e.get(key) != "37" {
		t.Fatalf("rollback of a forced key without --force: %v %s (now %s)", err, out, e.get(key))
	}
	if out, err := e.run(nil, "rollback", "--netns", e.ns, "--force"); err != nil || e.get(key) != orig {
		t.Fatalf("rollback --force of a forced key: %v %s (now %s, was %s)", err, out, e.get(key), orig)
	}
}

// --persist failing while it writes (a full file system here: a tiny
// tmpfs mounted on the test's own sysctl.d) leaves no temporary file and
// restores the live values it had written.
func TestPersistFailureRestores(t *testing.T) {
	e := setup(t)
	orig := e.get("net.ipv4.tcp_rmem")
	sysctlD := filepath.Join(e.dir, "sysctl.d")
	os.MkdirAll(sysctlD, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4k,mode=0755", "tcptune-test", sysctlD).CombinedOutput(); err != nil {
		testutil.Need(t, false, fmt.Sprintf("mount a tmpfs: %v %s", err, out))
	}
	t.Cleanup(func() { exec.Command("umount", sysctlD).Run() })
	filler := filepath.Join(sysctlD, "filler")
	os.WriteFile(filler, make([]byte, 64<<10), 0o644) // fills it (the write is cut short)
	out, err := e.run(nil, "apply", "--set", "net.ipv4.tcp_rmem=4096 131072 8388608", "--netns", e.ns, "--persist")
	if err == nil || !strings.Contains(out, "restored") {
		t.Fatalf("a failed --persist did not fail and restore: %v %s", err, out)
	}
	if got := e.get("net.ipv4.tcp_rmem"); got != orig {
		t.Fatalf("tcp_rmem %s after the failure, want %s", got, orig)
	}
	ents, _ := os.ReadDir(sysctlD)
	if len(ents) != 1 || ents[0].Name() != "filler" {
		var names []string
		for _, x := range ents {
			names = append(names, x.Name())
		}
		t.Fatalf("left in sysctl.d: %v", names)
	}
}

// The crafted backups, each alone in a fresh state
// directory, in a throwaway namespace: every one is refused, with the
// reason, and nothing is written (the namespace's values, no new file).
func TestRollbackRefusesCraftedBackups(t *testing.T) {
	e := setup(t)
	origRmem, origPing := e.get("net.ipv4.tcp_rmem"), e.get("net.ipv4.ping_group_range")
	backup := func(id, body string) string {
		if body == "" {
			body = fmt.Sprintf(`{"id":%q,"netns":%q,"state":"applied","changes":[{"key":"net.ipv4.tcp_rmem","old":"4096 65536 1048576","new":%q}]}`, id, e.ns, origRmem)
		}
		return body
	}
	const id = "20260101-000000-aaaaaa"
	for _, c := range []struct {
		name    string
		args    []string
		prepare func(dir string) // dir: the backup directory, created 0700
		want    string
	}{
		{"forced key outside the catalogue", []string{id}, func(dir string) {
			os.WriteFile(filepath.Join(dir, id+".json"), []byte(fmt.Sprintf(`{"id":%q,"netns":%q,"state":"applied","forced":true,"changes":[{"key":"net.ipv4.ping_group_range","old":"0 2147483647","new":%q}]}`, id, e.ns, origPing)), 0o600)
		}, "--force"},
		{"an id that is not its name", []string{id}, func(dir string) {
			os.WriteFile(filepath.Join(dir, id+".json"), []byte(backup("../../etc/cron.d/x", "")), 0o600)
		}, "says it is backup"},
		{"a file not named by an ID", nil, func(dir string) {
			os.WriteFile(filepath.Join(dir, "zzzz-last.json"), []byte(backup("zzzz-last", "")), 0o600)
		}, "not a backup"},
		{"a namespace path", []string{id}, func(dir string) {
			os.WriteFile(filepath.Join(dir, id+".json"), []byte(strings.Replace(backup(id, ""), e.ns, "../../../proc/1/ns/net", 1)), 0o600)
		}, "namespace"},
		{"a directory anyone can write", []string{id}, func(dir string) {
			os.WriteFile(filepath.Join(dir, id+".json"), []byte(backup(id, "")), 0o600)
			os.Chmod(dir, 0o777)
		}, "writable by others"},
		{"a backup anyone can write", []string{id}, func(dir string) {
			os.WriteFile(filepath.Join(dir, id+".json"), []byte(backup(id, "")), 0o666)
			os.Chmod(filepath.Join(dir, id+".json"), 0o666)
		}, "writable by others"},
		{"a backup another user owns", []string{id}, func(dir string) {
			p := filepath.Join(dir, id+".json")
			os.WriteFile(p, []byte(backup(id, "")), 0o600)
			os.Chown(p, 65534, 65534)
		}, "belongs to uid 65534"},
		{"a symbolic link", []string{id}, func(dir string) {
			real := filepath.Join(filepath.Dir(dir), "elsewhere.json")
			os.WriteFile(real, []byte(backup(id, "")), 0o600)
			os.Symlink(real, filepath.Join(dir, id+".json"))
		}, "symbolic link"},
		{"newest by name, no ID given", nil, func(dir string) {
			os.WriteFile(filepath.Join(dir, "29991231-235959-ffffff.json"), []byte(strings.Replace(backup("29991231-235959-ffffff", ""), `"state":"applied"`, `"state":"applied","forced":true`, 1)), 0o644)
			os.Chmod(filepath.Join(dir, "29991231-235959-ffffff.json"), 0o646)
		}, "writable by others"},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := t.TempDir()
			dir := filepath.Join(state, "backups")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			c.prepare(dir)
			files := func() []string {
				var out []string
				m, _ := filepath.Glob(filepath.Join(state, "*", "*"))
				for _, f := range m {
					if filepath.Base(f) != ".lock" {
						out = append(out, f)
					}
				}
				return out
			}
			before := files()
			cmd := exec.Command(e.bin, append([]string{"rollback"}, c.args...)...)
			cmd.Env = append(os.Environ(), "TCPTUNE_STATE_DIR="+state, "TCPTUNE_SYSCTL_D="+filepath.Join(state, "sysctl.d"))
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) {
				t.Errorf("rollback %v: err %v, output %q, want a refusal naming %q", c.args, err, out, c.want)
			}
			if got := e.get("net.ipv4.tcp_rmem"); got != origRmem {
				t.Errorf("tcp_rmem written: %q, was %q", got, origRmem)
			}
			if got := e.get("net.ipv4.ping_group_range"); got != origPing {
				t.Errorf("ping_group_range written: %q, was %q", got, origPing)
			}
			if after := files(); len(after) != len(before) {
				t.Errorf("files before %v, after %v", before, after)
			}
		})
	}
}

// apply takes a tune --json result (a canary's, for the rest of a
// group): its verified choice is written and rolls back like any other;
// a result that kept nothing is refused and writes nothing.
func TestApplyTuneResult(t *testing.T) {
	e := setup(t)
	before := e.get("net.ipv4.tcp_wmem")
	result := func(kept bool) string {
		p := filepath.Join(e.dir, fmt.Sprintf("canary-%v.json", kept))
		os.WriteFile(p, []byte(fmt.Sprintf(`{"env":"peer","choice":"search-2","kept":%v,"why":"rolled back: the choice did not beat the baseline",
			"candidates":[{"id":"baseline","name":"current settings"},{"id":"search-2","name":"wmem 1.5 × BDP","settings":[{"key":"net.ipv4.tcp_wmem","value":"4096 16384 9437184","reason":"forward was limited by the send buffer"}]}]}`, kept)), 0o644)
		return p
	}
	if out, err := e.run(nil, "apply", result(false), "--netns", e.ns); err == nil || !strings.Contains(out, "kept nothing") {
		t.Errorf("a result that kept nothing: %v %s", err, out)
	}
	if got := e.get("net.ipv4.tcp_wmem"); got != before {
		t.Fatalf("written anyway: %s", got)
	}
	if out, err := e.run(nil, "apply", result(true), "--netns", e.ns); err != nil {
		t.Fatalf("apply of a kept result: %v %s", err, out)
	}
	if got := e.get("net.ipv4.tcp_wmem"); got != "4096 16384 9437184" {
		t.Fatalf("tcp_wmem after apply: %s", got)
	}
	if out, err := e.run(nil, "rollback", "--netns", e.ns); err != nil {
		t.Fatalf("rollback: %v %s", err, out)
	}
	if got := e.get("net.ipv4.tcp_wmem"); got != before {
		t.Errorf("tcp_wmem after rollback: %s, was %s", got, before)
	}
}

// An interface's MTU and transmit queue, set and rolled back like the
// sysctls (through netlink in the namespace), and left out of the
// sysctl.d file.
func TestLinkSettings(t *testing.T) {
	e := setup(t)
	if out, err := exec.Command("ip", "netns", "exec", e.ns, "ip", "tuntap", "add", "dev", "d0.5", "mode", "tun").CombinedOutput(); err != nil {
		t.Fatalf("ip link add: %v %s", err, out)
	}
	link := func() string {
		out, err := exec.Command("ip", "netns", "exec", e.ns, "ip", "-o", "link", "show", "d0.5").Output()
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(out))
		for i := range f[:len(f)-1] {
			if f[i] == "mtu" {
				return "mtu " + f[i+1] + " " + regexp.MustCompile(`qlen \d+`).FindString(string(out))
			}
		}
		return string(out)
	}
	before := link()
	// Inside --netns nothing persists link settings: refused, nothing set.
	if out, err := e.run(nil, "apply", "--netns", e.ns, "--persist", "--set", "link.d0/5.mtu=9000"); err == nil || !strings.Contains(out, "inside --netns are not kept") || link() != before {
		t.Fatalf("--persist in a namespace: %v, %s\n%s", err, link(), out)
	}
	out, err := e.run(nil, "apply", "--netns", e.ns, "--set", "link.d0/5.mtu=9000", "--set", "link.d0/5.txqueuelen=10000")
	if err != nil || link() != "mtu 9000 qlen 10000" {
		t.Fatalf("apply: %v, %s\n%s", err, link(), out)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "sysctl.d", "90-tcptune.conf")); !os.IsNotExist(err) {
		t.Errorf("link settings went to sysctl.d: %v", err)
	}
	if out, err := e.run(nil, "apply", "--netns", e.ns, "--set", "link.d0/5.mtu=70000"); err == nil || !strings.Contains(out, "out of range") {
		t.Errorf("an MTU of 70000: %v\n%s", err, out)
	}
	if out, err := e.run(nil, "rollback", "--netns", e.ns); err != nil || link() != before {
		t.Fatalf("rollback: %v, %s (want %s)\n%s", err, link(), before, out)
	}
}

// --persist keeps link settings in the network configuration that owns
// the interface: run in the namespace (as on a host, no --netns), with
// the configuration under TCPTUNE_CONFIG_ROOT and the devices read live
// (netlink, sysfs). A veth's address is made up at creation, so no .link
// file may match it: ifupdown's stanza takes both its MTU and its queue;
// a bridge that only a glob .network file configures gets a copy of that
// file narrowed to its name for the MTU, and its queue is refused with
// nothing written; rollback restores both files and both values.
func TestLinkSettingsPersist(t *testing.T) {
	e := setup(t)
	inNS := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("ip", append([]string{"netns", "exec", e.ns}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
		return string(out)
	}
	inNS("ip", "link", "add", "eth7", "type", "veth", "peer", "name", "eth8")
	inNS("ip", "link", "add", "br7", "type", "bridge")
	inNS("ip", "link", "set", "eth8", "master", "br7")
	root := filepath.Join(e.dir, "root")
	ifaces := filepath.Join(root, "etc", "network", "interfaces")
	netdir := filepath.Join(root, "etc", "systemd", "network")
	os.MkdirAll(filepath.Dir(ifaces), 0o755)
	os.MkdirAll(netdir, 0o755)
	stanza := "auto eth7\niface eth7 inet manual\n"
	os.WriteFile(ifaces, []byte(stanza), 0o644)
	glob := "[Match]\nName=br*\n\n[Network]\nDHCP=yes\n"
	os.WriteFile(filepath.Join(netdir, "20-bridges.network"), []byte(glob), 0o644)
	tcptune := func(args ...string) (string, error) {
		c := exec.Command("ip", append([]string{"netns", "exec", e.ns, e.bin}, args...)...)
		c.Env = append(e.cmd().Env, "TCPTUNE_CONFIG_ROOT="+root)
		out, err := c.CombinedOutput()
		return string(out), err
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	files := func() []string {
		var out []string
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	before := files()
	out, err := tcptune("apply", "--persist", "--set", "link.br7.txqueuelen=5000")
	if err == nil || !strings.Contains(out, "br7 is a bridge device") || !strings.Contains(out, "without --persist") {
		t.Fatalf("a bridge's queue: %v\n%s", err, out)
	}
	if got := inNS("ip", "-o", "link", "show", "br7"); !strings.Contains(got, "qlen 1000") || fmt.Sprint(files()) != fmt.Sprint(before) {
		t.Fatalf("after a refusal: %s %v", got, files())
	}
	narrowed := filepath.Join(netdir, "20-bridges-tcptune-br7.network")
	out, err = tcptune("apply", "--persist", "--set", "link.eth7.mtu=9000", "--set", "link.eth7.txqueuelen=5000", "--set", "link.br7.mtu=1400")
	if err != nil || !strings.Contains(out, "persisted in "+ifaces) || !strings.Contains(out, "persisted in "+narrowed) {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if got := inNS("ip", "-o", "link", "show", "eth7"); !strings.Contains(got, "mtu 9000") || !strings.Contains(got, "qlen 5000") {
		t.Fatalf("live: %s", got)
	}
	if got := read(ifaces); got != stanza+"    mtu 9000\n    post-up ip link set dev eth7 txqueuelen 5000\n" {
		t.Errorf("interfaces:\n%s", got)
	}
	if got := read(narrowed); !strings.Contains(got, "[Match]\nName=br7\n") || !strings.Contains(got, "DHCP=yes") || !strings.Contains(got, "MTUBytes=1400") {
		t.Errorf("narrowed .network:\n%s", got)
	}
	if read(filepath.Join(netdir, "20-bridges.network")) != glob {
		t.Error("the glob .network file was changed")
	}
	if m, _ := filepath.Glob(filepath.Join(netdir, "*.link")); len(m) != 0 {
		t.Errorf("a .link file for devices without an address of their own: %v", m)
	}
	if out, err := tcptune("apply", "--persist", "--set", "link.eth7.mtu=9000", "--set", "link.eth7.txqueuelen=5000", "--set", "link.br7.mtu=1400"); err != nil || !strings.Contains(out, "nothing to change") {
		t.Errorf("a second apply: %v\n%s", err, out)
	}
	if out, err := tcptune("rollback"); err != nil {
		t.Fatalf("rollback: %v\n%s", err, out)
	}
	if got := inNS("ip", "-o", "link", "show", "eth7"); !strings.Contains(got, "mtu 1500") || !strings.Contains(got, "qlen 1000") {
		t.Errorf("after rollback: %s", got)
	}
	if read(ifaces) != stanza || fmt.Sprint(files()) != fmt.Sprint(before) {
		t.Errorf("files after rollback: %q %v", read(ifaces), files())
	}
}

// A backup belongs to the namespace it was made in, however tcptune got
// there: one made under "ip netns exec A" is not rolled back in B (it
// names A and how to undo it there), "rollback --list" shows A, and
// "rollback ID --netns A" undoes it in A.
func TestRollbackStaysInItsNamespace(t *testing.T) {
	a, b := setup(t), setup(t)
	b.dir = a.dir // one state directory, as on a host whose namespaces share /var/lib/tcptune
	key, origA, origB := "net.ipv4.tcp_wmem", a.get("net.ipv4.tcp_wmem"), b.get("net.ipv4.tcp_wmem")
	in := func(e *env, args ...string) (string, error) {
		c := exec.Command("ip", append([]string{"netns", "exec", e.ns, e.bin}, args...)...)
		c.Env = e.cmd().Env
		out, err := c.CombinedOutput()
		return string(out), err
	}
	out, err := in(a, "apply", "--set", key+"=4096 16384 8388608")
	if err != nil || a.get(key) != "4096 16384 8388608" {
		t.Fatalf("apply in A: %v\n%s", err, out)
	}
	id := regexp.MustCompile(`backup (\S+) `).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no backup ID in %s", out)
	}
	if out, err := in(b, "rollback", id[1]); err == nil || !strings.Contains(out, "belongs to network namespace "+a.ns) || !strings.Contains(out, "--netns "+a.ns) {
		t.Fatalf("rollback of A's backup in B: %v\n%s", err, out)
	}
	if out, err := in(b, "rollback"); err == nil || !strings.Contains(out, "no backup to roll back") {
		t.Fatalf("B's newest: %v\n%s", err, out)
	}
	if a.get(key) != "4096 16384 8388608" || b.get(key) != origB {
		t.Fatalf("A %s, B %s (was %s)", a.get(key), b.get(key), origB)
	}
	if out, err := a.run(nil, "rollback", "--list"); err != nil || !strings.Contains(out, a.ns) || !strings.Contains(out, "applied") {
		t.Fatalf("--list: %v\n%s", err, out)
	}
	if out, err := a.run(nil, "rollback", id[1], "--netns", a.ns); err != nil || a.get(key) != origA {
		t.Fatalf("rollback --netns A: %v, A %s (was %s)\n%s", err, a.get(key), origA, out)
	}
}

// tcptune's model of which .link file applies to a device is udev's: in
// a throwaway namespace (veth, a bridge with a port, a macvlan) and a
// private mount of /etc/systemd/network holding .link files that match
// by current and permanent address, Kind=, Driver=, Type= and
// OriginalName= (with a negation), the file linkpersist.Applies names
// for each device is the ID_NET_LINK_FILE that
// "udevadm test-builtin net_setup_link" reports. (udevadm applies what
// it finds, so the files set nothing that matters and all of it happens
// inside the namespace.)
func TestLinkFileAsUdevDecides(t *testing.T) {
	e := setup(t)
	_, err := exec.LookPath("udevadm")
	testutil.Need(t, err == nil, "needs udevadm (Debian's udev package; make deps installs it)")
	inNS := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("ip", append([]string{"netns", "exec", e.ns}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
		return string(out)
	}
	inNS("ip", "link", "add", "x0", "type", "veth", "peer", "name", "x1")
	inNS("ip", "link", "add", "br0", "type", "bridge")
	inNS("ip", "link", "set", "x1", "master", "br0")
	inNS("ip", "link", "add", "link", "x0", "name", "mv0", "type", "macvlan")
	mac := strings.TrimSpace(inNS("cat", "/sys/class/net/x0/address"))
	files := filepath.Join(e.dir, "network")
	os.MkdirAll(files, 0o755)
	for name, match := range map[string]string{
		"05-perm.link":   "PermanentMACAddress=" + mac,    // a veth has no permanent address: nothing
		"10-mac.link":    "MACAddress=" + mac,             // x0
		"20-kind.link":   "Kind=bridge",                   // br0
		"30-driver.link": "Driver=veth\nOriginalName=!x0", // x1
		"40-type.link":   "Type=ether\nOriginalName=mv*",  // mv0
	} {
		os.WriteFile(filepath.Join(files, name), []byte("[Match]\n"+match+"\n\n[Link]\nDescription=tcptune test\n"), 0o644)
	}
	test, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ifs := "x0 x1 br0 mv0"
	script := `set -e
mount -t tmpfs tcptune-test /etc/systemd/network
cp "$FILES"/*.link /etc/systemd/network/
TCPTUNE_APPLYTEST_APPLIES="$IFS_" "$TEST" -test.run '^$'
for d in $IFS_; do
	printf '%s ' "$d"; udevadm test-builtin net_setup_link "/sys/class/net/$d" 2>/dev/null | sed -n 's/^ID_NET_LINK_FILE=//p'
done`
	c := exec.Command("ip", "netns", "exec", e.ns, "unshare", "-m", "--propagation", "private", "sh", "-c", script)
	c.Env = append(os.Environ(), "FILES="+files, "IFS_="+ifs, "TEST="+test)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	n := len(strings.Fields(ifs))
	if len(lines) != 2*n {
		t.Fatalf("output:\n%s", out)
	}
	want := map[string]string{"x0": "10-mac.link", "x1": "30-driver.link", "br0": "20-kind.link", "mv0": "40-type.link"}
	for i, model := range lines[:n] {
		udev := lines[n+i]
		if model != udev {
			t.Errorf("tcptune: %q, udev: %q", model, udev)
		}
		f := strings.Fields(udev)
		if len(f) != 2 || filepath.Base(f[1]) != want[f[0]] {
			t.Errorf("udev applies %q, the test meant %s", udev, want[f[0]])
		}
	}
}

// advised is the value advise's sysctl output gives key.
func advised(t *testing.T, out, key string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, " = "); ok && k == key {
			return v
		}
	}
	t.Fatalf("advise gave no %s:\n%s", key, out)
	return ""
}
