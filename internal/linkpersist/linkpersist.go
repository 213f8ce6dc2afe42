// Package linkpersist writes an interface's MTU and transmit-queue
// length into the host's own network configuration, so that they
// survive a reboot: what apply --persist does for link.IF.mtu and
// link.IF.txqueuelen. It finds who configures the interface, under a
// root so that fixture trees stand in for /etc, and writes only where
// the file it touches matches that interface and no other:
//
//   - ifupdown: an "iface IF" stanza in /etc/network/interfaces or
//     interfaces.d/* gets "mtu N" (static and manual methods) or a
//     "pre-up ip link set dev IF mtu N" line (other methods), and for a
//     virtual device a "post-up ip link set dev IF txqueuelen N" line;
//   - systemd-networkd: the first .network file that matches IF on all
//     its [Match] keys, as networkd decides. If it matches IF alone (a
//     literal Name=IF, or IF's own permanent address) it gets a drop-in,
//     FILE.network.d/90-tcptune.conf, with [Link] MTUBytes=N; if it
//     matches more (Name=en*), a copy of it and its drop-ins narrowed
//     to Name=IF is written beside it, named to sort just before it
//     (STEM-tcptune-IF.network), so that the other interfaces it
//     matches keep their MTU;
//   - NetworkManager: the keyfile (system-connections/*.nmconnection)
//     whose interface-name is IF (or, with none, whose mac-address is a
//     NIC's own permanent address) gets mtu=N in the section of its type
//     ([ethernet] or [802-3-ethernet]; [wifi] or [802-11-wireless]);
//   - none of them: a systemd .link file.
//
// A .link file is written only for a hardware device that shows its own
// permanent address (linkset.Device.OwnAddress), matched by
// PermanentMACAddress=: VLANs, bonds, bridges and bond or bridge ports
// carry another device's address, and a file matching them by it would
// also match (and could rename) the physical NIC. For those, the MTU is
// kept by the configuration that owns the device (ifupdown, networkd,
// NetworkManager) and the transmit-queue length by an ifupdown stanza;
// otherwise Plan refuses, saying why and what to do.
//
// The transmit-queue length has no setting in networkd's .network or
// NetworkManager, so for a hardware device it goes into a .link file
// (TransmitQueueLength=), which udev applies when the device appears.
// Only the first .link file that matches a device applies: if that file
// matches this device alone it gets a drop-in (FILE.link.d/
// 90-tcptune.conf); otherwise (99-default.link matches every device) a
// copy of it and its drop-ins narrowed to the device's permanent address
// is written to sort just before it, so that naming and MAC policies
// stay what they are today. tcptune never adds a Name= of its own.
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

	"github.com/tcptune/tcptune/internal/linkset"
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
	dropInName     = "90-tcptune.conf"
	ownMark        = "-tcptune-"
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
		return !strings.HasPrefix(base, ".") && strings.Contains(base, ownMark) && (strings.HasSuffix(base, ".link") || strings.HasSuffix(base, ".network"))
	case path.Dir(dir) == etcNetwork && base == dropInName:
		d := path.Base(dir)
		return strings.HasSuffix(d, ".network.d") || strings.HasSuffix(d, ".link.d")
	}
	return false
}

// Refused is Plan's answer for a setting it will not keep: the device
// and why, and what the user can do instead.
type Refused struct {
	Iface, Attr string
	Device      linkset.Device
	Why, Do     string
}

func (e *Refused) Error() string {
	return fmt.Sprintf("--persist link.%s.%s: %s is %s; %s; %s", strings.ReplaceAll(e.Iface, ".", "/"), e.Attr, e.Iface, e.Device.Describe(), e.Why, e.Do)
}

