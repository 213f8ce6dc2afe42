package linkpersist

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// macs is the fixture's interfaces: eth0 has a MAC.
func macs(iface string) string {
	if iface == "eth0" {
		return "52:54:00:12:34:56"
	}
	return ""
}

// tree writes files (path relative to root → contents).
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, data := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func plan(t *testing.T, root string, s ...Setting) map[string]File {
	t.Helper()
	fs, err := Plan(root, s, macs)
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
	// The transmit queue: a .link file, matched by MAC.
	l, ok := got["etc/systemd/network/10-tcptune-eth0.link"]
	if !ok || !strings.Contains(l.Data, "PermanentMACAddress=52:54:00:12:34:56") || !strings.Contains(l.Data, "TransmitQueueLength=10000") || !strings.Contains(l.Data, "Name=eth0") {
		t.Errorf(".link: %+v", l)
	}
	// Idempotent: planning again on the written files changes nothing.
	for p, f := range got {
		os.MkdirAll(filepath.Dir(f.Path), 0o755)
		os.WriteFile(f.Path, []byte(f.Data), 0o644)
		_ = p
	}
	for p, f := range plan(t, root, Setting{Iface: "eth0", MTU: 9000, TxQueueLen: 10000}) {
		if f.Data != got[p].Data {
			t.Errorf("%s: second plan differs:\n%s", p, f.Data)
		}
	}
}

func TestNetworkd(t *testing.T) {
	root := tree(t, map[string]string{
		"usr/lib/systemd/network/80-container-host0.network": "[Match]\nName=host0\n",
		"etc/systemd/network/20-wired.network":               "[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n",
		"etc/systemd/network/30-other.network":               "[Match]\nName=eth0\n",
		"usr/lib/systemd/network/99-default.link":            "[Match]\nOriginalName=*\n\n[Link]\nNamePolicy=keep kernel database onboard slot path\n",
	})
	got := plan(t, root, Setting{Iface: "eth0", MTU: 9000, TxQueueLen: 5000})
	f, ok := got["etc/systemd/network/20-wired.network.d/90-tcptune.conf"]
	if !ok || f.Manager != Networkd || !strings.Contains(f.Data, "[Link]\nMTUBytes=9000\n") {
		t.Fatalf("files %v", got)
	}
	// 99-default.link matches every device: not a drop-in target.
	if _, ok := got["etc/systemd/network/10-tcptune-eth0.link"]; !ok {
		t.Errorf("files %v", got)
	}
	// A .link file of its own in /etc gets a drop-in instead.
	root = tree(t, map[string]string{
		"etc/systemd/network/50-eth0.link": "[Match]\nMACAddress=52:54:00:12:34:56\n\n[Link]\nWakeOnLan=magic\n",
	})
	got = plan(t, root, Setting{Iface: "eth0", TxQueueLen: 5000})
	if f, ok := got["etc/systemd/network/50-eth0.link.d/90-tcptune.conf"]; !ok || !strings.Contains(f.Data, "TransmitQueueLength=5000") {
		t.Errorf("files %v", got)
	}
}

func TestNetworkManager(t *testing.T) {
	root := tree(t, map[string]string{
		"etc/NetworkManager/system-connections/a-wifi.nmconnection": "[connection]\nid=wifi\ninterface-name=wlan0\n",
		"etc/NetworkManager/system-connections/wired.nmconnection":  "[connection]\nid=Wired\ntype=ethernet\ninterface-name=eth0\n\n[ethernet]\nmtu=1500\n\n[ipv4]\nmethod=auto\n",
	})
	os.Chmod(filepath.Join(root, nmDir, "wired.nmconnection"), 0o600)
	got := plan(t, root, Setting{Iface: "eth0", MTU: 9000})
	f, ok := got["etc/NetworkManager/system-connections/wired.nmconnection"]
	want := "[connection]\nid=Wired\ntype=ethernet\ninterface-name=eth0\n\n[ethernet]\nmtu=9000\n\n[ipv4]\nmethod=auto\n"
	if !ok || f.Data != want || f.Mode != 0o600 || f.Manager != NetworkManager {
		t.Fatalf("%+v\nwant:\n%s", f, want)
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
	want := header("eth0") + "[Match]\nPermanentMACAddress=52:54:00:12:34:56\n\n[Link]\nName=eth0\nMTUBytes=9000\nTransmitQueueLength=10000\n"
	if f := got["etc/systemd/network/10-tcptune-eth0.link"]; f.Data != want || f.Manager != LinkFile {
		t.Errorf("%q\nwant\n%q", f.Data, want)
	}
	if _, err := Plan(root, []Setting{{Iface: "eth9", MTU: 9000}}, macs); err == nil {
		t.Error("an interface without a MAC got a .link file")
	}
	if _, err := Plan(root, []Setting{{Iface: "lo", MTU: 9000}}, macs); err == nil {
		t.Error("lo persisted")
	}
}

func TestOwned(t *testing.T) {
	root := "/r"
	for p, want := range map[string]bool{
		"/r/etc/network/interfaces":                                   true,
		"/r/etc/network/interfaces.d/eth0":                            true,
		"/r/etc/systemd/network/10-tcptune-eth0.link":                 true,
		"/r/etc/systemd/network/20-wired.network.d/90-tcptune.conf":   true,
		"/r/etc/NetworkManager/system-connections/wired.nmconnection": true,
		"/r/etc/systemd/network/20-wired.network":                     false,
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
