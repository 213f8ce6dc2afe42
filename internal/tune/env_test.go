package tune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/apply"
	"github.com/tcptune/tcptune/internal/lab"
	"github.com/tcptune/tcptune/internal/sysctl"
)

// fixtureSetup is a Setup whose settings live in a fixture /proc/sys.
func fixtureSetup(t *testing.T, values map[string]string) (*Setup, sysctl.FS) {
	t.Helper()
	root := t.TempDir()
	fs := sysctl.FS{Root: root}
	for k, v := range values {
		p, err := fs.Path(k)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &Setup{Namespaces: []string{""}, Apply: apply.Options{FS: fs, BackupDir: filepath.Join(root, "backups"), SysctlD: filepath.Join(root, "sysctl.d")}}, fs
}

// A candidate equal to the current settings changes nothing and leaves
// no backup: Set and Keep must cope (tune panicked on the nil backup).
func TestSetupSetUnchanged(t *testing.T) {
	e, fs := fixtureSetup(t, map[string]string{keyWmem: "4096 16384 4194304", keyRmem: "4096 131072 6291456"})
	same := []apply.KV{{Key: keyWmem, Value: "4096 16384 4194304"}}
	undo, err := e.Set(same)
	if err != nil {
		t.Fatal(err)
	}
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	id, err := e.Keep(same, false)
	if err != nil || id != "" {
		t.Fatalf("keep of unchanged values: id %q err %v", id, err)
	}
	// A real change is undone.
	undo, err = e.Set([]apply.KV{{Key: keyWmem, Value: "4096 16384 8388608"}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := fs.Get(keyWmem); v != "4096\t16384\t8388608" && v != "4096 16384 8388608" {
		t.Fatalf("not applied: %q", v)
	}
	if err := undo(); err != nil {
		t.Fatal(err)
	}
	if v, _ := fs.Get(keyWmem); norm(v) != "4096 16384 4194304" {
		t.Fatalf("not restored: %q", v)
	}
	if ids, _ := os.ReadDir(e.Apply.BackupDir); len(ids) != 0 {
		t.Errorf("%d backups left after undo", len(ids))
	}
}

// Link keys name this end's interface; each namespace gets its own.
func TestLinkKeysPerNamespace(t *testing.T) {
	e := &Setup{Namespaces: []string{"a", "b"}, Devices: []string{"tlab1a", "tlab1b"}}
	kvs := []apply.KV{{Key: "link.tlab1a.mtu", Value: "9000"}, {Key: keyRmem, Value: "4096 131072 8388608"}}
	b := e.local(1, kvs)
	if b[0].Key != "link.tlab1b.mtu" || b[1] != kvs[1] || kvs[0].Key != "link.tlab1a.mtu" {
		t.Fatalf("for b: %+v (and the caller's %+v)", b, kvs)
	}
	if back := e.global(1, b); back[0].Key != "link.tlab1a.mtu" {
		t.Fatalf("back: %+v", back)
	}
	if a := e.local(0, kvs); a[0].Key != "link.tlab1a.mtu" {
		t.Fatalf("for a: %+v", a)
	}
}

// A trial whose apply failed and whose restore failed too keeps its
// backup (the only record of the old values), named in the error; the
// next tune refuses to start over it; a stray entry in the backup
// directory stops tune too, naming it.
func TestSetupKeepsAPartlyRestoredTrial(t *testing.T) {
	e, fs := fixtureSetup(t, map[string]string{keyWmem: "4096 16384 4194304", keyRmem: "4096 131072 6291456"})
	first, _ := fs.Path(keyWmem)
	e.Apply.BeforeWrite = func(i int, _ apply.Change) error {
		if i == 1 {
			os.Chmod(first, 0o444) // the first key cannot be written back
			if os.Geteuid() == 0 {
				os.Remove(first) // root writes read-only files: take it away
			}
			return errors.New("EIO")
		}
		return nil
	}
	_, err := e.Set([]apply.KV{{Key: keyWmem, Value: "4096 16384 8388608"}, {Key: keyRmem, Value: "4096 131072 16777216"}})
	if err == nil {
		t.Fatal("a failed trial succeeded")
	}
	bs, lerr := apply.List(e.Apply)
	if lerr != nil || len(bs) != 1 || bs[0].State != "partly-restored" || !strings.Contains(err.Error(), bs[0].ID) {
		t.Fatalf("backups %+v (%v) for %v", bs, lerr, err)
	}
	e.Apply.BeforeWrite = nil
	os.MkdirAll(filepath.Join(e.Apply.BackupDir, "stray"), 0o700)
	if err := Interrupted(e.Apply); err == nil || !strings.Contains(err.Error(), "stray") {
		t.Fatalf("a stray entry: %v", err)
	}
}

// tune --lab sets both ends alike and lets one direction's screening
// stand for both: it refuses a link whose directions differ, naming the
// flag, before it builds anything.
func TestOpenLabRefusesUnlikeDirections(t *testing.T) {
	for flag, s := range map[string]lab.Spec{
		"--rate":  {Rate: "200mbit/20mbit", RTT: "20ms", Loss: "0", Queue: "1bdp", MTU: 1500},
		"--loss":  {Rate: "1gbit", Delay: "5ms/15ms", Loss: "0/0.1%", Queue: "1bdp", MTU: 1500},
		"--queue": {Rate: "1gbit", RTT: "20ms", Loss: "0", Queue: "1bdp/64K", MTU: 1500},
	} {
		c, err := lab.ParseConfig("x", s)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := OpenLab(context.Background(), c); err == nil || !strings.HasPrefix(err.Error(), flag+": ") {
			t.Errorf("%s: %v", flag, err)
		}
	}
}
