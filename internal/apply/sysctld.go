package apply

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tcptune/tcptune/internal/confdirs"
	"github.com/tcptune/tcptune/internal/sysctl"
)

// The sysctl.d file --persist writes is merged key by key, as the
// network configuration's files are: an apply sets its keys and leaves
// the others (an earlier apply's) alone, and a rollback puts back its
// own keys only, and only where the file still holds what it wrote.

// PersistKey is one key --persist wrote into the sysctl.d file: the
// value the file held before (nil: none) and the one written.
type PersistKey struct {
	Key string  `json:"key"`
	Old *string `json:"old"`
	New string  `json:"new"`
}

// confLine is one line of a sysctl.d file: a setting (key canonical,
// as sysctl.Canonical) or anything else (comment, blank), kept as is.
type confLine struct {
	key, value string
	text       string
}

func parseConf(text string) []confLine {
	var out []confLine
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || t[0] == '#' || t[0] == ';' {
			out = append(out, confLine{text: l})
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			out = append(out, confLine{text: l})
			continue
		}
		k = strings.TrimPrefix(strings.TrimSpace(k), "-")
		out = append(out, confLine{key: sysctl.Canonical(k), value: norm(v), text: l})
	}
	if len(out) == 1 && out[0].text == "" {
		return nil
	}
	return out
}

func formatConf(lines []confLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// confValue is the value the file sets for key (the last line that
// sets it wins, as sysctl reads it), if any.
func confValue(lines []confLine, key string) *string {
	var v *string
	for _, l := range lines {
		if l.key == key {
			s := l.value
			v = &s
		}
	}
	return v
}

// setConf sets key to value (nil: removes it): every line that sets the
// key is dropped and one is added where the first was, or at the end.
func setConf(lines []confLine, key string, value *string) []confLine {
	var out []confLine
	placed := false
	for _, l := range lines {
		if l.key != key {
			out = append(out, l)
			continue
		}
		if !placed && value != nil {
			out = append(out, confLine{key: key, value: *value, text: key + " = " + *value})
		}
		placed = true
	}
	if !placed && value != nil {
		out = append(out, confLine{key: key, value: *value, text: key + " = " + *value})
	}
	return out
}

const confHeader = "# Written by tcptune apply --persist; roll back with: tcptune rollback"

// mergeConf is the sysctl.d file after --persist sets kvs' sysctls in
// old (every key of the request, so the file says what the host should
// be), and what each key held before.
func mergeConf(old string, kvs []KV) (string, []PersistKey) {
	lines := parseConf(old)
	if len(lines) == 0 {
		lines = []confLine{{text: confHeader}}
	}
	var keys []PersistKey
	for _, kv := range sysctls(kvs) {
		k, v := sysctl.Canonical(kv.Key), norm(kv.Value)
		keys = append(keys, PersistKey{Key: k, Old: confValue(lines, k), New: v})
		lines = setConf(lines, k, &v)
	}
	return formatConf(lines), keys
}

// unmergeConf puts back keys' old values in the file cur; a key whose
// value is no longer what apply wrote (a later apply, or an edit) is
// drift, named and left as it is (put back all the same with force).
func unmergeConf(cur string, keys []PersistKey, force bool) (string, []string) {
	lines := parseConf(cur)
	var drift []string
	for i := len(keys) - 1; i >= 0; i-- {
		k := keys[i]
		now := confValue(lines, k.Key)
		if now == nil || *now != k.New {
			drift = append(drift, fmt.Sprintf("%s: the file holds %s (apply wrote %s)", k.Key, show(now), k.New))
			if !force {
				continue
			}
		}
		lines = setConf(lines, k.Key, k.Old)
	}
	return formatConf(lines), drift
}

func show(v *string) string {
	if v == nil {
		return "nothing"
	}
	return *v
}

// settingsLeft reports whether a sysctl.d file sets anything.
func settingsLeft(text string) bool {
	for _, l := range parseConf(text) {
		if l.key != "" {
			return true
		}
	}
	return false
}

// Override is a file read after the sysctl.d file apply writes that
// sets one of its keys: at boot, its value wins.
type Override struct {
	Key   string `json:"key"`
	File  string `json:"file"`
	Value string `json:"value"`
}

// sysctlDirs are the directories systemd-sysctl reads, relative to the
// configuration root; all their files sort together by name, and a file
// in an earlier directory hides one of the same name in a later one.
var sysctlDirs = []string{"etc/sysctl.d", "run/sysctl.d", "usr/local/lib/sysctl.d", "usr/lib/sysctl.d", "lib/sysctl.d"}

// Overrides lists the files read after o's sysctl.d file that set one
// of kvs' sysctls: later sysctl.d files (99-sysctl.conf, Debian's link
// to /etc/sysctl.conf, among them) and /etc/sysctl.conf, which procps'
// sysctl --system reads last of all.
func Overrides(kvs []KV, o Options) []Override {
	o.defaults()
	want := map[string]bool{}
	for _, kv := range sysctls(kvs) {
		want[sysctl.Canonical(kv.Key)] = true
	}
	if len(want) == 0 {
		return nil
	}
	ours := filepath.Base(o.PersistFile())
	dirs := []string{o.SysctlD}
	for _, d := range sysctlDirs {
		dirs = append(dirs, filepath.Join(o.ConfigRoot, d))
	}
	var files []string
	for _, f := range confdirs.Files(dirs, "*.conf") {
		if filepath.Base(f) > ours {
			files = append(files, f)
		}
	}
	files = append(files, filepath.Join(o.ConfigRoot, "etc", "sysctl.conf"))
	var out []Override
	seen := map[string]bool{}
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range parseConf(string(data)) {
			if want[l.key] {
				out = append(out, Override{Key: l.key, File: f, Value: l.value})
			}
		}
	}
	return out
}
