// Package linkpersist writes an interface's MTU and transmit-queue
// length into the host's own network configuration, so that they
// survive a reboot: what apply --persist does for link.IF.mtu and
// link.IF.txqueuelen. It finds who configures the interface, under a
// root so that fixture trees stand in for /etc:
//
//   - ifupdown: an "iface IF" stanza in /etc/network/interfaces or
//     interfaces.d/* gets "mtu N" (static and manual methods) or a
//     "pre-up ip link set dev IF mtu N" line (other methods);
//   - systemd-networkd: the .network file that matches IF (by Name= or
//     MACAddress=, in networkd's precedence) gets a drop-in,
//     FILE.network.d/90-tcptune.conf, with [Link] MTUBytes=N;
//   - NetworkManager: the keyfile (system-connections/*.nmconnection)
//     whose interface-name is IF gets mtu=N in [ethernet];
//   - none of them: a systemd .link file.
//
// The transmit-queue length has no setting in ifupdown, networkd's
// .network or NetworkManager; it always goes into a .link file
// (TransmitQueueLength=), which udev applies when the device appears,
// whoever configures its addresses. Only the first .link file that
// matches a device applies, so an existing one in /etc/systemd/network
// that names IF (or its MAC) gets a drop-in; otherwise
// /etc/systemd/network/10-tcptune-IF.link is written, matched by the
// MAC address and keeping the name (Name=IF).
//
// Plan returns the files to write, with their new contents; it writes
// nothing. The caller (apply) backs them up, writes them atomically and
// restores them on rollback; Owned says which paths this package may
// write, so that a backup cannot name any other.
package linkpersist

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Setting is what to keep for one interface; 0 leaves a value alone.
type Setting struct {
	Iface      string
	MTU        int
	TxQueueLen int
}

// Manager names who configures an interface.
type Manager string

// The managers Plan recognises.
const (
	Ifupdown       Manager = "ifupdown"
	Networkd       Manager = "systemd-networkd"
	NetworkManager Manager = "NetworkManager"
	LinkFile       Manager = "systemd .link"
)

// File is one file to write.
type File struct {
	Path    string      // absolute, under the root Plan was given
	Data    string      // the new contents
	Mode    os.FileMode // the old file's mode, or the default for a new one
	Manager Manager     // who reads it
	Iface   string
	// Activate is what makes the host reread it before the next boot
	// (the live value is already set by apply).
	Activate string
}

// Directories, relative to the root.
const (
	interfacesFile = "etc/network/interfaces"
	interfacesDir  = "etc/network/interfaces.d"
	nmDir          = "etc/NetworkManager/system-connections"
	etcNetwork     = "etc/systemd/network"
)

// networkdDirs are networkd's and udev's directories for .network and
// .link files, highest precedence first (a file in an earlier one hides
// a same-named file in a later one).
var networkdDirs = []string{etcNetwork, "run/systemd/network", "usr/local/lib/systemd/network", "usr/lib/systemd/network", "lib/systemd/network"}

// Owned reports whether p is a file Plan may write under root: the
// ones its writers name, never anything else (rollback checks a
// backup's paths with it).
func Owned(root, p string) bool {
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	switch {
	case rel == interfacesFile:
		return true
	case dir == interfacesDir, dir == nmDir:
		return !strings.HasPrefix(base, ".")
	case dir == etcNetwork:
		return strings.HasPrefix(base, "10-tcptune-") && strings.HasSuffix(base, ".link")
	case path.Dir(dir) == etcNetwork && base == "90-tcptune.conf":
		d := path.Base(dir)
		return strings.HasSuffix(d, ".network.d") || strings.HasSuffix(d, ".link.d")
	}
	return false
}

// Plan returns the files that keep settings on the host under root,
// and who reads each; macOf gives an interface's MAC ("" if none), which
// a .link file matches. Files are merged: two settings of one interface
// that land in one file are written once.
func Plan(root string, settings []Setting, macOf func(iface string) string) ([]File, error) {
	files := map[string]*File{}
	var order []string
	put := func(f File, edit func(old string) (string, error)) error {
		cur, ok := files[f.Path]
		if !ok {
			old, mode, err := readFile(f.Path)
			if err != nil {
				return err
			}
			if mode != 0 {
				f.Mode = mode
			}
			f.Data = old
			cur = &f
			files[f.Path] = cur
			order = append(order, f.Path)
		}
		data, err := edit(cur.Data)
		if err != nil {
			return err
		}
		cur.Data = data
		return nil
	}
	for _, s := range settings {
		if s.Iface == "" || s.Iface == "lo" {
			return nil, fmt.Errorf("persist: %q: not an interface a network configuration keeps", s.Iface)
		}
		mac := macOf(s.Iface)
		if s.MTU > 0 {
			if err := planMTU(root, s.Iface, mac, s.MTU, put); err != nil {
				return nil, err
			}
		}
		if s.TxQueueLen > 0 {
			if err := planLink(root, s.Iface, mac, "TransmitQueueLength", s.TxQueueLen, put); err != nil {
				return nil, err
			}
		}
	}
	out := make([]File, 0, len(order))
	for _, p := range order {
		out = append(out, *files[p])
	}
	return out, nil
}

