package linkpersist

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/linkset"
)

// The fixture host's interfaces, as sysfs shows them: eth0 a NIC with a
// VLAN on it (eth0.100 shows eth0's address), bond0 with ports eth1
// (whose address the bond took) and eth2 (given the bond's), br0 a
// bridge with eth3 as its port, and wlan0.
const (
	mac0 = "52:54:00:12:34:56"
	mac1 = "52:54:00:aa:00:01"
	mac3 = "52:54:00:bb:00:03"
	macW = "52:54:00:cc:00:09"
)

type fdev struct {
	addr, devtype, master, driver string
	assign                        string
}

var devices = map[string]fdev{
	"eth0":     {addr: mac0, assign: "0", driver: "e1000e"},
	"eth0.100": {addr: mac0, assign: "2", devtype: "vlan"},
	"eth1":     {addr: mac1, assign: "0", driver: "ixgbe", master: "bond0"},
	"eth2":     {addr: mac1, assign: "3", driver: "ixgbe", master: "bond0"},
	"bond0":    {addr: mac1, assign: "2", devtype: "bond"},
	"eth3":     {addr: mac3, assign: "0", driver: "igb", master: "br0"},
	"br0":      {addr: mac3, assign: "3", devtype: "bridge"},
	"wlan0":    {addr: macW, assign: "0", devtype: "wlan", driver: "iwlwifi"},
	"eth9":     {addr: "00:00:00:00:00:00", assign: "0"},
}

// tree writes files (path relative to root → contents) and the
// devices' sysfs entries.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	write := func(p, data string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range files {
		write(p, data)
	}
	for name, d := range devices {
		dir := "sys/class/net/" + name + "/"
		write(dir+"address", d.addr+"\n")
		write(dir+"addr_assign_type", d.assign+"\n")
		write(dir+"type", "1\n")
		ue := "INTERFACE=" + name + "\n"
		if d.devtype != "" {
			ue += "DEVTYPE=" + d.devtype + "\n"
		}
		write(dir+"uevent", ue)
		if d.master != "" {
			os.Symlink("../"+d.master, filepath.Join(root, dir+"master"))
		}
		if d.driver != "" {
			write("sys/bus/drivers/"+d.driver+"/.keep", "")
			os.MkdirAll(filepath.Join(root, dir+"device"), 0o755)
			os.Symlink("../../../../bus/drivers/"+d.driver, filepath.Join(root, dir+"device/driver"))
		}
	}
	return root
}

func deviceOf(root string) func(string) (linkset.Device, error) {
	return linkset.Store{Root: root}.Device
}

func plan(t *testing.T, root string, s ...Setting) map[string]File {
	t.Helper()
	fs, err := Plan(root, s, deviceOf(root))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]File{}
	for _, f := range fs {
		rel, _ := filepath.Rel(root, f.Path)
		if !Owned(root, f.Path) {
			t.Errorf("%s: Plan wrote a path Owned refuses", rel)
		}
		out[filepath.ToSlash(rel)] = f
	}
	return out
}

