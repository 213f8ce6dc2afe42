// Package linkset reads and sets an interface's own settings by key, the
// way apply handles sysctls: link.IFNAME.mtu (the largest IP packet the
// interface sends) and link.IFNAME.txqueuelen (its transmit queue, in
// packets). A "/" in IFNAME stands for a dot (link.eth0/100.mtu is
// eth0.100's), as in sysctl keys. Live, it works through netlink in the
// caller's network namespace (sysfs would show the namespace that
// mounted it); under a fixture root it reads and writes
// ROOT/sys/class/net/IFNAME/{mtu,tx_queue_len}, so tests can stand in a
// tree. Linux only live; fixture trees everywhere.
package linkset

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Prefix starts every link key.
const Prefix = "link."

// Attributes a link key may name, and their sysfs files.
var attrs = map[string]string{"mtu": "mtu", "txqueuelen": "tx_queue_len"}

var ifnameRE = regexp.MustCompile(`^[A-Za-z0-9_.:@-]{1,15}$`)

// Is reports whether key is a link key (by its prefix; Parse validates).
func Is(key string) bool { return strings.HasPrefix(key, Prefix) }

// Key builds the key of attr on interface ifname.
func Key(ifname, attr string) string {
	return Prefix + strings.ReplaceAll(ifname, ".", "/") + "." + attr
}

// Parse splits a link key into its interface and attribute.
func Parse(key string) (ifname, attr string, err error) {
	rest, ok := strings.CutPrefix(key, Prefix)
	i := strings.LastIndex(rest, ".")
	if !ok || i <= 0 {
		return "", "", fmt.Errorf("invalid link key %q: want link.IFNAME.mtu or link.IFNAME.txqueuelen", key)
	}
	ifname, attr = strings.ReplaceAll(rest[:i], "/", "."), rest[i+1:]
	if _, ok := attrs[attr]; !ok {
		return "", "", fmt.Errorf("invalid link key %q: the attribute is mtu or txqueuelen", key)
	}
	if !ifnameRE.MatchString(ifname) || ifname == "." || strings.Contains(ifname, "..") {
		return "", "", fmt.Errorf("invalid link key %q: %q is not an interface name", key, ifname)
	}
	return ifname, attr, nil
}

// Pattern is the catalogue's name for a key: link.*.mtu.
func Pattern(key string) string {
	_, attr, err := Parse(key)
	if err != nil {
		return key
	}
	return Prefix + "*." + attr
}

// Store reads and writes link keys under Root ("/" or "" = live).
type Store struct {
	Root string
}

func (s Store) live() bool { return s.Root == "" || s.Root == "/" }

func (s Store) path(key string) (string, error) {
	ifname, attr, err := Parse(key)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.Root, "sys", "class", "net", ifname, attrs[attr]), nil
}

// Get returns the value (a decimal number).
func (s Store) Get(key string) (string, error) {
	if s.live() {
		ifname, attr, err := Parse(key)
		if err != nil {
			return "", err
		}
		v, err := getLive(ifname, attr)
		if err != nil {
			return "", fmt.Errorf("%s: %w", key, err)
		}
		return strconv.Itoa(v), nil
	}
	p, err := s.path(key)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", key, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// Writable reports whether this process may set key: live, as root
// (CAP_NET_ADMIN); in a fixture tree, when its file is writable.
func (s Store) Writable(key string) bool {
	if s.live() {
		return os.Geteuid() == 0
	}
	p, err := s.path(key)
	if err != nil {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 != 0
}

// Set writes the value.
func (s Store) Set(key, value string) error {
	v, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || v < 0 {
		return fmt.Errorf("%s: %q is not a count", key, value)
	}
	if s.live() {
		ifname, attr, err := Parse(key)
		if err != nil {
			return err
		}
		if err := setLive(ifname, attr, v); err != nil {
			return fmt.Errorf("%s = %d: %w", key, v, err)
		}
		return nil
	}
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return os.WriteFile(p, []byte(strconv.Itoa(v)+"\n"), 0o644)
}