type putFunc func(f File, edit func(old string) (string, error)) error

func planMTU(root, iface, mac string, mtu int, put putFunc) error {
	if p, err := ifupdownFile(root, iface); err != nil {
		return err
	} else if p != "" {
		return put(File{Path: p, Mode: 0o644, Manager: Ifupdown, Iface: iface, Activate: "ifdown " + iface + " && ifup " + iface},
			func(old string) (string, error) { return IfupdownMTU(old, iface, mtu) })
	}
	if p := networkdFile(root, iface, mac, ".network"); p != "" {
		dropIn := filepath.Join(root, etcNetwork, filepath.Base(p)+".d", "90-tcptune.conf")
		return put(File{Path: dropIn, Mode: 0o644, Manager: Networkd, Iface: iface, Activate: "networkctl reload"},
			func(old string) (string, error) {
				return SetINI(old, "Link", "MTUBytes", strconv.Itoa(mtu), header(iface)), nil
			})
	}
	if p, err := nmKeyfile(root, iface); err != nil {
		return err
	} else if p != "" {
		return put(File{Path: p, Mode: 0o600, Manager: NetworkManager, Iface: iface, Activate: "nmcli connection reload"},
			func(old string) (string, error) { return SetINI(old, "ethernet", "mtu", strconv.Itoa(mtu), ""), nil })
	}
	return planLink(root, iface, mac, "MTUBytes", mtu, put)
}

// planLink puts key=v into [Link] of the .link file for iface: a
// drop-in for an existing file in /etc/systemd/network that names it,
// else tcptune's own file, matched by MAC.
func planLink(root, iface, mac, key string, v int, put putFunc) error {
	f := File{Mode: 0o644, Manager: LinkFile, Iface: iface, Activate: "udevadm trigger --action=add /sys/class/net/" + iface}
	if p := networkdFile(root, iface, mac, ".link"); p != "" && filepath.Dir(p) == filepath.Join(root, etcNetwork) && !strings.HasPrefix(filepath.Base(p), "10-tcptune-") {
		f.Path = filepath.Join(p+".d", "90-tcptune.conf")
		return put(f, func(old string) (string, error) { return SetINI(old, "Link", key, strconv.Itoa(v), header(iface)), nil })
	}
	if mac == "" {
		return fmt.Errorf("persist: %s has no MAC address to match in a .link file", iface)
	}
	f.Path = filepath.Join(root, etcNetwork, "10-tcptune-"+iface+".link")
	return put(f, func(old string) (string, error) {
		if old == "" {
			old = header(iface) + "[Match]\nPermanentMACAddress=" + mac + "\n\n[Link]\nName=" + iface + "\n"
		}
		return SetINI(old, "Link", key, strconv.Itoa(v), ""), nil
	})
}

func header(iface string) string {
	return "# Written by tcptune apply --persist for " + iface + "; roll back with: tcptune rollback\n"
}

func readFile(p string) (string, os.FileMode, error) {
	st, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	b, err := os.ReadFile(p)
	return string(b), st.Mode().Perm(), err
}

// ifupdownFile is the file holding iface's "iface" stanza, if any.
func ifupdownFile(root, iface string) (string, error) {
	cands := []string{filepath.Join(root, interfacesFile)}
	more, _ := filepath.Glob(filepath.Join(root, interfacesDir, "*"))
	sort.Strings(more)
	cands = append(cands, more...)
	for _, p := range cands {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "iface" && f[1] == iface {
				return p, nil
			}
		}
	}
	return "", nil
}

