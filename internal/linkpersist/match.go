package linkpersist

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tcptune/tcptune/internal/confdirs"
	"github.com/tcptune/tcptune/internal/linkset"
)

// unit is one .network or .link file as networkd and udev read it: the
// file that wins its name across the directories, with its drop-ins
// (FILE.d/*.conf from every directory, by name, /etc hiding the same
// name elsewhere) appended, which is how systemd parses them.
type unit struct {
	path, name, suffix string
	text               string // the file and its drop-ins
}

// own reports whether u is a file tcptune wrote (edited in place).
func (u *unit) own() bool { return strings.Contains(u.name, ownMark) }

// stem is u's name without its suffix: a narrowed copy is named
// STEM-tcptune-IF.SUFFIX, which sorts just before STEM.SUFFIX ('-' <
// '.'), so that it is the first to match IF wherever u was.
func (u *unit) stem() string { return strings.TrimSuffix(u.name, u.suffix) }

// units lists the files with suffix in networkd's order (by file name
// across its directories, the first directory hiding the same name in
// the later ones).
func units(root, suffix string) ([]*unit, error) {
	var out []*unit
	for _, p := range confdirs.Files(dirs(root), "*"+suffix) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("persist: %w", err)
		}
		text := string(b)
		n := filepath.Base(p)
		for _, d := range confdirs.Files(dirs(root), n+".d/*.conf") {
			more, err := os.ReadFile(d)
			if err != nil {
				return nil, fmt.Errorf("persist: %w", err)
			}
			text = strings.TrimRight(text, "\n") + "\n\n# " + d + "\n" + string(more)
		}
		out = append(out, &unit{path: p, name: n, suffix: suffix, text: text})
	}
	return out, nil
}

// dirs are networkdDirs under root.
func dirs(root string) []string {
	out := make([]string, len(networkdDirs))
	for i, d := range networkdDirs {
		out[i] = filepath.Join(root, d)
	}
	return out
}

// firstMatch is the file networkd (.network) or udev (.link) applies
// to d: the first whose [Match] keys all match it. A key Plan cannot
// decide (Path=, Property=, Host=, …) on a file that would otherwise
// match is an error: Plan cannot tell which file applies, so it writes
// none.
func firstMatch(root string, d linkset.Device, suffix string) (*unit, error) {
	us, err := units(root, suffix)
	if err != nil {
		return nil, err
	}
	for _, u := range us {
		ok, err := u.matches(d)
		if err != nil {
			return nil, err
		}
		if ok {
			return u, nil
		}
	}
	return nil, nil
}

// condition is one [Match] key: its values (merged across lines, the
// empty assignment resetting them) and whether the list is inverted.
type condition struct {
	key    string
	values []string
	not    bool
}

// conditions reads a unit's [Match] keys, in order of first appearance.
func conditions(text string) []*condition {
	var out []*condition
	at := map[string]*condition{}
	for _, kv := range section(text, "Match") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		c, seen := at[k]
		if !seen {
			c = &condition{key: k}
			at[k] = c
			out = append(out, c)
		}
		if v == "" {
			c.values, c.not = nil, false
			continue
		}
		if rest, ok := strings.CutPrefix(v, "!"); ok {
			c.not, v = true, rest
		}
		c.values = append(c.values, strings.Fields(v)...)
	}
	return out
}

