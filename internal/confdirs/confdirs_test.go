package confdirs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFiles(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"etc/20-b.conf", "etc/99-z.conf", "usr/10-a.conf", "usr/20-b.conf", "usr/x.txt", "run/15-r.conf"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), nil, 0o644)
	}
	dirs := []string{filepath.Join(root, "etc"), filepath.Join(root, "run"), filepath.Join(root, "usr")}
	var got []string
	for _, f := range Files(dirs, "*.conf") {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	// By name across the directories; /etc's 20-b hides /usr's.
	if want := "usr/10-a.conf run/15-r.conf etc/20-b.conf etc/99-z.conf"; strings.Join(got, " ") != want {
		t.Errorf("%v, want %s", got, want)
	}
}
