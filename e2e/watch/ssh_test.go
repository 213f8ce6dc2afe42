//go:build linux

package watch_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// sshd starts OpenSSH's server in end b on port 2222, with a key made
// for the test, and returns a copy: it reads file from end b over ssh in
// end a and returns the rate of the whole command (its connection and
// key exchange included), bit/s.
func (l *flowLab) sshd(dir string) func(file string) float64 {
	t := l.t
	for _, tool := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		_, err := exec.LookPath(tool)
		testutil.Need(t, err == nil, "no "+tool+" (openssh-server, make deps)")
	}
	key, hostKey := filepath.Join(dir, "key"), filepath.Join(dir, "host")
	for _, k := range []string{key, hostKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	cfg := filepath.Join(dir, "sshd_config")
	conf := fmt.Sprintf("Port 2222\nListenAddress %s\nHostKey %s\nAuthorizedKeysFile %s.pub\nPermitRootLogin prohibit-password\n"+
		"PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPidFile none\nLogLevel ERROR\n", l.addrB, hostKey, key)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd wants its privilege-separation directory.
	if _, err := os.Stat("/run/sshd"); os.IsNotExist(err) {
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove("/run/sshd") })
	}
	srv := exec.Command("ip", "netns", "exec", l.nsB, "/usr/sbin/sshd", "-D", "-e", "-f", cfg)
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	copy := func(file string) float64 {
		start := time.Now()
		out, err := exec.Command("ip", "netns", "exec", l.nsA, "ssh", "-i", key, "-p", "2222", "-o", "BatchMode=yes",
			"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
			"root@"+l.addrB, "cat", filepath.Join(dir, file)).Output()
		if err != nil {
			return -1
		}
		return float64(len(out)) * 8 / time.Since(start).Seconds()
	}
	for i := 0; ; i++ { // ready when it answers
		if _, err := exec.Command("ip", "netns", "exec", l.nsA, "ssh", "-i", key, "-p", "2222", "-o", "BatchMode=yes",
			"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
			"root@"+l.addrB, "true").CombinedOutput(); err == nil {
			break
		}
		if i == 100 {
			t.Fatal("sshd in end b never answered")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return copy
}

// TestFlowVerdictsOfAnSSHCopy: a second application, OpenSSH: files
// copied from end b over ssh (sshd sends, under the namespace's default
// control) through a server whose tcp_wmem max is 256 KiB. The sending
// end's watch names its send buffer and advises tcp_wmem on this host;
// the receiving end rules its own window out; the advice applied as
// printed lifts the copy's own rate.
func TestFlowVerdictsOfAnSSHCopy(t *testing.T) {
	l := newFlowLab(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), make([]byte, 16<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{l.nsA, l.nsB} {
		l.sysctl(ns, "net.ipv4.tcp_wmem", "4096 16384 33554432")
		l.sysctl(ns, "net.ipv4.tcp_rmem", "4096 131072 33554432")
	}
	l.sysctl(l.nsB, "net.ipv4.tcp_wmem", "4096 16384 262144")
	copy := l.sshd(dir)
	l.quiet() // the readiness probes' connections have ended
	wa, wb := l.watch(l.nsA), l.watch(l.nsB)
	var before []float64
	for range 2 {
		before = append(before, copy("file"))
	}
	l.quiet()
	sa, _ := wa.stop(t)
	sb, _ := wb.stop(t)
	sent, recv := sb.group(t, "sent"), sa.group(t, "received")
	t.Logf("ssh %.0f Mbit/s; sent %+v %+v; received %+v %+v", median(before)/1e6, sent, sent.Advice, recv, recv.Advice)
	if sent.Flows != 2 || sent.Judged != 2 || sent.Verdict != "send-buffer" || sent.Advice == nil || sent.Advice.Key != "net.ipv4.tcp_wmem" || sent.Advice.Host != "this host" {
		t.Fatalf("sending host: %+v, want 2 flows held by the send buffer and tcp_wmem advised here", sent)
	}
	if recv.Flows != 2 || recv.Judged != 2 || recv.Verdict != "unknown" || !slices.Contains(recv.RuledOut, "receiver-window") {
		t.Errorf("receiving host: %+v, want unknown with its window ruled out", recv)
	}
	args := append([]string{"netns", "exec", l.nsB, "sh", "-c"}, strings.TrimPrefix(sent.Advice.Command, "sudo "))
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", sent.Advice.Command, err, out)
	}
	after := copy("file")
	t.Logf("after %q: ssh %.0f Mbit/s", sent.Advice.Command, after/1e6)
	if after < 1.3*median(before) {
		t.Errorf("the advice lifted the copy from %.0f to %.0f Mbit/s only", median(before)/1e6, after/1e6)
	}
}
