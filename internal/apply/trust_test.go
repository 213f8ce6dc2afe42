package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// plant writes a backup file as an attacker (or a broken disk) might.
func plant(t *testing.T, o Options, name, body string, mode os.FileMode) string {
	t.Helper()
	os.MkdirAll(o.BackupDir, 0o700)
	p := filepath.Join(o.BackupDir, name)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
	return p
}

// Crafted backups are refused and write nothing: what a file says about
// itself ("forced", its id, its namespace) decides nothing, and a file
// or directory others may write, or a link, is not read at all. A bad
// entry is skipped with its reason (rollback of the others goes on),
// and tune's check for interrupted trials fails closed on it.
func TestRollbackTrustsNothing(t *testing.T) {
	const id = "20260101-000000-aaaaaa"
	good := func(extra string) string {
		return fmt.Sprintf(`{"id":%q,"state":"applied","changes":[{"key":"net.ipv4.tcp_rmem","old":"4096 131072 1048576","new":"4096 131072 6291456"}]%s}`, id, extra)
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, o Options)
		want  string
	}{
		{"forced key outside the catalogue", func(t *testing.T, o Options) {
			plant(t, o, id+".json", fmt.Sprintf(`{"id":%q,"state":"applied","forced":true,"changes":[{"key":"net.ipv4.ping_group_range","old":"0 2147483647","new":"1 0"}]}`, id), 0o600)
		}, "--force"},
		{"an id that is not its name", func(t *testing.T, o Options) {
			plant(t, o, id+".json", strings.Replace(good(""), id, "20991231-235959-ffffff", 1), 0o600)
		}, "says it is backup"},
		{"a name that is no id", func(t *testing.T, o Options) {
			plant(t, o, "zzz-newest.json", good(""), 0o600)
		}, "not a backup"},
		{"a subdirectory", func(t *testing.T, o Options) {
			os.MkdirAll(filepath.Join(o.BackupDir, "old"), 0o700)
		}, "not a backup"},
		{"a group-writable backup", func(t *testing.T, o Options) {
			plant(t, o, id+".json", good(""), 0o664)
		}, "writable by others"},
		{"a namespace that is a path", func(t *testing.T, o Options) {
			plant(t, o, id+".json", good(`,"netns":"../../proc/1/ns/net"`), 0o600)
		}, "--netns"},
		{"a file others may write", func(t *testing.T, o Options) {
			plant(t, o, id+".json", good(""), 0o666)
		}, "writable by others"},
		{"a directory others may write", func(t *testing.T, o Options) {
			plant(t, o, id+".json", good(""), 0o600)
			os.Chmod(o.BackupDir, 0o777)
		}, "writable by others"},
		{"a symlinked backup", func(t *testing.T, o Options) {
			real := filepath.Join(t.TempDir(), "real.json")
			os.WriteFile(real, []byte(good("")), 0o600)
			os.MkdirAll(o.BackupDir, 0o700)
			os.Symlink(real, filepath.Join(o.BackupDir, id+".json"))
		}, "symbolic link"},
		{"a persist file elsewhere", func(t *testing.T, o Options) {
			plant(t, o, id+".json", good(`,"persist_file":"/etc/cron.d/x","persist_old":"* * * * * root sh"`), 0o600)
		}, "apply only writes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := fixture(t)
			before := values(t, o)
			c.setup(t, o)
			_, err := Rollback("", o)
			if err == nil {
				t.Fatal("rolled back")
			}
			msg := err.Error()
			if _, err := Rollback(id, o); err != nil {
				msg += "; " + err.Error()
			}
			l, err := ListAll(o)
			if err != nil {
				msg += "; " + err.Error()
			}
			for _, s := range l.Skipped {
				msg += "; " + s.String()
			}
			if !strings.Contains(msg, c.want) {
				t.Fatalf("%s, want %q", msg, c.want)
			}
			if len(l.Skipped) > 0 {
				if _, err := Interrupted(o); err == nil || !strings.Contains(err.Error(), l.Skipped[0].Path) {
					t.Errorf("the interrupted-trial check passed over %v: %v", l.Skipped, err)
				}
			}
			if after := values(t, o); !same(before, after) {
				t.Fatalf("wrote %v (was %v)", after, before)
			}
		})
	}
}

// Keys outside the catalogue roll back only with the command line's
// --force, never the file's.
func TestRollbackForceFromTheCommandLine(t *testing.T) {
	o := fixture(t)
	const id = "20260101-000000-bbbbbb"
	plant(t, o, id+".json", fmt.Sprintf(`{"id":%q,"state":"applied","forced":true,"changes":[{"key":"net.ipv4.tcp_rmem","old":"4096 131072 1048576","new":"4096 131072 6291456"}]}`, id), 0o600)
	o.Force = true
	if _, err := Rollback(id, o); err != nil {
		t.Fatal(err)
	}
	if v, _ := o.FS.Get("net.ipv4.tcp_rmem"); norm(v) != "4096 131072 1048576" {
		t.Fatalf("tcp_rmem %q", v)
	}
}

// A value someone changed since apply wrote it is named and left alone
// (--ignore-drift restores it); a backup already rolled back is not
// restored again (--again does).
func TestRollbackDriftAndTwice(t *testing.T) {
	o := fixture(t)
	b, _, err := Apply([]KV{{Key: "net.ipv4.tcp_wmem", Value: "4096 16384 8388608"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	o.FS.Set("net.ipv4.tcp_wmem", "4096 16384 6291456") // a config manager, meanwhile
	_, err = Rollback(b.ID, o)
	if err == nil || !strings.Contains(err.Error(), "old 4096 16384 4194304 → live 4096 16384 6291456 (apply wrote 4096 16384 8388608) → restore 4096 16384 4194304") {
		t.Fatalf("drift: %v", err)
	}
	if v, _ := o.FS.Get("net.ipv4.tcp_wmem"); norm(v) != "4096 16384 6291456" {
		t.Fatalf("the manual change was overwritten: %q", v)
	}
	o.Force = true // keys outside the catalogue: not drift
	if _, err := Rollback(b.ID, o); err == nil {
		t.Fatal("--force restored a drifted value")
	}
	o.Force, o.IgnoreDrift = false, true
	if _, err := Rollback(b.ID, o); err != nil {
		t.Fatal(err)
	}
	if _, err := Rollback(b.ID, o); err == nil || !strings.Contains(err.Error(), "already rolled back") {
		t.Fatalf("second rollback: %v", err)
	}
	o.Again = true
	if _, err := Rollback(b.ID, o); err != nil {
		t.Fatalf("--again: %v", err)
	}
}

// Two backups in the same second are ordered by when they were made,
// not by their random suffix: the newest is undone first.
func TestListOrderWithinASecond(t *testing.T) {
	o := fixture(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"20260101-000000-ffffff", "20260101-000000-000000"} {
		plant(t, o, id+".json", fmt.Sprintf(`{"id":%q,"time":%q,"state":"applied","changes":[]}`, id, t0.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano)), 0o600)
	}
	all, err := List(o)
	if err != nil || len(all) != 2 || all[1].ID != "20260101-000000-000000" {
		t.Fatalf("%v %+v", err, all)
	}
}

// The lock: a second taker is refused with the holder's pid.
func TestLock(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("apply changes hosts on Linux only")
	}
	o := fixture(t)
	unlock, err := Lock(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(o); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("held by pid %d", os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	unlock()
	u2, err := Lock(o)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	u2()
	// The lock file does not upset the backups' checks.
	if _, err := List(o); err != nil {
		t.Fatal(err)
	}
}
