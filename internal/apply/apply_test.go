package apply

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/sysctl"
)

var fixtureValues = map[string]string{
	"net.ipv4.tcp_rmem":        "4096 131072 6291456",
	"net.ipv4.tcp_wmem":        "4096 16384 4194304",
	"net.ipv4.tcp_mtu_probing": "0",
	"net.core.rmem_max":        "212992",
}

// fixture is a /proc/sys tree and private state directories.
func fixture(t *testing.T) Options {
	t.Helper()
	root := t.TempDir()
	fs := sysctl.FS{Root: root}
	for k, v := range fixtureValues {
		p, _ := fs.Path(k)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Options{FS: fs, BackupDir: filepath.Join(root, "backups"), SysctlD: filepath.Join(root, "sysctl.d")}
}

func values(t *testing.T, o Options) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k := range fixtureValues {
		v, err := o.FS.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

func same(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

var request = []KV{
	{Key: "net.ipv4.tcp_rmem", Value: "4096 131072 16777216"},
	{Key: "net.ipv4.tcp_wmem", Value: "4096 16384 16777216"},
	{Key: "net.ipv4.tcp_mtu_probing", Value: "1"},
	{Key: "net.core.rmem_max", Value: "16777216"},
}

func TestApplyWritesAndRollsBack(t *testing.T) {
	o := fixture(t)
	before := values(t, o)
	o.Persist = true
	b, changes, err := Apply(request, o)
	if err != nil || len(changes) != 4 || b.State != "applied" {
		t.Fatalf("apply: %v %v %+v", err, changes, b)
	}
	if v, _ := o.FS.Get("net.ipv4.tcp_rmem"); v != "4096 131072 16777216" {
		t.Fatalf("tcp_rmem %q", v)
	}
	if data, err := os.ReadFile(o.PersistFile()); err != nil || !strings.Contains(string(data), "net.core.rmem_max = 16777216") {
		t.Fatalf("persist file: %v %s", err, data)
	}
	if _, err := Rollback(b.ID, o); err != nil {
		t.Fatal(err)
	}
	if after := values(t, o); !same(before, after) {
		t.Fatalf("rollback: %v, want %v", after, before)
	}
	if _, err := os.Stat(o.PersistFile()); !os.IsNotExist(err) {
		t.Fatal("rollback left the persist file that did not exist before")
	}
}

// Validation comes first: one bad value and nothing is written or backed up.
func TestValidationBeforeAnything(t *testing.T) {
	for name, bad := range map[string]KV{
		"out of range":      {Key: "net.ipv4.tcp_rmem", Value: "4096 131072 1024"},
		"not a number":      {Key: "net.core.rmem_max", Value: "lots"},
		"unknown key":       {Key: "net.ipv4.tcp_nonesuch", Value: "1"},
		"outside /proc/sys": {Key: "net.//.//.tmp", Value: "1"},
		"not catalogued":    {Key: "kernel.panic", Value: "1"},
	} {
		t.Run(name, func(t *testing.T) {
			o := fixture(t)
			before := values(t, o)
			if _, _, err := Apply(append([]KV{request[0]}, bad), o); err == nil {
				t.Fatal("accepted")
			}
			if after := values(t, o); !same(before, after) {
				t.Fatal("written before validation finished")
			}
			if ents, _ := os.ReadDir(o.BackupDir); len(ents) > 0 {
				t.Fatal("backed up a refused request")
			}
		})
	}
}

// The backup is on disk, with the old values, before the first write.
func TestBackupBeforeFirstWrite(t *testing.T) {
	o := fixture(t)
	seen := false
	o.BeforeWrite = func(i int, c Change) error {
		if i != 0 {
			return nil
		}
		ents, _ := os.ReadDir(o.BackupDir)
		if len(ents) != 1 {
			t.Fatalf("%d backup files at the first write", len(ents))
		}
		var b Backup
		data, _ := os.ReadFile(filepath.Join(o.BackupDir, ents[0].Name()))
		if json.Unmarshal(data, &b) != nil || len(b.Changes) != 4 || b.Changes[0].Old != fixtureValues[b.Changes[0].Key] {
			t.Fatalf("backup at the first write: %s", data)
		}
		seen = true
		return nil
	}
	if _, _, err := Apply(request, o); err != nil || !seen {
		t.Fatalf("%v %v", err, seen)
	}
}

// A failure at any write restores every value written before it.
func TestRestoreOnFailureAtEveryStep(t *testing.T) {
	for step := 0; step < len(request); step++ {
		o := fixture(t)
		before := values(t, o)
		o.BeforeWrite = func(i int, c Change) error {
			if i == step {
				return errors.New("injected")
			}
			return nil
		}
		b, _, err := Apply(request, o)
		if err == nil || !strings.Contains(err.Error(), "every value written was restored") || b.State != "restored" {
			t.Fatalf("step %d: %v %+v", step, err, b)
		}
		if after := values(t, o); !same(before, after) {
			t.Fatalf("step %d: %v, want %v", step, after, before)
		}
	}
}

// When a restore itself fails, the keys are named and the backup says so.
func TestRestoreFailureNamesKeys(t *testing.T) {
	o := fixture(t)
	o.BeforeWrite = func(i int, c Change) error {
		if i != 2 {
			return nil
		}
		// Sabotage the first key's file so that restoring it fails.
		p, _ := o.FS.Path(request[0].Key)
		os.Remove(p)
		os.Mkdir(p, 0o755)
		return errors.New("injected")
	}
	b, _, err := Apply(request, o)
	var re *RestoreError
	if err == nil || !errors.As(err, &re) || len(re.Keys) != 1 || re.Keys[0] != request[0].Key {
		t.Fatalf("want a RestoreError naming %s, got %v", request[0].Key, err)
	}
	if strings.Contains(err.Error(), "every value written was restored") || !strings.Contains(err.Error(), "NOT restored: net.ipv4.tcp_rmem") {
		t.Fatalf("message: %v", err)
	}
	if b.State != "partly-restored" {
		t.Fatalf("state %q", b.State)
	}
	if v, _ := o.FS.Get(request[1].Key); v != fixtureValues[request[1].Key] {
		t.Fatalf("%s not restored: %q", request[1].Key, v)
	}
}

func TestWriteList(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	bs := []Backup{
		{ID: "b1", Time: at, State: "applied", Changes: []Change{{Key: "net.ipv4.tcp_rmem"}, {Key: "net.ipv4.tcp_wmem"}}},
		{ID: "b2", Time: at, NetNS: "tcptune-wan-a", State: "rolled-back"},
	}
	var b strings.Builder
	if err := WriteList(&b, bs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "(host)") || !strings.Contains(lines[1], "net.ipv4.tcp_rmem,net.ipv4.tcp_wmem") ||
		!strings.Contains(lines[2], "tcptune-wan-a") || !strings.Contains(lines[1], "2026-11-23T08:00:00Z") {
		t.Fatalf("%q", lines)
	}
}

// Apply is idempotent: a second apply of the same values, with or
// without --persist, changes nothing and leaves no backup, so that
// configuration managers see "not changed".
func TestApplyTwiceChangesNothing(t *testing.T) {
	for _, persist := range []bool{false, true} {
		o := fixture(t)
		o.Persist = persist
		if b, _, err := Apply(request, o); err != nil || b == nil {
			t.Fatalf("first apply: %v %v", b, err)
		}
		b, changes, err := Apply(request, o)
		if err != nil || b != nil || len(changes) != 0 {
			t.Fatalf("persist %v: second apply: backup %v, changes %v, %v", persist, b, changes, err)
		}
		if all, _ := List(o); len(all) != 1 {
			t.Fatalf("persist %v: %d backups after two applies", persist, len(all))
		}
	}
	// Values in place but the persist file missing: only --persist has
	// something to do.
	o := fixture(t)
	Apply(request, o)
	o.Persist = true
	b, changes, err := Apply(request, o)
	if err != nil || b == nil || len(changes) != 0 {
		t.Fatalf("persist of values already set: %v %v %v", b, changes, err)
	}
	if _, err := os.Stat(o.PersistFile()); err != nil {
		t.Fatal(err)
	}
}

func TestOutcomes(t *testing.T) {
	if o := Applied(nil, nil, true); o.Changed || !o.DryRun || o.Changes == nil || o.Backup != "" {
		t.Fatalf("dry run: %+v", o)
	}
	b := &Backup{ID: "b1", PersistFile: "/etc/sysctl.d/90-tcptune.conf", Changes: []Change{{Key: "k", Old: "1", New: "2"}}}
	if o := Applied(b, b.Changes, false); !o.Changed || o.Backup != "b1" || o.PersistFile == "" {
		t.Fatalf("applied: %+v", o)
	}
	if o := RolledBack(b); !o.Changed || len(o.Changes) != 1 || o.Changes[0].Old != "2" || o.Changes[0].New != "1" {
		t.Fatalf("rolled back: %+v", o)
	}
}

// An old value the kernel held outside the catalogue's bounds (a
// tcp_rmem min of 1024, below the catalogue's 4096) is restored: apply
// saved it as it found it, and rollback must not fail on it. Its form is
// still checked: a value that is not numbers is refused, and nothing is
// written.
func TestRollbackRestoresOldValuesOutsideBounds(t *testing.T) {
	o := fixture(t)
	p, _ := o.FS.Path("net.ipv4.tcp_rmem")
	if err := os.WriteFile(p, []byte("1024 87380 6291456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _, err := Apply(request[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Rollback(b.ID, o); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	if v, _ := o.FS.Get("net.ipv4.tcp_rmem"); v != "1024 87380 6291456" {
		t.Fatalf("tcp_rmem after rollback %q", v)
	}
	b, _, err = Apply(request[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(o.BackupDir, b.ID+".json")
	data, _ := os.ReadFile(path)
	data = []byte(strings.Replace(string(data), "1024 87380 6291456", "1024 lots 6291456", 1))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Rollback(b.ID, o); err == nil || !strings.Contains(err.Error(), "not a number") {
		t.Fatalf("rollback of a non-numeric old value: %v", err)
	}
	if v, _ := o.FS.Get("net.ipv4.tcp_rmem"); v != "4096 131072 16777216" {
		t.Fatalf("tcp_rmem after a refused rollback %q", v)
	}
}

// An interface's MTU is applied and rolled back like a sysctl (checked
// against the catalogue's link.*.mtu), with a backup, but a sysctl.d
// file holds only the sysctls of the request.
func TestLinkSettings(t *testing.T) {
	o := fixture(t)
	dev := filepath.Join(o.FS.Root, "sys", "class", "net", "eth0.100")
	os.MkdirAll(dev, 0o755)
	os.WriteFile(filepath.Join(dev, "mtu"), []byte("1500\n"), 0o644)
	os.WriteFile(filepath.Join(dev, "address"), []byte("52:54:00:00:00:02\n"), 0o644)
	os.WriteFile(filepath.Join(dev, "uevent"), []byte("DEVTYPE=vlan\n"), 0o644)
	ifaces := filepath.Join(o.FS.Root, "etc", "network", "interfaces")
	os.MkdirAll(filepath.Dir(ifaces), 0o755)
	os.WriteFile(ifaces, []byte("iface eth0.100 inet manual\n"), 0o644)
	mtu := func() string { b, _ := os.ReadFile(filepath.Join(dev, "mtu")); return strings.TrimSpace(string(b)) }
	if _, _, err := Apply([]KV{{Key: "link.eth0/100.mtu", Value: "100"}}, o); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("an MTU of 100: %v", err)
	}
	if _, _, err := Apply([]KV{{Key: "link.eth0/100.speed", Value: "100"}}, o); err == nil {
		t.Fatal("an attribute apply does not know was accepted")
	}
	o.Persist = true
	b, changes, err := Apply([]KV{{Key: "link.eth0/100.mtu", Value: "9000"}, {Key: "net.ipv4.tcp_mtu_probing", Value: "1"}}, o)
	if err != nil || len(changes) != 2 || mtu() != "9000" {
		t.Fatalf("apply: %v %+v, mtu %s", err, changes, mtu())
	}
	if f, err := os.ReadFile(o.PersistFile()); err != nil || strings.Contains(string(f), "link.") || !strings.Contains(string(f), "net.ipv4.tcp_mtu_probing = 1") {
		t.Fatalf("sysctl.d file: %v\n%s", err, f)
	}
	if _, err := Rollback(b.ID, o); err != nil || mtu() != "1500" {
		t.Fatalf("rollback: %v, mtu %s", err, mtu())
	}
	// Link settings alone write no sysctl.d file.
	os.Remove(o.PersistFile())
	if _, _, err := Apply([]KV{{Key: "link.eth0/100.mtu", Value: "4000"}}, o); err != nil || mtu() != "4000" {
		t.Fatalf("apply alone: %v, mtu %s", err, mtu())
	}
	if _, err := os.Stat(o.PersistFile()); !os.IsNotExist(err) {
		t.Fatalf("a sysctl.d file for link settings alone: %v", err)
	}
}

// --persist keeps link settings in the network configuration that owns
// the interface (here ifupdown's stanza), backs the file up, is
// idempotent, and rollback restores the file as it was; a failure to
// write it restores the live values too, and a backup that names any
// other file is refused.
func TestLinkSettingsPersist(t *testing.T) {
	o := fixture(t)
	root := o.FS.Root
	dev := filepath.Join(root, "sys", "class", "net", "eth0")
	os.MkdirAll(dev, 0o755)
	os.WriteFile(filepath.Join(dev, "mtu"), []byte("1500\n"), 0o644)
	os.WriteFile(filepath.Join(dev, "tx_queue_len"), []byte("1000\n"), 0o644)
	os.WriteFile(filepath.Join(dev, "address"), []byte("52:54:00:00:00:01\n"), 0o644)
	os.WriteFile(filepath.Join(dev, "addr_assign_type"), []byte("0\n"), 0o644)
	ifaces := filepath.Join(root, "etc", "network", "interfaces")
	os.MkdirAll(filepath.Dir(ifaces), 0o755)
	stanza := "auto eth0\niface eth0 inet static\n    address 192.0.2.1/24\n"
	os.WriteFile(ifaces, []byte(stanza), 0o644)
	link := filepath.Join(root, "etc", "systemd", "network", "10-tcptune-eth0.link")
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	mtu := func() string { return strings.TrimSpace(read(filepath.Join(dev, "mtu"))) }
	o.Persist = true
	req := []KV{{Key: "link.eth0.mtu", Value: "9000"}, {Key: "link.eth0.txqueuelen", Value: "10000"}}
	b, _, err := Apply(req, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(ifaces); got != stanza+"    mtu 9000\n" {
		t.Fatalf("interfaces:\n%s", got)
	}
	if got := read(link); !strings.Contains(got, "TransmitQueueLength=10000") || strings.Contains(got, "MTUBytes") {
		t.Fatalf(".link:\n%s", got)
	}
	if out := Applied(b, nil, false); len(out.PersistFiles) != 2 {
		t.Fatalf("outcome %+v", out)
	}
	if b2, _, err := Apply(req, o); err != nil || b2 != nil {
		t.Fatalf("a second apply: %v %v", b2, err)
	}
	if _, err := Rollback(b.ID, o); err != nil {
		t.Fatal(err)
	}
	if read(ifaces) != stanza || read(link) != "" || mtu() != "1500" {
		t.Fatalf("after rollback: %q %q", read(ifaces), read(link))
	}
	// The .link file cannot be written (after the interfaces file was):
	// the interfaces file and the live MTU are restored.
	o.BeforePersist = func(p string) error {
		if p == link {
			return errors.New("disk full")
		}
		return nil
	}
	if _, _, err := Apply(req, o); err == nil || !strings.Contains(err.Error(), "every value written was restored") {
		t.Fatalf("a failed persist: %v", err)
	}
	if read(ifaces) != stanza || mtu() != "1500" || read(link) != "" {
		t.Fatalf("after a failed persist: %q mtu %s", read(ifaces), mtu())
	}
	o.BeforePersist = nil
	// A backup naming another file is refused.
	b, _, err = Apply(req[:1], o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(o.BackupDir, b.ID+".json")
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), filepath.Join("etc", "network", "interfaces"), filepath.Join("etc", "shadow"), 1)), 0o600)
	if _, err := Rollback(b.ID, o); err == nil || !strings.Contains(err.Error(), "not a network configuration file") {
		t.Fatalf("a forged path: %v", err)
	}
	// Inside a namespace nothing is kept.
	o.NetNS = "x"
	if _, err := linkFiles(req, o); err == nil {
		t.Fatal("link settings persisted inside a namespace")
	}
}