// IfupdownMTU sets the MTU in every "iface IFACE" stanza of an
// interfaces file: "mtu N" for the static and manual methods, which
// take it, else a pre-up command; an earlier such line is replaced.
func IfupdownMTU(old, iface string, mtu int) (string, error) {
	lines := strings.Split(old, "\n")
	var out []string
	found := false
	for i := 0; i < len(lines); i++ {
		f := strings.Fields(lines[i])
		out = append(out, lines[i])
		if len(f) < 2 || f[0] != "iface" || f[1] != iface {
			continue
		}
		found = true
		method := ""
		if len(f) >= 4 {
			method = f[3]
		}
		line := fmt.Sprintf("    pre-up ip link set dev %s mtu %d", iface, mtu)
		if method == "static" || method == "manual" {
			line = fmt.Sprintf("    mtu %d", mtu)
		}
		// The stanza's option lines follow until the next stanza or
		// blank line; drop an earlier MTU setting there.
		j := i + 1
		for ; j < len(lines); j++ {
			g := strings.Fields(lines[j])
			if len(g) == 0 || isStanza(g[0]) {
				break
			}
			if g[0] == "mtu" || (g[0] == "pre-up" && strings.Contains(lines[j], "link set dev "+iface+" mtu ")) {
				continue
			}
			out = append(out, lines[j])
		}
		out = append(out, line)
		i = j - 1
	}
	if !found {
		return "", fmt.Errorf("persist: no iface %s stanza", iface)
	}
	return strings.Join(out, "\n"), nil
}

func isStanza(w string) bool {
	switch w {
	case "iface", "auto", "allow-hotplug", "mapping", "source", "source-directory", "rename":
		return true
	}
	return strings.HasPrefix(w, "allow-")
}

// networkdFile is the first file with suffix (.network or .link), in
// networkd's order (by file name across its directories, /etc hiding
// the same name elsewhere), whose [Match] names iface or its MAC.
func networkdFile(root, iface, mac, suffix string) string {
	byName := map[string]string{}
	for i := len(networkdDirs) - 1; i >= 0; i-- {
		ms, _ := filepath.Glob(filepath.Join(root, networkdDirs[i], "*"+suffix))
		for _, m := range ms {
			byName[filepath.Base(m)] = m
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(byName[n])
		if err != nil {
			continue
		}
		if matches(string(b), iface, mac, suffix == ".link") {
			return byName[n]
		}
	}
	return ""
}

// matches reports whether a unit's [Match] section names iface (Name=,
// or OriginalName= in a .link file, as globs) or mac (MACAddress=,
// PermanentMACAddress=); with exact, a glob that is not iface itself
// does not count (99-default.link's OriginalName=* matches every
// device and is not this interface's file).
func matches(unit, iface, mac string, exact bool) bool {
	for _, kv := range section(unit, "Match") {
		k, v, _ := strings.Cut(kv, "=")
		for _, w := range strings.Fields(v) {
			switch strings.TrimSpace(k) {
			case "Name", "OriginalName":
				if ok, _ := path.Match(w, iface); ok && (!exact || w == iface) {
					return true
				}
			case "MACAddress", "PermanentMACAddress":
				if mac != "" && strings.EqualFold(w, mac) {
					return true
				}
			}
		}
	}
	return false
}

// section lists the key=value lines of [name] in an ini-style file.
func section(ini, name string) []string {
	var out []string
	in := false
	sc := bufio.NewScanner(strings.NewReader(ini))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(l, "["):
			in = l == "["+name+"]"
		case in && l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, ";"):
			out = append(out, l)
		}
	}
	return out
}

// nmKeyfile is the NetworkManager keyfile whose interface-name is
// iface, if any (the first by name).
func nmKeyfile(root, iface string) (string, error) {
	ms, _ := filepath.Glob(filepath.Join(root, nmDir, "*.nmconnection"))
	sort.Strings(ms)
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			return "", err
		}
		for _, kv := range section(string(b), "connection") {
			if k, v, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == "interface-name" && strings.TrimSpace(v) == iface {
				return m, nil
			}
		}
	}
	return "", nil
}

// SetINI sets key=value in [sec] of an ini-style file, replacing the
// key's line there or adding it at the end of the section (the
// section at the end of the file if it is missing); head starts a file
// that was empty.
func SetINI(old, sec, key, value, head string) string {
	if old == "" {
		old = head
	}
	lines := strings.Split(strings.TrimRight(old, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "[") {
			continue
		}
		if start >= 0 {
			end = i
			break
		}
		if t == "["+sec+"]" {
			start = i
		}
	}
	kv := key + "=" + value
	if start < 0 {
		if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) != "" && !strings.HasPrefix(lines[len(lines)-1], "#") {
			lines = append(lines, "")
		}
		lines = append(lines, "["+sec+"]", kv)
		return strings.Join(lines, "\n") + "\n"
	}
	for i := start + 1; i < end; i++ {
		if k, _, ok := strings.Cut(lines[i], "="); ok && strings.TrimSpace(k) == key {
			lines[i] = kv
			return strings.Join(lines, "\n") + "\n"
		}
	}
	// After the section's last non-blank line.
	at := end
	for at > start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	lines = append(lines[:at], append([]string{kv}, lines[at:]...)...)
	return strings.Join(lines, "\n") + "\n"
}
