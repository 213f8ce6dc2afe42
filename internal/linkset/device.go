package linkset

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Device is what is known of an interface that decides how a setting
// of it can be kept at boot: which configuration files match it, and
// whether an address identifies it alone.
type Device struct {
	Name string
	// Kind is the link type a virtual device was created as (vlan,
	// bond, bridge, veth, macvlan, tun, dummy, …); "" for a device
	// backed by hardware.
	Kind string
	// Type is what networkd's Type= and a .link file's Type= match:
	// the device type udev reports (vlan, bond, bridge, wlan, …), else
	// the hardware type (ether, loopback, none).
	Type string
	// Address is the current hardware address; PermAddress the
	// permanent one the driver reports (IFLA_PERM_ADDRESS), "" if none.
	Address, PermAddress string
	// AddrAssignType is /sys/class/net/IF/addr_assign_type: 0 the
	// permanent address, 1 random, 2 stolen from another device, 3 set
	// from user space; -1 unknown.
	AddrAssignType int
	// Master is the bond or bridge this device is a port of ("" none).
	Master string
	// Hardware: sysfs has a device behind the interface (a NIC, not a
	// veth, bridge or VLAN).
	Hardware bool
	// Udev are the device's udev properties (ID_PATH, ID_BUS, …) from
	// udev's database (/run/udev/data/nIFINDEX); nil when udev keeps
	// none for it (no udevd, or a device it has not seen).
	Udev map[string]string
	// Driver is the kernel driver as ethtool names it (veth and bridge
	// too; what udev's Driver= matches); in a fixture tree, the
	// hardware's (device/driver). "" none or unknown.
	Driver string
	// Lower is the device this one is stacked on, in the same
	// namespace (the interface whose ifindex is this one's iflink: a
	// VXLAN's, VLAN's or macvlan's underlying device; never a veth's
	// peer); "" none or elsewhere.
	Lower string
}

// OwnAddress is the address that identifies d alone: a hardware device
// that is nobody's port, showing its permanent address
// (addr_assign_type 0). VLANs, bonds, bridges and ports show another
// device's address (or one made up), so matching them by address would
// also match that device; they have none here.
func (d Device) OwnAddress() (string, bool) {
	if d.Kind != "" || d.Master != "" || d.AddrAssignType != 0 || d.PermAddress == "" || !strings.EqualFold(d.PermAddress, d.Address) {
		return "", false
	}
	return strings.ToLower(d.PermAddress), true
}

// Describe says what kind of device d is and where its address comes
// from, for a message.
func (d Device) Describe() string {
	what := "a hardware device"
	switch {
	case d.Kind != "" && d.Master != "":
		what = fmt.Sprintf("a %s device and a port of %s", d.Kind, d.Master)
	case d.Master != "":
		what = "a port of " + d.Master
	case d.Kind != "":
		what = "a " + d.Kind + " device"
	}
	if _, ok := d.OwnAddress(); ok {
		return what + " with its own permanent address"
	}
	switch {
	case d.Address == "":
		return what + " without a hardware address"
	case d.AddrAssignType == 1:
		return what + " whose address is made up each time it is created"
	case d.AddrAssignType == 2:
		return what + " showing another device's address"
	case d.AddrAssignType == 3:
		return what + " whose address was set from user space"
	case d.PermAddress == "":
		return what + " without a permanent address"
	}
	return what + " whose address is not its own"
}

// arphrd names the hardware types networkd's Type= knows.
var arphrd = map[string]string{"1": "ether", "772": "loopback", "65534": "none", "32": "infiniband"}

// Device reads what is known of interface ifname: from sysfs under the
// store's root (ROOT/sys/class/net/IFNAME: uevent's DEVTYPE, type,
// address, addr_assign_type, master, device/driver), and, live, the
// link's kind and permanent address through netlink and its driver
// through ethtool. A fixture tree has
// no permanent address file: there it is the current address of a
// hardware device (no DEVTYPE) with addr_assign_type 0.
func (s Store) Device(ifname string) (Device, error) {
	if !ifnameRE.MatchString(ifname) || strings.Contains(ifname, "..") {
		return Device{}, fmt.Errorf("%q is not an interface name", ifname)
	}
	root := s.Root
	if root == "" {
		root = "/"
	}
	dir := filepath.Join(root, "sys", "class", "net", ifname)
	if _, err := os.Stat(dir); err != nil {
		return Device{}, fmt.Errorf("interface %s: %w", ifname, err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	d := Device{Name: ifname, AddrAssignType: -1, Address: strings.ToLower(read("address"))}
	if d.Address == "00:00:00:00:00:00" {
		d.Address = ""
	}
	if v, err := strconv.Atoi(read("addr_assign_type")); err == nil {
		d.AddrAssignType = v
	}
	for _, l := range strings.Split(read("uevent"), "\n") {
		if v, ok := strings.CutPrefix(l, "DEVTYPE="); ok {
			d.Type = v
		}
	}
	if d.Type != "" && d.Type != "wlan" && d.Type != "wwan" {
		d.Kind = d.Type
	}
	if d.Type == "" {
		d.Type = arphrd[read("type")]
	}
	if t, err := os.Readlink(filepath.Join(dir, "master")); err == nil {
		d.Master = filepath.Base(t)
	}
	if _, err := os.Lstat(filepath.Join(dir, "device")); err == nil {
		d.Hardware = true
	}
	if t, err := os.Readlink(filepath.Join(dir, "device", "driver")); err == nil {
		d.Driver = filepath.Base(t)
	}
	if idx := read("ifindex"); idx != "" {
		d.Udev = udevProperties(filepath.Join(root, "run", "udev", "data", "n"+idx))
	}
	if s.live() {
		l, err := deviceLive(ifname)
		if err != nil {
			return Device{}, fmt.Errorf("interface %s: %w", ifname, err)
		}
		if l.kind != "" && l.kind != "device" {
			d.Kind = l.kind
		}
		d.PermAddress = strings.ToLower(l.perm)
		if l.driver != "" {
			d.Driver = l.driver
		}
		d.Lower = l.lower
	} else if d.Kind == "" && d.AddrAssignType == 0 {
		d.PermAddress = d.Address
	}
	if d.Kind == "" && d.Driver == "" && d.PermAddress == "" && d.Type == "none" {
		d.Kind = "tun"
	}
	// A fixture tree's stacked device: sysfs's iflink (a veth's is its
	// peer's index, likely in another namespace).
	if link, idx := read("iflink"), read("ifindex"); !s.live() && link != "" && link != "0" && link != idx && d.Kind != "veth" {
		d.Lower = byIndex(filepath.Dir(dir), link)
	}
	return d, nil
}

// byIndex is the interface under dir (a sys/class/net) whose ifindex is
// idx; "" if none.
func byIndex(dir, idx string) string {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "ifindex")); err == nil && strings.TrimSpace(string(b)) == idx {
			return e.Name()
		}
	}
	return ""
}

// liveDevice is what deviceLive reads.
type liveDevice struct{ kind, perm, driver, lower string }

// udevProperties reads the E:KEY=VALUE lines of a udev database file;
// nil if there is none.
func udevProperties(p string) map[string]string {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if kv, ok := strings.CutPrefix(l, "E:"); ok {
			if k, v, ok := strings.Cut(kv, "="); ok {
				out[k] = v
			}
		}
	}
	return out
}
