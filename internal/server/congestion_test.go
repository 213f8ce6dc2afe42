package server

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/wire"
)

func allowedFixture(t *testing.T, allowed, available string) sysctl.FS {
	root := t.TempDir()
	dir := filepath.Join(root, "proc", "sys", "net", "ipv4")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "tcp_allowed_congestion_control"), []byte(allowed+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "tcp_available_congestion_control"), []byte(available+"\n"), 0o644)
	return sysctl.FS{Root: root}
}

func TestCongestionAllowed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the allowed list is Linux's")
	}
	fs := allowedFixture(t, "reno", "reno cubic")
	for _, ok := range []string{"reno", "cubic"} {
		if err := congestionAllowed(fs, ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"bbr", "tcp_htcp", "../../x", ""} {
		if err := congestionAllowed(fs, bad); err == nil {
			t.Errorf("%q allowed", bad)
		}
	}
	if err := congestionAllowed(sysctl.FS{Root: t.TempDir()}, "reno"); err == nil {
		t.Error("allowed with no readable list")
	}
}

// A client's -C that the host has not loaded is refused with iperf3's
// error before any socket option is set; an allowed one runs.
func TestServerRefusesCongestion(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the allowed list is Linux's")
	}
	_, addr, logs := startServer(t, Options{Sysctl: allowedFixture(t, "reno", "reno")})
	h, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	run := func(cc string) error {
		o := client.Options{Host: h, Port: port, Params: wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, PacingTimer: 1000, Congestion: cc}}
		_, err := client.Run(context.Background(), o, report.NewPrinter(io.Discard, report.Text))
		return err
	}
	if err := run("bbr"); err == nil || !strings.Contains(err.Error(), "TCP_CONGESTION") {
		t.Fatalf("bbr (not allowed) was not refused as iperf3 refuses it: %v", err)
	}
	if !strings.Contains(logs.String(), "does not load modules") {
		t.Errorf("the refusal is not logged: %s", logs.String())
	}
	if err := run("reno"); err != nil {
		t.Fatalf("reno (allowed) failed: %v", err)
	}
}

// With CongestionFromStart a test's -C reaches its data connections
// through the listener, before their first packet (the server does not
// set it again once they are accepted), and the listener gets its own
// back for the next test.
func TestCongestionFromStartThroughTheListener(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("TCP_CONGESTION is Linux's")
	}
	def, err := os.ReadFile("/proc/sys/net/ipv4/tcp_congestion_control")
	if err != nil || strings.TrimSpace(string(def)) == "reno" {
		t.Skip("the default control must differ from reno")
	}
	_, addr, _ := startServer(t, Options{Sysctl: allowedFixture(t, "reno cubic bbr", "reno cubic bbr"), CongestionFromStart: true})
	h, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	senderCC := func(cc string) string { // the server sends (-R)
		o := client.Options{Host: h, Port: port, Params: wire.Params{Time: 1, Parallel: 1, Reverse: true, ServerAffinity: -1, PacingTimer: 1000, Congestion: cc}}
		out, err := client.Run(context.Background(), o, report.NewPrinter(io.Discard, report.Text))
		if err != nil {
			t.Fatal(err)
		}
		return out.Summary.SenderCC
	}
	if got := senderCC("reno"); got != "reno" {
		t.Errorf("-C reno: the server's data connection ran %q", got)
	}
	if got, want := senderCC(""), strings.TrimSpace(string(def)); got != want {
		t.Errorf("no -C after a test with reno: the server's data connection ran %q, want the default %q", got, want)
	}
}
