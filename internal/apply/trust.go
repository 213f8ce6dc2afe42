package apply

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tcptune/tcptune/internal/trust"
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

// Skip is an entry of the backup directory that is not a backup
// rollback may trust: its path, the ID its name gives (if any), and why.
type Skip struct {
	Path, ID, Why string
}

func (s Skip) String() string { return s.Path + ": " + s.Why }

// readTrusted checks the backup directory, then each entry in it: a
// backup is a regular file named by a valid ID, trusted (see trusted),
// that parses, says that ID and names a valid namespace. Any other
// entry (a subdirectory, a stray file, a file others may write) is
// skipped with the reason; only an untrusted directory is an error.
func readTrusted(dir string) ([]Backup, []Skip, error) {
	if err := trust.Check(dir, true); err != nil {
		if os.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("backup directory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var out []Backup
	var skipped []Skip
	for _, e := range entries {
		name := e.Name()
		if name == lockName || strings.HasPrefix(name, "."+lockName) || (strings.HasPrefix(name, ".") && strings.Contains(name, ".json.tmp-")) {
			continue // the lock, and a save's temporary file: no instruction
		}
		p := filepath.Join(dir, name)
		id, _ := strings.CutSuffix(name, ".json")
		skip := func(why string) { skipped = append(skipped, Skip{Path: p, ID: id, Why: why}) }
		if !strings.HasSuffix(name, ".json") || ValidateID(id) != nil {
			skip("not a backup (a backup is ID.json, ID as YYYYMMDD-HHMMSS-xxxxxx)")
			continue
		}
		if err := trust.Check(p, false); err != nil {
			skip(strings.TrimPrefix(err.Error(), p+": "))
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			skip(err.Error())
			continue
		}
		var b Backup
		if err := json.Unmarshal(data, &b); err != nil {
			skip("not valid JSON: " + err.Error())
			continue
		}
		if b.ID != id {
			skip(fmt.Sprintf("says it is backup %q; refusing it", b.ID))
			continue
		}
		if err := ValidateNetNS(b.NetNS); err != nil {
			skip(err.Error())
			continue
		}
		b.Forced = false // never taken from a file: rollback --force decides
		out = append(out, b)
	}
	return out, skipped, nil
}