// Plan returns the files that keep settings on the host under root,
// and who reads each; device tells what an interface is (its kind,
// addresses and ports: linkset.Store.Device). Files are merged: two
// settings of one interface that land in one file are written once.
func Plan(root string, settings []Setting, device func(iface string) (linkset.Device, error)) ([]File, error) {
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
			if old == "" && f.Data != "" {
				old = f.Data // a new file's first contents (a narrowed copy)
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
		d, err := device(s.Iface)
		if err != nil {
			return nil, fmt.Errorf("persist: %w", err)
		}
		d.Name = s.Iface
		if s.MTU > 0 {
			if err := planMTU(root, d, s.MTU, put); err != nil {
				return nil, err
			}
		}
		if s.TxQueueLen > 0 {
			if err := planTxQueue(root, d, s.TxQueueLen, put); err != nil {
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

func planMTU(root string, d linkset.Device, mtu int, put putFunc) error {
	iface := d.Name
	if p, err := ifupdownFile(root, iface); err != nil {
		return err
	} else if p != "" {
		return put(File{Path: p, Mode: 0o644, Manager: Ifupdown, Iface: iface, Activate: "ifdown " + iface + " && ifup " + iface},
			func(old string) (string, error) { return IfupdownMTU(old, iface, mtu) })
	}
	u, err := firstMatch(root, d, ".network")
	if err != nil {
		return err
	}
	if u != nil {
		f := File{Mode: 0o644, Manager: Networkd, Iface: iface, Activate: "networkctl reload"}
		return putUnit(root, u, d, f, "MTUBytes", mtu, put)
	}
	if p, sec, err := nmKeyfile(root, d); err != nil {
		return err
	} else if p != "" {
		if sec == "" {
			return &Refused{Iface: iface, Attr: "mtu", Device: d, Why: "its NetworkManager profile " + p + " is of a type whose MTU tcptune does not know where to keep",
				Do: "set it with nmcli connection modify (the profile's mtu property)"}
		}
		return put(File{Path: p, Mode: 0o600, Manager: NetworkManager, Iface: iface, Activate: "nmcli connection reload"},
			func(old string) (string, error) { return SetINI(old, sec, "mtu", strconv.Itoa(mtu), ""), nil })
	}
	if _, own := d.OwnAddress(); !own {
		return &Refused{Iface: iface, Attr: "mtu", Device: d, Why: "no ifupdown stanza, networkd .network file or NetworkManager profile configures it, and a .link file, which matches by address, could match another device at boot (and rename it)",
			Do: "keep the MTU in the configuration that creates " + iface + ", or apply without --persist"}
	}
	return planLink(root, d, "MTUBytes", mtu, put)
}

func planTxQueue(root string, d linkset.Device, n int, put putFunc) error {
	iface := d.Name
	if _, own := d.OwnAddress(); own {
		return planLink(root, d, "TransmitQueueLength", n, put)
	}
	if p, err := ifupdownFile(root, iface); err != nil {
		return err
	} else if p != "" {
		return put(File{Path: p, Mode: 0o644, Manager: Ifupdown, Iface: iface, Activate: "ifdown " + iface + " && ifup " + iface},
			func(old string) (string, error) { return IfupdownTxQueue(old, iface, n) })
	}
	return &Refused{Iface: iface, Attr: "txqueuelen", Device: d,
		Why: "only a .link file keeps a transmit queue, and one matched by that address could match another device at boot (and rename it)",
		Do:  fmt.Sprintf("keep it where %s is created (an ifupdown stanza's post-up ip link set dev %s txqueuelen %d, or a udev rule), or apply without --persist", iface, iface, n)}
}

// planLink puts key=v into [Link] of the .link file that applies to d,
// a hardware device with its own permanent address (the caller checked).
func planLink(root string, d linkset.Device, key string, v int, put putFunc) error {
	addr, _ := d.OwnAddress()
	u, err := firstMatch(root, d, ".link")
	if err != nil {
		return err
	}
	f := File{Mode: 0o644, Manager: LinkFile, Iface: d.Name, Activate: "udevadm trigger --action=add /sys/class/net/" + d.Name}
	if u == nil {
		f.Path = filepath.Join(root, etcNetwork, "10"+ownMark+d.Name+".link")
		f.Data = header(d.Name, "") + "[Match]\nPermanentMACAddress=" + addr + "\n"
		return put(f, func(old string) (string, error) { return SetINI(old, "Link", key, strconv.Itoa(v), ""), nil })
	}
	return putUnit(root, u, d, f, key, v, put)
}

// putUnit sets key=v in [Link] for d, given the first unit u that
// matches it: in u itself when it is tcptune's own, in a drop-in when u
// matches d alone, else in a copy of u narrowed to d.
func putUnit(root string, u *unit, d linkset.Device, f File, key string, v int, put putFunc) error {
	set := func(old string) (string, error) { return SetINI(old, "Link", key, strconv.Itoa(v), ""), nil }
	switch {
	case u.own():
		f.Path = u.path
		return put(f, set)
	case u.exact(d):
		f.Path = filepath.Join(root, etcNetwork, u.name+".d", dropInName)
		f.Data = header(d.Name, "")
		return put(f, set)
	}
	narrowed, err := u.narrowed(d)
	if err != nil {
		return err
	}
	f.Path = filepath.Join(root, etcNetwork, u.stem()+ownMark+d.Name+u.suffix)
	f.Data = header(d.Name, u.path) + narrowed
	return put(f, set)
}

func header(iface, copyOf string) string {
	h := "# Written by tcptune apply --persist for " + iface + "; roll back with: tcptune rollback\n"
	if copyOf != "" {
		h += "# A copy of " + copyOf + " (with its drop-ins) that matches " + iface + " alone,\n# so that the other interfaces it matches are left as they are.\n"
	}
	return h
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
	return ifupdownSet(old, iface, func(method string) string {
		if method == "static" || method == "manual" {
			return fmt.Sprintf("    mtu %d", mtu)
		}
		return fmt.Sprintf("    pre-up ip link set dev %s mtu %d", iface, mtu)
	}, func(g []string, line string) bool {
		return g[0] == "mtu" || (g[0] == "pre-up" && strings.Contains(line, "link set dev "+iface+" mtu "))
	})
}

// IfupdownTxQueue sets the transmit-queue length in every "iface
// IFACE" stanza: a post-up command (the device exists by then, also a
// VLAN or bond that ifupdown creates); an earlier such line is replaced.
func IfupdownTxQueue(old, iface string, n int) (string, error) {
	return ifupdownSet(old, iface, func(string) string {
		return fmt.Sprintf("    post-up ip link set dev %s txqueuelen %d", iface, n)
	}, func(g []string, line string) bool {
		return g[0] == "post-up" && strings.Contains(line, "link set dev "+iface+" txqueuelen ")
	})
}

// ifupdownSet appends line(method) to each "iface IFACE" stanza,
// dropping the stanza's option lines that old says are an earlier one.
func ifupdownSet(text, iface string, line func(method string) string, old func(fields []string, line string) bool) (string, error) {
	lines := strings.Split(text, "\n")
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
		// The stanza's option lines follow until the next stanza or
		// blank line.
		j := i + 1
		for ; j < len(lines); j++ {
			g := strings.Fields(lines[j])
			if len(g) == 0 || isStanza(g[0]) {
				break
			}
			if old(g, lines[j]) {
				continue
			}
			out = append(out, lines[j])
		}
		out = append(out, line(method))
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

// hasSection reports whether an ini-style file has [name].
func hasSection(ini, name string) bool {
	for _, l := range strings.Split(ini, "\n") {
		if strings.TrimSpace(l) == "["+name+"]" {
			return true
		}
	}
	return false
}

// nmKeyfile is the NetworkManager keyfile that configures d, if any
// (the first by name): its interface-name is d's name, or, with no
// interface-name, its mac-address is d's own permanent address (NM
// matches a profile's address against the permanent one). It returns
// the section its mtu goes in ("" for a type tcptune does not know).
func nmKeyfile(root string, d linkset.Device) (string, string, error) {
	own, hasOwn := d.OwnAddress()
	ms, _ := filepath.Glob(filepath.Join(root, nmDir, "*.nmconnection"))
	sort.Strings(ms)
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			return "", "", err
		}
		text := string(b)
		name, typ := "", ""
		for _, kv := range section(text, "connection") {
			k, v, _ := strings.Cut(kv, "=")
			switch strings.TrimSpace(k) {
			case "interface-name":
				name = strings.TrimSpace(v)
			case "type":
				typ = strings.TrimSpace(v)
			}
		}
		sec := nmSection(text, typ)
		byAddr := false
		if name == "" && hasOwn && sec != "" {
			for _, kv := range section(text, sec) {
				if k, v, _ := strings.Cut(kv, "="); strings.TrimSpace(k) == "mac-address" && strings.EqualFold(strings.TrimSpace(v), own) {
					byAddr = true
				}
			}
		}
		if name != d.Name && !byAddr {
			continue
		}
		return m, sec, nil
	}
	return "", "", nil
}

// nmSection is the keyfile section that holds a profile's mtu: the
// wired one for Ethernet, VLAN, bond and bridge profiles, the Wi-Fi one
// for Wi-Fi, under whichever of its two names the file already uses.
func nmSection(text, typ string) string {
	pick := func(short, long string) string {
		if !hasSection(text, short) && hasSection(text, long) {
			return long
		}
		return short
	}
	switch typ {
	case "ethernet", "802-3-ethernet", "vlan", "bond", "bridge", "":
		if typ == "" && (hasSection(text, "wifi") || hasSection(text, "802-11-wireless")) {
			return pick("wifi", "802-11-wireless")
		}
		return pick("ethernet", "802-3-ethernet")
	case "wifi", "802-11-wireless":
		return pick("wifi", "802-11-wireless")
	}
	return ""
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
