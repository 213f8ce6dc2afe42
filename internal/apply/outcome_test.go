package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What apply and rollback print, from their outcomes; the environment's
// state directories.
func TestOutcomeText(t *testing.T) {
	b := &Backup{ID: "20261124-1", PersistFile: "/etc/sysctl.d/90-tcptune.conf",
		Changes: []Change{{Key: "net.ipv4.tcp_wmem", Old: "4096 16384 4194304", New: "4096 16384 8388608"}}}
	var w strings.Builder
	Applied(b, b.Changes, false).WriteApplied(&w)
	if want := "net.ipv4.tcp_wmem: 4096 16384 4194304 -> 4096 16384 8388608\napplied 1 value(s); backup 20261124-1 (undo: tcptune rollback 20261124-1)\npersisted in /etc/sysctl.d/90-tcptune.conf\n"; w.String() != want {
		t.Errorf("applied:\n%s\nwant:\n%s", w.String(), want)
	}
	w.Reset()
	RolledBack(b).WriteRolledBack(&w)
	if want := "net.ipv4.tcp_wmem: 4096 16384 8388608 -> 4096 16384 4194304\nrolled back 20261124-1\n"; w.String() != want {
		t.Errorf("rolled back:\n%s", w.String())
	}
	for _, tc := range []struct {
		out  Outcome
		want string
	}{{Applied(nil, nil, false), "nothing to change\n"}, {Applied(nil, b.Changes, true), "dry run: nothing written"}} {
		w.Reset()
		tc.out.WriteApplied(&w)
		if !strings.HasSuffix(strings.TrimSpace(w.String()), strings.TrimSpace(tc.want)) {
			t.Errorf("%+v: %q", tc.out, w.String())
		}
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	env := map[string]string{"TCPTUNE_STATE_DIR": dir + "/st", "TCPTUNE_SYSCTL_D": dir + "/sd"}
	if o, err := (Options{NetNS: "x"}).FromEnv(func(k string) string { return env[k] }); err != nil || o.BackupDir != dir+"/st/backups" || o.SysctlD != dir+"/sd" || o.NetNS != "x" {
		t.Errorf("from the environment: %+v %v", o, err)
	}
	if o, err := (Options{}).FromEnv(func(string) string { return "" }); err != nil || o.BackupDir != "" || o.SysctlD != "" {
		t.Errorf("no environment: %+v", o)
	}
	// Root's writes are not sent where others could prepare the ground.
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	os.Symlink(dir, filepath.Join(dir, "link"))
	for _, bad := range []string{"relative/dir", open + "/sysctl.d", dir + "/link"} {
		if _, err := (Options{}).FromEnv(func(k string) string {
			if k == "TCPTUNE_SYSCTL_D" {
				return bad
			}
			return ""
		}); err == nil || !strings.Contains(err.Error(), "TCPTUNE_SYSCTL_D="+bad) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
