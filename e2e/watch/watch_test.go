//go:build linux

package watch_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/nsx"
	"github.com/tcptune/tcptune/internal/testutil"
)

func TestMain(m *testing.M) { testutil.MainHostUnchanged(m) }

const link = "tt-watch"

// slowLink builds a 100 Mbit/s × 10 ms link, gives end b a 64 KB
// tcp_rmem max, listens there on port 7000 reading 1 KB every 20 ms, and
// sends from end a as fast as it can.
func slowLink(t *testing.T) (bin, nsB, addrB string) {
	testutil.NeedRoot(t)
	_, err := os.Stat("/dev/net/tun")
	testutil.Need(t, err == nil, "no /dev/net/tun")
	bin = testutil.Binary(t)
	exec.Command(bin, "lab", "down", link).Run()
	if out, err := exec.Command(bin, "lab", "up", link, "--rate", "100mbit", "--rtt", "10ms").CombinedOutput(); err != nil {
		t.Fatalf("lab up: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(bin, "lab", "down", link).Run() })
	nsA, nsB := "tcptune-"+link+"-a", "tcptune-"+link+"-b"
	out, err := exec.Command("ip", "netns", "exec", nsB, "sh", "-c", "echo '4096 16384 65536' > /proc/sys/net/ipv4/tcp_rmem && ip -4 -o addr show scope global").Output()
	if err != nil {
		t.Fatal(err)
	}
	addrB = regexp.MustCompile(`inet (10\.201\.\d+\.2)/`).FindStringSubmatch(string(out))[1]
	var ln net.Listener
	if err := nsx.Do(nsB, func() (err error) { ln, err = net.Listen("tcp", addrB+":7000"); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 1024)
		for {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if _, err := c.Read(buf); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var c net.Conn
	if err := nsx.Do(nsA, func() (err error) { c, err = net.Dial("tcp", addrB+":7000"); return err }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 64<<10)
		for {
			c.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second)
	return bin, nsB, addrB
}

func TestWatchSlowReceiver(t *testing.T) {
	bin, nsB, addrB := slowLink(t)
	out, errOut, err := testutil.Run(t, time.Minute, bin, "watch", "--netns", nsB, "--port", "7000", "--count", "3", "--interval", "0.5", "--json")
	if err != nil {
		t.Fatalf("watch: %v\n%s", err, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 JSON lines, got %d:\n%s", len(lines), out)
	}
	var seen bool
	for _, l := range lines {
		var r struct {
			Sockets []struct {
				Local     string `json:"local"`
				RecvQ     uint32 `json:"recv_q"`
				RmemAlloc uint32 `json:"rmem_alloc"`
				Rcvbuf    uint32 `json:"rcvbuf"`
			} `json:"sockets"`
			Verdicts []string `json:"verdicts"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if len(r.Sockets) != 1 || r.Sockets[0].Local != addrB+":7000" {
			t.Fatalf("--port 7000 in %s: sockets %+v", nsB, r.Sockets)
		}
		s := r.Sockets[0]
		if s.RecvQ == 0 || s.Rcvbuf == 0 || s.Rcvbuf > 4*65536 {
			t.Errorf("receiver: %+v (tcp_rmem max 64 KB)", s)
		}
		for _, v := range r.Verdicts {
			if strings.Contains(v, addrB+":7000") && (strings.HasPrefix(v, "receive buffer") || strings.HasPrefix(v, "receiver window closing")) {
				seen = true
			}
		}
		t.Logf("%+v %q", s, r.Verdicts)
	}
	if !seen {
		t.Errorf("no receive-buffer verdict for %s:7000", addrB)
	}
}

func TestWatchPrometheus(t *testing.T) {
	bin, nsB, addrB := slowLink(t)
	cmd := exec.Command(bin, "watch", "--netns", nsB, "--port", "7000", "--interval", "1", "--prometheus", "127.0.0.1:0")
	cmd.Stdout = io.Discard
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	var url string
	for sc.Scan() {
		if m := regexp.MustCompile(`(http://\S+/metrics)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("watch did not say where it serves metrics")
	}
	go io.Copy(io.Discard, stderr)
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`tcptune_netstat_total{name="TcpExt.TCPRcvCollapsed"}`,
		`tcptune_netstat_total{name="Tcp.RetransSegs"}`,
		`tcptune_socket_rmem_alloc_bytes{local="` + addrB + `:7000"`,
		`tcptune_socket_rcvbuf_bytes{local="` + addrB + `:7000"`,
		`tcptune_socket_limited_seconds_total{by="rwnd",local="` + addrB + `:7000"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", text)
	}
}
