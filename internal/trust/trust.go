// Package trust decides whether tcptune, running as root, may read a
// file or directory as instructions (a backup, a lab's state) or write
// under a directory named from outside (the environment): it must be
// the user's own, writable by no one else, and not a link, so that no
// other user can have prepared what root then acts on.
package trust

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Check checks that path (not followed if a link) is a directory or a
// regular file that belongs to the user running tcptune (root, where it
// changes hosts) and that no one else may write.
func Check(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: a symbolic link; refusing to read it", path)
	case dir && !fi.IsDir():
		return fmt.Errorf("%s: not a directory", path)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s: not a regular file", path)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s: writable by others (mode %04o); what is there could be anyone's: fix with chmod go-w, after checking its contents", path, fi.Mode().Perm())
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s: belongs to uid %d, not to uid %d that runs tcptune; refusing to read it", path, uid, os.Geteuid())
	}
	return nil
}

// Path checks a directory named from outside (the environment):
// absolute, and it or the nearest part of it that exists passes Check.
func Path(d string) error {
	if !filepath.IsAbs(d) {
		return errors.New("not an absolute path")
	}
	for p := filepath.Clean(d); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			return Check(p, true)
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}
