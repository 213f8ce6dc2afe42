package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/testutil"
)

// docFiles are the documents a user reads.
func docFiles(t *testing.T) []string {
	t.Helper()
	root := testutil.ModuleRoot()
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// anchor is GitHub's anchor for a heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '…' && r != '—' && r != '→' && r != '×':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every relative link in the README, CONTRIBUTING.md and docs/ names a
// file that exists, and an anchor, where it has one, a heading there.
func TestDocLinksResolve(t *testing.T) {
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			full := f
			if path != "" {
				full = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(full); err != nil {
					t.Errorf("%s: link %q: %v", filepath.Base(f), target, err)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(full, ".md") {
				continue
			}
			doc, _ := os.ReadFile(full)
			found := false
			for _, h := range heading.FindAllStringSubmatch(string(doc), -1) {
				if anchor(h[1]) == frag {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: link %q: no heading with that anchor in %s", filepath.Base(f), target, filepath.Base(full))
			}
		}
	}
}

// Every command the README shows parses: its subcommand exists and
// takes each flag given (values included), as a user would paste it.
func TestReadmeCommandsParse(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	inSh := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		}
		if !inSh {
			continue
		}
		cmdline, _, _ := strings.Cut(line, "#")
		args := strings.Fields(cmdline)
		if len(args) > 0 && args[0] == "sudo" {
			args = args[1:]
		}
		if len(args) == 0 || args[0] != "tcptune" {
			continue
		}
		n++
		root := NewRoot()
		cmd, rest, err := root.Find(args[1:])
		if err != nil || cmd == root {
			t.Errorf("%q: no such command (%v)", line, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		if cmd.Args != nil {
			if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
				t.Errorf("%q: %v", line, err)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d tcptune commands found in the README's sh blocks", n)
	}
}
