package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func readString(p string) string { b, _ := os.ReadFile(p); return string(b) }

// Two persisted applies keep both keys (the sysctl.d file is merged key
// by key); rolling one back takes its key out and leaves the other's;
// a key a later apply changed is drift.
func TestPersistMergesKeyByKey(t *testing.T) {
	o := fixture(t)
	o.Persist = true
	a, _, err := Apply([]KV{{Key: "net.ipv4.tcp_mtu_probing", Value: "1"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Apply([]KV{{Key: "net.core.rmem_max", Value: "16777216"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	conf := readString(o.PersistFile())
	if !strings.Contains(conf, "net.ipv4.tcp_mtu_probing = 1\n") || !strings.Contains(conf, "net.core.rmem_max = 16777216\n") {
		t.Fatalf("the second apply lost the first's key:\n%s", conf)
	}
	if _, err := Rollback(a.ID, o); err != nil {
		t.Fatal(err)
	}
	conf = readString(o.PersistFile())
	if strings.Contains(conf, "tcp_mtu_probing") || !strings.Contains(conf, "net.core.rmem_max = 16777216\n") {
		t.Fatalf("after rolling back the first:\n%s", conf)
	}
	if _, err := Rollback(b.ID, o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(o.PersistFile()); !os.IsNotExist(err) {
		t.Fatalf("the file apply made is still there: %q", readString(o.PersistFile()))
	}

	// One key, two applies: the older cannot be rolled back first.
	c1, _, err := Apply([]KV{{Key: "net.core.rmem_max", Value: "4194304"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	c2, _, err := Apply([]KV{{Key: "net.core.rmem_max", Value: "8388608"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Rollback(c1.ID, o); err == nil || !strings.Contains(err.Error(), "the file holds 8388608 (apply wrote 4194304)") {
		t.Fatalf("an older backup over a newer value: %v", err)
	}
	for _, id := range []string{c2.ID, c1.ID} {
		if _, err := Rollback(id, o); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := o.FS.Get("net.core.rmem_max"); v != "212992" {
		t.Errorf("rmem_max %s", v)
	}
	if _, err := os.Stat(o.PersistFile()); !os.IsNotExist(err) {
		t.Errorf("left: %q", readString(o.PersistFile()))
	}
}

// A file read after ours that sets one of our keys is named.
func TestOverrides(t *testing.T) {
	o := fixture(t)
	root := o.FS.Root
	os.MkdirAll(filepath.Join(root, "etc", "sysctl.d"), 0o755)
	os.MkdirAll(filepath.Join(root, "usr", "lib", "sysctl.d"), 0o755)
	os.WriteFile(filepath.Join(root, "etc", "sysctl.conf"), []byte("net.core.rmem_max=212992\n"), 0o644)
	os.Symlink("../sysctl.conf", filepath.Join(root, "etc", "sysctl.d", "99-sysctl.conf"))
	os.WriteFile(filepath.Join(root, "usr", "lib", "sysctl.d", "95-vendor.conf"), []byte("net/ipv4/tcp_mtu_probing = 0\n"), 0o644)
	os.WriteFile(filepath.Join(root, "usr", "lib", "sysctl.d", "10-early.conf"), []byte("net.core.rmem_max = 1\n"), 0o644)
	got := Overrides([]KV{{Key: "net.core.rmem_max", Value: "16777216"}, {Key: "net.ipv4.tcp_mtu_probing", Value: "1"}}, o)
	want := []Override{
		{Key: "net.ipv4.tcp_mtu_probing", File: filepath.Join(root, "usr", "lib", "sysctl.d", "95-vendor.conf"), Value: "0"},
		{Key: "net.core.rmem_max", File: filepath.Join(root, "etc", "sysctl.d", "99-sysctl.conf"), Value: "212992"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// A network configuration file two applies changed rolls back newest
// first only: rolling back the older would resurrect its old contents
// over the newer apply's.
func TestFileRollbackDrift(t *testing.T) {
	o := fixture(t)
	root := o.FS.Root
	dev := filepath.Join(root, "sys", "class", "net", "eth0")
	os.MkdirAll(dev, 0o755)
	for f, v := range map[string]string{"mtu": "1500", "tx_queue_len": "1000", "address": "52:54:00:00:00:01", "addr_assign_type": "0"} {
		os.WriteFile(filepath.Join(dev, f), []byte(v+"\n"), 0o644)
	}
	o.Persist = true
	a, _, err := Apply([]KV{{Key: "link.eth0.mtu", Value: "9000"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Apply([]KV{{Key: "link.eth0.txqueuelen", Value: "5000"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "etc", "systemd", "network", "10-tcptune-eth0.link")
	if got := readString(link); !strings.Contains(got, "MTUBytes=9000") || !strings.Contains(got, "TransmitQueueLength=5000") {
		t.Fatalf(".link:\n%s", got)
	}
	if _, err := Rollback(a.ID, o); err == nil || !strings.Contains(err.Error(), link+": changed since apply wrote it") {
		t.Fatalf("the older first: %v", err)
	}
	if got := readString(link); !strings.Contains(got, "TransmitQueueLength=5000") {
		t.Fatalf("a refused rollback wrote:\n%s", got)
	}
	for _, id := range []string{b.ID, a.ID} {
		if _, err := Rollback(id, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(link); !os.IsNotExist(err) {
		t.Errorf("left: %q", readString(link))
	}
}

// A write that failed may have taken effect: it is restored too.
func TestFailedKeyRestored(t *testing.T) {
	o := fixture(t)
	before := values(t, o)
	o.BeforeWrite = func(i int, c Change) error {
		if i == 1 {
			o.FS.Set(c.Key, c.New) // the kernel took it, then the write failed
			return errors.New("EIO")
		}
		return nil
	}
	if _, _, err := Apply(request, o); err == nil || !strings.Contains(err.Error(), "every value written was restored") {
		t.Fatalf("apply: %v", err)
	}
	if after := values(t, o); !same(before, after) {
		t.Fatalf("after a failed write: %v (was %v)", after, before)
	}
}

// One key in either spelling, once per request; a VLAN's sysctl keeps
// its dotted interface name.
func TestKeySpellings(t *testing.T) {
	o := fixture(t)
	if _, _, err := Apply([]KV{{Key: "net.core.rmem_max", Value: "4194304"}, {Key: "net/core/rmem_max", Value: "8388608"}}, o); err == nil || !strings.Contains(err.Error(), "set twice") {
		t.Fatalf("a key twice: %v", err)
	}
	kv, err := ParseSet("net/ipv4/conf/eth0.100/forwarding=1")
	if err != nil || kv.Key != "net.ipv4.conf.eth0/100.forwarding" {
		t.Fatalf("%+v %v", kv, err)
	}
	p := filepath.Join(o.FS.Root, "proc", "sys", "net", "ipv4", "conf", "eth0.100", "forwarding")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("0\n"), 0o644)
	o.Force = true
	if _, _, err := Apply([]KV{kv}, o); err != nil || strings.TrimSpace(readString(p)) != "1" {
		t.Fatalf("a VLAN's sysctl: %v %q", err, readString(p))
	}
}

// A backup made in another network namespace is not rolled back here.
func TestRollbackInAnotherNamespace(t *testing.T) {
	o := fixture(t)
	const id = "20260101-000000-cccccc"
	plant(t, o, id+".json", fmt.Sprintf(`{"id":%q,"state":"applied","netns":"tenant-a","netns_id":"net:[1]","boot":%q,"changes":[{"key":"net.ipv4.tcp_rmem","old":"4096 131072 1048576","new":"4096 131072 6291456"}]}`, id, bootID("/")), 0o600)
	before := values(t, o)
	if _, err := Rollback(id, o); err == nil || !strings.Contains(err.Error(), "belongs to network namespace tenant-a (net:[1])") {
		t.Fatalf("rollback here: %v", err)
	}
	if _, err := Rollback("", o); err == nil || !strings.Contains(err.Error(), "no backup to roll back") {
		t.Fatalf("the newest here: %v", err)
	}
	if after := values(t, o); !same(before, after) {
		t.Fatalf("wrote %v", after)
	}
	if l, _ := List(o); len(l) != 1 || l[0].Where() != "tenant-a" {
		t.Fatalf("%+v", l)
	}
}

// A trial is interrupted when its process is gone, or when its PID now
// belongs to another process (another start time, another boot).
func TestInterruptedByIdentity(t *testing.T) {
	o := fixture(t)
	root := o.FS.Root
	os.MkdirAll(filepath.Join(root, "proc", "sys", "kernel", "random"), 0o755)
	os.WriteFile(filepath.Join(root, "proc", "sys", "kernel", "random", "boot_id"), []byte("boot-1\n"), 0o644)
	stat := func(pid int, start uint64) {
		os.MkdirAll(filepath.Join(root, "proc", strconv.Itoa(pid)), 0o755)
		fields := "S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " + strconv.FormatUint(start, 10) + " 0 0"
		os.WriteFile(filepath.Join(root, "proc", strconv.Itoa(pid), "stat"), []byte(fmt.Sprintf("%d (tcp tune) %s\n", pid, fields)), 0o644)
	}
	stat(100, 5000) // a live trial
	stat(200, 9999) // a later process with an old trial's PID
	for i, c := range []struct {
		pid   int
		start uint64
		boot  string
	}{{100, 5000, "boot-1"}, {200, 7000, "boot-1"}, {100, 5000, "boot-0"}, {300, 1, "boot-1"}} {
		id := fmt.Sprintf("20260101-00000%d-aaaaaa", i)
		plant(t, o, id+".json", fmt.Sprintf(`{"id":%q,"state":"applied","trial_pid":%d,"trial_start":%d,"boot":%q,"changes":[]}`, id, c.pid, c.start, c.boot), 0o600)
	}
	got, err := Interrupted(o)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range got {
		ids = append(ids, b.ID)
	}
	if want := "[20260101-000001-aaaaaa 20260101-000002-aaaaaa 20260101-000003-aaaaaa]"; fmt.Sprint(ids) != want {
		t.Errorf("interrupted %v, want %s", ids, want)
	}
	if startTime(root, 100) != 5000 {
		t.Errorf("start %d", startTime(root, 100))
	}
}