// matches reports whether every [Match] key of u matches d.
func (u *unit) matches(d linkset.Device) (bool, error) {
	cs := conditions(u.text)
	all := true
	var undecided []string
	for _, c := range cs {
		if len(c.values) == 0 {
			continue
		}
		var subject string
		glob, fold := true, false
		switch c.key {
		case "Name", "OriginalName":
			subject = d.Name
		case "MACAddress":
			subject, glob, fold = d.Address, false, true
		case "PermanentMACAddress":
			subject, glob, fold = d.PermAddress, false, true
		case "Type":
			subject = d.Type
		case "Kind":
			subject = d.Kind
		case "Driver":
			subject = d.Driver
		case "Path":
			// udev's ID_PATH: none for a device without hardware behind
			// it; a NIC's from udev's database, if udev keeps one.
			if d.Hardware && d.Udev == nil {
				undecided = append(undecided, c.key+"=")
				continue
			}
			subject = d.Udev["ID_PATH"]
		case "Property":
			if d.Udev == nil {
				undecided = append(undecided, c.key+"=")
				continue
			}
			if propertiesMatch(c.values, d.Udev) == c.not {
				all = false
			}
			continue
		default:
			undecided = append(undecided, c.key+"=")
			continue
		}
		hit := false
		for _, v := range c.values {
			switch {
			case subject == "":
			case fold:
				hit = hit || strings.EqualFold(v, subject)
			case glob:
				ok, _ := path.Match(v, subject)
				hit = hit || ok
			}
		}
		if hit == c.not {
			all = false
		}
	}
	if !all {
		return false, nil // a key that decides against d: the others do not matter
	}
	if len(undecided) > 0 {
		return false, fmt.Errorf("persist: %s matches %s on the keys tcptune reads, but its %s cannot be decided here: tcptune cannot tell whether it applies to %s, so it writes nothing; set the value in that file yourself", u.path, d.Name, strings.Join(undecided, ", "), d.Name)
	}
	return true, nil
}

// exact reports whether u matches d and no other device: by a single
// literal Name= (a .network file: names are unique), or by d's own
// permanent address.
func (u *unit) exact(d linkset.Device) bool {
	own, hasOwn := d.OwnAddress()
	for _, c := range conditions(u.text) {
		if c.not || len(c.values) != 1 {
			continue
		}
		v := c.values[0]
		switch c.key {
		case "Name":
			if u.suffix == ".network" && v == d.Name && !strings.ContainsAny(v, "*?[") {
				return true
			}
		case "PermanentMACAddress":
			if hasOwn && strings.EqualFold(v, own) {
				return true
			}
		}
	}
	return false
}

// narrowed is u (with its drop-ins) whose [Match] also pins d: a
// .network file by Name=IF in place of its Name= list, a .link file by
// d's permanent address. It keeps u's other conditions, which d met.
func (u *unit) narrowed(d linkset.Device) (string, error) {
	pinKey, pin := "Name", d.Name
	if u.suffix == ".link" {
		own, ok := d.OwnAddress()
		if !ok {
			return "", fmt.Errorf("persist: %s has no permanent address of its own to match", d.Name)
		}
		pinKey, pin = "PermanentMACAddress", own
	}
	var match []string
	for _, kv := range section(u.text, "Match") {
		k, _, _ := strings.Cut(kv, "=")
		if strings.TrimSpace(k) != pinKey {
			match = append(match, kv)
		}
	}
	match = append(match, pinKey+"="+pin)
	rest := withoutSection(u.text, "Match")
	return "[Match]\n" + strings.Join(match, "\n") + "\n\n" + strings.TrimLeft(rest, "\n"), nil
}

// withoutSection drops every [name] section of an ini-style file.
func withoutSection(text, name string) string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = t == "["+name+"]"
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Applies is the file networkd (suffix ".network") or udev (".link")
// applies to d under root today, "" for none: the first whose [Match]
// keys all match d. It is how Plan picks the file it edits, and what
// `udevadm test-builtin net_setup_link` reports as ID_NET_LINK_FILE.
func Applies(root string, d linkset.Device, suffix string) (string, error) {
	u, err := firstMatch(root, d, suffix)
	if err != nil || u == nil {
		return "", err
	}
	return u.path, nil
}

// propertiesMatch reports whether every KEY=GLOB of a Property= list
// matches the device's udev properties (systemd's rule: all of them).
func propertiesMatch(values []string, props map[string]string) bool {
	for _, v := range values {
		k, glob, _ := strings.Cut(v, "=")
		if ok, _ := path.Match(glob, props[k]); !ok {
			return false
		}
	}
	return true
}
