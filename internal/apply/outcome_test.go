package apply

import (
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
	env := map[string]string{"TCPTUNE_STATE_DIR": "/tmp/st", "TCPTUNE_SYSCTL_D": "/tmp/sd"}
	if o := (Options{NetNS: "x"}).FromEnv(func(k string) string { return env[k] }); o.BackupDir != "/tmp/st/backups" || o.SysctlD != "/tmp/sd" || o.NetNS != "x" {
		t.Errorf("from the environment: %+v", o)
	}
	if o := (Options{}).FromEnv(func(string) string { return "" }); o.BackupDir != "" || o.SysctlD != "" {
		t.Errorf("empty environment: %+v", o)
	}
}
