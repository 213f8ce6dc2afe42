// Package confdirs lists configuration files as systemd reads a set of
// directories (sysctl.d(5), systemd.network(5), systemd.link(5)): every
// file that matches a pattern in any of them, in the order of their
// names, a file in an earlier directory hiding one of the same name in
// a later one. Drop-in directories (NAME.d/*.conf) follow the same rule.
package confdirs

import (
	"path/filepath"
	"sort"
)

// Files are the paths of the files matching pattern (a filepath.Match
// pattern, relative to each directory) across dirs, highest precedence
// first, sorted by file name, each name once.
func Files(dirs []string, pattern string) []string {
	byName := map[string]string{}
	for i := len(dirs) - 1; i >= 0; i-- {
		ms, _ := filepath.Glob(filepath.Join(dirs[i], pattern))
		for _, m := range ms {
			byName[filepath.Base(m)] = m
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, byName[n])
	}
	return out
}
