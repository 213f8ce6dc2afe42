package apply

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A backup directory is read as root and its files tell rollback what
// to write: nothing in it is trusted that its owner and mode do not
// vouch for, and nothing a file says about itself decides what rollback
// may do (Forced is never read back; keys are checked as apply checks
// them).

// lockName is the change lock's file in the backup directory.
const lockName = ".lock"

// idRE is the form of a backup ID, as newID makes it.
var idRE = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$`)

// netnsRE is a network namespace's name as "ip netns" makes it.
var netnsRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// ValidateNetNS checks a namespace name: letters, digits, _ . - (no
// path: it names a file under /run/netns).
func ValidateNetNS(ns string) error {
	if ns != "" && (!netnsRE.MatchString(ns) || ns == "." || ns == "..") {
		return fmt.Errorf("--netns %q: accepts a namespace's name (letters, digits, _ . -)", ns)
	}
	return nil
}

// ValidateID checks a backup ID's form.
func ValidateID(id string) error {
	if !idRE.MatchString(id) {
		return fmt.Errorf("backup id %q: not of the form YYYYMMDD-HHMMSS-xxxxxx (tcptune rollback --list)", id)
	}
	return nil
}

// trusted checks that path (not followed if a link) is a directory or a
// regular file that belongs to the user running tcptune (root, where it
// changes hosts) and that no one else may write.
func trusted(path string, dir bool) error {
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
		return fmt.Errorf("%s: writable by others (mode %04o); a backup there could be anyone's: fix with chmod go-w, after checking its contents", path, fi.Mode().Perm())
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s: belongs to uid %d, not to uid %d that runs tcptune; refusing to read it", path, uid, os.Geteuid())
	}
	return nil
}

// readTrusted checks the backup directory and every file in it, then
// parses the backups: a file must be named by a valid ID, say that ID,
// and name a valid namespace.
func readTrusted(dir string) ([]Backup, error) {
	if err := trusted(dir, true); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("backup directory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Backup
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if err := trusted(p, false); err != nil {
			if e.Name() == lockName && e.Type().IsRegular() {
				continue // the lock holds no instruction
			}
			return nil, fmt.Errorf("backup directory: %w", err)
		}
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if err := ValidateID(id); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var b Backup
		if err := json.Unmarshal(data, &b); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if b.ID != id {
			return nil, fmt.Errorf("%s: says it is backup %q; refusing it", p, b.ID)
		}
		if err := ValidateNetNS(b.NetNS); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		b.Forced = false // never taken from a file: rollback --force decides
		out = append(out, b)
	}
	return out, nil
}