// write puts planned files on disk.
func write(t *testing.T, files map[string]File) {
	for _, f := range files {
		os.MkdirAll(filepath.Dir(f.Path), 0o755)
		if err := os.WriteFile(f.Path, []byte(f.Data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// applying is, for every fixture device, the .link and the .network
// file that udev and networkd would apply to it (with its drop-ins'
// text): what a boot would do.
func applying(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name := range devices {
		d, err := linkset.Store{Root: root}.Device(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, suffix := range []string{".link", ".network"} {
			u, err := firstMatch(root, d, suffix)
			if err != nil {
				t.Fatal(err)
			}
			s := "(none)"
			if u != nil {
				s = u.name + ":" + u.text
			}
			out[name+suffix] = s
		}
	}
	return out
}

// onlyTarget checks that writing files changed what applies to the
// target device alone.
func onlyTarget(t *testing.T, root, target string, files map[string]File) {
	t.Helper()
	before := applying(t, root)
	write(t, files)
	after := applying(t, root)
	var keys []string
	for k := range before {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dev := strings.TrimSuffix(strings.TrimSuffix(k, ".link"), ".network")
		if dev != target && before[k] != after[k] {
			t.Errorf("%s: what applies changed:\n%s\n→\n%s", k, before[k], after[k])
		}
	}
}

func TestIfupdown(t *testing.T) {
	root := tree(t, map[string]string{
		"etc/network/interfaces":        "source /etc/network/interfaces.d/*\n\nauto lo\niface lo inet loopback\n",
		"etc/network/interfaces.d/eth0": "auto eth0\niface eth0 inet static\n    address 192.0.2.10/24\n    mtu 1500\n\niface eth0 inet6 dhcp\n\nauto eth1\niface eth1 inet dhcp\n",
	})
	got := plan(t, root, Setting{Iface: "eth0", MTU: 9000, TxQueueLen: 10000})
	f, ok := got["etc/network/interfaces.d/eth0"]
	if !ok || f.Manager != Ifupdown {
		t.Fatalf("files %v", got)
	}
	want := "auto eth0\niface eth0 inet static\n    address 192.0.2.10/24\n    mtu 9000\n\niface eth0 inet6 dhcp\n    pre-up ip link set dev eth0 mtu 9000\n\nauto eth1\niface eth1 inet dhcp\n"
	if f.Data != want {
		t.Errorf("interfaces.d/eth0:\n%s\nwant:\n%s", f.Data, want)
	}
	// The transmit queue of a NIC: a .link file, matched by its
	// permanent address, naming nothing.
	l, ok := got["etc/systemd/network/10-tcptune-eth0.link"]
	if !ok || !strings.Contains(l.Data, "PermanentMACAddress="+mac0) || !strings.Contains(l.Data, "TransmitQueueLength=10000") || strings.Contains(l.Data, "Name=") {
		t.Errorf(".link: %+v", l)
	}
	// Idempotent: planning again on the written files changes nothing.
	write(t, got)
	for p, f := range plan(t, root, Setting{Iface: "eth0", MTU: 9000, TxQueueLen: 10000}) {
		if f.Data != got[p].Data {
			t.Errorf("%s: second plan differs:\n%s", p, f.Data)
		}
	}
}

// A VLAN or bond that ifupdown creates keeps its transmit queue in its
// own stanza (post-up: the device exists then), never in a .link file.
func TestIfupdownVirtualTxQueue(t *testing.T) {
	root := tree(t, map[string]string{
		"etc/network/interfaces": "auto bond0\niface bond0 inet manual\n    bond-slaves eth1 eth2\n\nauto eth0.100\niface eth0.100 inet static\n    address 192.0.2.1/24\n",
	})
	got := plan(t, root, Setting{Iface: "bond0", TxQueueLen: 10000}, Setting{Iface: "eth0.100", MTU: 9000, TxQueueLen: 5000})
	if len(got) != 1 {
		t.Fatalf("want the interfaces file alone: %v", got)
	}
	want := "auto bond0\niface bond0 inet manual\n    bond-slaves eth1 eth2\n    post-up ip link set dev bond0 txqueuelen 10000\n\nauto eth0.100\niface eth0.100 inet static\n    address 192.0.2.1/24\n    mtu 9000\n    post-up ip link set dev eth0.100 txqueuelen 5000\n"
	if f := got["etc/network/interfaces"]; f.Data != want {
		t.Errorf("%s\nwant\n%s", f.Data, want)
	}
}

// No .link file for a device that shows another's address: it would
// match (and at boot could rename) that device.
func TestNoLinkFileForBorrowedAddresses(t *testing.T) {
	root := tree(t, map[string]string{
		"usr/lib/systemd/network/99-default.link": "[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\nMACAddressPolicy=persistent\n",
	})
	for _, s := range []Setting{
		{Iface: "bond0", TxQueueLen: 10000},
		{Iface: "eth0.100", TxQueueLen: 10000},
		{Iface: "br0", TxQueueLen: 10000},
		{Iface: "eth1", TxQueueLen: 10000}, // a bond's port
		{Iface: "eth2", TxQueueLen: 10000}, // a port given the bond's address
		{Iface: "eth9", TxQueueLen: 10000}, // no address at all
		{Iface: "bond0", MTU: 9000},        // nobody configures it
		{Iface: "eth0.100", MTU: 9000},
	} {
		fs, err := Plan(root, []Setting{s}, deviceOf(root))
		var r *Refused
		if !errors.As(err, &r) || len(fs) != 0 {
			t.Errorf("%+v: files %v, err %v", s, fs, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, s.Iface+" is a") || !strings.Contains(msg, "without --persist") {
			t.Errorf("%+v: %s", s, msg)
		}
	}
}

func TestLinkFileCopiesWhatApplies(t *testing.T) {
	def := "[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\nAlternativeNamesPolicy=database onboard slot path\nMACAddressPolicy=persistent\n"
	root := tree(t, map[string]string{
		"usr/lib/systemd/network/99-default.link":              def,
		"usr/lib/systemd/network/99-default.link.d/local.conf": "[Link]\nWakeOnLan=magic\n",
		"usr/lib/systemd/network/73-usb-net-by-mac.link":       "[Match]\nOriginalName=usb*\nType=ether\n\n[Link]\nNamePolicy=mac\n",
		"etc/systemd/network/50-wlan.link":                     "[Match]\nMACAddress=" + macW + "\n\n[Link]\nName=wifi\n",
		"usr/lib/systemd/network/60-eth3.link":                 "[Match]\nPermanentMACAddress=" + mac3 + "\n\n[Link]\nWakeOnLan=off\n",
		"usr/lib/systemd/network/60-eth3.link.d/ethtool.conf":  "[Link]\nGenericReceiveOffload=true\n",
	})
	got := plan(t, root, Setting{Iface: "eth0", TxQueueLen: 10000})
	f, ok := got["etc/systemd/network/99-default-tcptune-eth0.link"]
	if !ok || len(got) != 1 {
		t.Fatalf("want a narrowed copy of 99-default.link: %v", got)
	}
	for _, want := range []string{"[Match]\nOriginalName=*\nPermanentMACAddress=" + mac0 + "\n", "NamePolicy=keep kernel database onboard slot path", "MACAddressPolicy=persistent", "WakeOnLan=magic", "TransmitQueueLength=10000"} {
		if !strings.Contains(f.Data, want) {
			t.Errorf("missing %q:\n%s", want, f.Data)
		}
	}
	if strings.Contains(f.Data, "\nName=") {
		t.Errorf("a Name= tcptune did not choose:\n%s", f.Data)
	}
	onlyTarget(t, root, "eth0", got)

	// A file matching by the current address matches eth0.100 too: a
	// narrowed copy, not a drop-in. (wlan0: 50-wlan.link.)
	got = plan(t, root, Setting{Iface: "wlan0", MTU: 2304})
	if _, ok := got["etc/systemd/network/50-wlan-tcptune-wlan0.link"]; !ok {
		t.Errorf("files %v", got)
	}
	onlyTarget(t, root, "wlan0", got)

	// A file that names a NIC's permanent address matches it alone: a
	// drop-in, wherever the file lives (eth3, taken out of the bridge).
	devices["eth3"] = fdev{addr: mac3, assign: "0", driver: "igb"}
	defer func() { devices["eth3"] = fdev{addr: mac3, assign: "0", driver: "igb", master: "br0"} }()
	root2 := tree(t, map[string]string{
		"usr/lib/systemd/network/99-default.link":             def,
		"usr/lib/systemd/network/60-eth3.link":                "[Match]\nPermanentMACAddress=" + mac3 + "\n\n[Link]\nWakeOnLan=off\n",
		"usr/lib/systemd/network/60-eth3.link.d/ethtool.conf": "[Link]\nGenericReceiveOffload=true\n",
	})
	got = plan(t, root2, Setting{Iface: "eth3", TxQueueLen: 5000})
	if f, ok := got["etc/systemd/network/60-eth3.link.d/90-tcptune.conf"]; !ok || !strings.Contains(f.Data, "[Link]\nTransmitQueueLength=5000") {
		t.Errorf("files %v", got)
	}
	onlyTarget(t, root2, "eth3", got)
}

func TestNetworkd(t *testing.T) {
	root := tree(t, map[string]string{
		"usr/lib/systemd/network/80-container-host0.network": "[Match]\nName=host0\n",
		"etc/systemd/network/20-wired.network":               "[Match]\nName=en* eth*\nType=ether\n\n[Network]\nDHCP=yes\n",
		"etc/systemd/network/20-wired.network.d/dns.conf":    "[Network]\nDNS=192.0.2.53\n",
		"etc/systemd/network/30-other.network":               "[Match]\nName=eth0\n",
		"etc/systemd/network/40-vlan.network":                "[Match]\nName=eth0.100\n\n[Network]\nAddress=192.0.2.1/24\n",
		"usr/lib/systemd/network/99-default.link":            "[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\n",
	})
	// 20-wired matches eth0 (and every en*/eth* NIC): a copy narrowed to
	// eth0, with its drop-in, sorting just before it.
	got := plan(t, root, Setting{Iface: "eth0", MTU: 9000})
	f, ok := got["etc/systemd/network/20-wired-tcptune-eth0.network"]
	if !ok || f.Manager != Networkd || len(got) != 1 {
		t.Fatalf("files %v", got)
	}
	for _, want := range []string{"[Match]\nType=ether\nName=eth0\n", "DHCP=yes", "DNS=192.0.2.53", "[Link]\nMTUBytes=9000\n"} {
		if !strings.Contains(f.Data, want) {
			t.Errorf("missing %q:\n%s", want, f.Data)
		}
	}
	onlyTarget(t, root, "eth0", got)
	// Again: tcptune's own file is edited in place.
	got = plan(t, root, Setting{Iface: "eth0", MTU: 8000})
	if f := got["etc/systemd/network/20-wired-tcptune-eth0.network"]; !strings.Contains(f.Data, "MTUBytes=8000") || strings.Contains(f.Data, "MTUBytes=9000") || len(got) != 1 {
		t.Errorf("files %v", got)
	}
	// The VLAN: Type=ether keeps 20-wired off it; its own file matches
	// it by name alone: a drop-in.
	got = plan(t, root, Setting{Iface: "eth0.100", MTU: 8000})
	if f, ok := got["etc/systemd/network/40-vlan.network.d/90-tcptune.conf"]; !ok || !strings.Contains(f.Data, "[Link]\nMTUBytes=8000\n") {
		t.Errorf("files %v", got)
	}
	onlyTarget(t, root, "eth0.100", got)

	// The parent's file matched by address alone also matches the VLAN
	// (as networkd would): the VLAN gets a copy narrowed to its name, and
	// the parent's MTU is left alone.
	root = tree(t, map[string]string{
		"etc/systemd/network/10-lan.network": "[Match]\nMACAddress=" + mac0 + "\n\n[Network]\nDHCP=yes\n",
	})
	got = plan(t, root, Setting{Iface: "eth0.100", MTU: 1496})
	if f, ok := got["etc/systemd/network/10-lan-tcptune-eth0.100.network"]; !ok || !strings.Contains(f.Data, "MACAddress="+mac0+"\nName=eth0.100\n") {
		t.Errorf("files %v", got)
	}
	onlyTarget(t, root, "eth0.100", got)
}

// A [Match] key tcptune cannot evaluate on a file that would otherwise
// match: it writes nothing rather than guess which file applies.
func TestUndecidedMatch(t *testing.T) {
	root := tree(t, map[string]string{
		"etc/systemd/network/10-pci.network": "[Match]\nPath=pci-0000:02:00.0\nName=eth*\n\n[Network]\nDHCP=yes\n",
	})
	if fs, err := Plan(root, []Setting{{Iface: "eth0", MTU: 9000}}, deviceOf(root)); err == nil || !strings.Contains(err.Error(), "Path=") {
		t.Errorf("files %v, err %v", fs, err)
	}
	// Debian's 73-usb-net-by-mac.link (Path=*-usb-*, NamePolicy=mac):
	// a device without hardware behind it has no ID_PATH, so it does not
	// match; a NIC's ID_PATH comes from udev's database.
	usb := map[string]string{
		"usr/lib/systemd/network/73-usb-net-by-mac.link": "[Match]\nPath=*-usb-*\n\n[Link]\nNamePolicy=mac\n",
		"usr/lib/systemd/network/99-default.link":        "[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\n",
		"etc/network/interfaces":                         "iface eth0.100 inet manual\n",
		"sys/class/net/eth0/ifindex":                     "2\n",
	}
	root = tree(t, usb)
	if got := plan(t, root, Setting{Iface: "eth0.100", TxQueueLen: 5000}); len(got) != 1 {
		t.Errorf("a VLAN and a Path= file: %v", got)
	}
	for idPath, want := range map[string]string{
		"pci-0000:00:14.0-usb-0:1:1.0": "etc/systemd/network/73-usb-net-by-mac-tcptune-eth0.link",
		"pci-0000:02:00.0":             "etc/systemd/network/99-default-tcptune-eth0.link",
	} {
		usb["run/udev/data/n2"] = "I:123\nE:ID_PATH=" + idPath + "\nE:ID_BUS=pci\n"
		root = tree(t, usb)
		if got := plan(t, root, Setting{Iface: "eth0", TxQueueLen: 5000}); len(got) != 1 || got[want].Path == "" {
			t.Errorf("ID_PATH %s: %v, want %s", idPath, got, want)
		}
	}
	// Property= from the same database: every KEY=GLOB must match.
	usb["etc/systemd/network/50-bus.link"] = "[Match]\nProperty=ID_BUS=pci ID_PATH=pci-*\n\n[Link]\nWakeOnLan=off\n"
	root = tree(t, usb)
	if got := plan(t, root, Setting{Iface: "eth0", TxQueueLen: 5000}); got["etc/systemd/network/50-bus-tcptune-eth0.link"].Path == "" {
		t.Errorf("Property=: %v", got)
	}
	// A key that decides against the device settles it.
	root = tree(t, map[string]string{
		"etc/systemd/network/10-pci.network": "[Match]\nPath=pci-0000:02:00.0\nName=wl*\n",
	})
	if _, err := Plan(root, []Setting{{Iface: "eth0", MTU: 9000}}, deviceOf(root)); err != nil {
		t.Error(err)
	}
}

func TestNetworkManager(t *testing.T) {
	root := tree(t, map[string]string{
		"etc/NetworkManager/system-connections/a-wifi.nmconnection": "[connection]\nid=wifi\ntype=wifi\ninterface-name=wlan0\n\n[wifi]\nssid=x\n",
		"etc/NetworkManager/system-connections/old.nmconnection":    "[connection]\nid=old\ntype=802-3-ethernet\ninterface-name=eth3\n\n[802-3-ethernet]\nmtu=1500\n",
		"etc/NetworkManager/system-connections/wired.nmconnection":  "[connection]\nid=Wired\ntype=ethernet\ninterface-name=eth0\n\n[ethernet]\nmtu=1500\n\n[ipv4]\nmethod=auto\n",
		"etc/NetworkManager/system-connections/vlan.nmconnection":   "[connection]\nid=v\ntype=vlan\ninterface-name=eth0.100\n\n[vlan]\nid=100\nparent=eth0\n",
		"etc/NetworkManager/system-connections/tun.nmconnection":    "[connection]\nid=t\ntype=ip-tunnel\ninterface-name=br0\n",
	})
	os.Chmod(filepath.Join(root, nmDir, "wired.nmconnection"), 0o600)
	got := plan(t, root, Setting{Iface: "eth0", MTU: 9000})
	f, ok := got["etc/NetworkManager/system-connections/wired.nmconnection"]
	want := "[connection]\nid=Wired\ntype=ethernet\ninterface-name=eth0\n\n[ethernet]\nmtu=9000\n\n[ipv4]\nmethod=auto\n"
	if !ok || f.Data != want || f.Mode != 0o600 || f.Manager != NetworkManager {
		t.Fatalf("%+v\nwant:\n%s", f, want)
	}
	for iface, want := range map[string]string{
		"wlan0":    "[wifi]\nssid=x\nmtu=2304\n",
		"eth3":     "[802-3-ethernet]\nmtu=2304\n",
		"eth0.100": "\n[ethernet]\nmtu=2304\n",
	} {
		got := plan(t, root, Setting{Iface: iface, MTU: 2304})
		if len(got) != 1 {
			t.Errorf("%s: %v", iface, got)
		}
		for _, f := range got {
			if !strings.HasSuffix(f.Data, want) || strings.Count(f.Data, "mtu=") != 1 {
				t.Errorf("%s:\n%s\nwant the end\n%s", iface, f.Data, want)
			}
		}
	}
	// A profile bound to a NIC by its permanent address alone; not to a
	// VLAN that shows the same address.
	root2 := tree(t, map[string]string{
		"etc/NetworkManager/system-connections/lan.nmconnection": "[connection]\nid=lan\ntype=ethernet\n\n[ethernet]\nmac-address=" + strings.ToUpper(mac0) + "\n",
		"etc/network/interfaces":                                 "iface eth0.100 inet manual\n",
	})
	if got := plan(t, root2, Setting{Iface: "eth0", MTU: 9000}); got["etc/NetworkManager/system-connections/lan.nmconnection"].Data != "[connection]\nid=lan\ntype=ethernet\n\n[ethernet]\nmac-address="+strings.ToUpper(mac0)+"\nmtu=9000\n" {
		t.Errorf("by address: %v", got)
	}
	if got := plan(t, root2, Setting{Iface: "eth0.100", MTU: 1496}); len(got) != 1 || got["etc/network/interfaces"].Path == "" {
		t.Errorf("a VLAN took its parent's profile: %v", got)
	}
	if _, err := Plan(root, []Setting{{Iface: "br0", MTU: 9000}}, deviceOf(root)); err == nil {
		t.Error("an MTU put into a profile of a type tcptune does not know")
	}
	// A keyfile without [ethernet] gains it.
	if got := SetINI("[connection]\nid=x\n", "ethernet", "mtu", "9000", ""); got != "[connection]\nid=x\n\n[ethernet]\nmtu=9000\n" {
		t.Errorf("%q", got)
	}
}

func TestFallbackLinkFile(t *testing.T) {
	root := tree(t, map[string]string{})
	got := plan(t, root, Setting{Iface: "eth0", MTU: 9000, TxQueueLen: 10000})
	if len(got) != 1 {
		t.Fatalf("want one .link file for both settings: %v", got)
	}
	want := header("eth0", "") + "[Match]\nPermanentMACAddress=" + mac0 + "\n\n[Link]\nMTUBytes=9000\nTransmitQueueLength=10000\n"
	if f := got["etc/systemd/network/10-tcptune-eth0.link"]; f.Data != want || f.Manager != LinkFile {
		t.Errorf("%q\nwant\n%q", f.Data, want)
	}
	onlyTarget(t, root, "eth0", got)
	if _, err := Plan(root, []Setting{{Iface: "eth9", MTU: 9000}}, deviceOf(root)); err == nil {
		t.Error("an interface without a MAC got a .link file")
	}
	if _, err := Plan(root, []Setting{{Iface: "lo", MTU: 9000}}, deviceOf(root)); err == nil {
		t.Error("lo persisted")
	}
	if _, err := Plan(root, []Setting{{Iface: "nosuch0", MTU: 9000}}, deviceOf(root)); err == nil {
		t.Error("a missing interface persisted")
	}
}

func TestOwned(t *testing.T) {
	root := "/r"
	for p, want := range map[string]bool{
		"/r/etc/network/interfaces":                                   true,
		"/r/etc/network/interfaces.d/eth0":                            true,
		"/r/etc/systemd/network/10-tcptune-eth0.link":                 true,
		"/r/etc/systemd/network/99-default-tcptune-eth0.link":         true,
		"/r/etc/systemd/network/20-wired-tcptune-eth0.network":        true,
		"/r/etc/systemd/network/20-wired.network.d/90-tcptune.conf":   true,
		"/r/etc/NetworkManager/system-connections/wired.nmconnection": true,
		"/r/etc/systemd/network/20-wired.network":                     false,
		"/r/etc/systemd/network/20-tcptune-x.netdev":                  false,
		"/r/etc/shadow": false,
		"/r/etc/network/interfaces.d/../../shadow":                     false,
		"/r/etc/systemd/network/x.d/90-tcptune.conf":                   false,
		"/etc/network/interfaces":                                      false,
		"/r/etc/systemd/network/20-wired.network.d/../../../../passwd": false,
	} {
		if Owned(root, p) != want {
			t.Errorf("Owned(%s) = %v", p, !want)
		}
	}
}
