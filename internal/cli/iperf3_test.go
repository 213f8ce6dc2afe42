package cli

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/testutil"
)

// Under the name iperf3, tcptune takes every option the newest iperf3's
// --help lists, long and short: the list comes from the real binary, so
// a release that adds one makes this test fail until tcptune takes it.
func TestIperf3OptionsFromItsHelp(t *testing.T) {
	ip := testutil.NeedIperf3Newest(t)
	help, _ := exec.Command(ip, "--help").CombinedOutput()
	long := regexp.MustCompile(`--([a-z0-9][a-z0-9-]+)`).FindAllStringSubmatch(string(help), -1)
	short := regexp.MustCompile(`(?m)^\s+-([a-zA-Z0-9]), --`).FindAllStringSubmatch(string(help), -1)
	if len(long) < 60 || len(short) < 30 {
		t.Fatalf("read %d long and %d short options from %s --help:\n%s", len(long), len(short), ip, help)
	}
	seen := map[string]bool{}
	for _, m := range long {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		if err := newIperf3Cmd().ParseFlags([]string{"--" + m[1] + "=1"}); err != nil && strings.Contains(err.Error(), "unknown") {
			t.Errorf("--%s: %v", m[1], err)
		}
	}
	for _, m := range short {
		if err := newIperf3Cmd().ParseFlags([]string{"-" + m[1]}); err != nil && strings.Contains(err.Error(), "unknown") {
			t.Errorf("-%s: %v", m[1], err)
		}
	}
}

// getopt_long's spellings: an unambiguous prefix, --opt=value, bundled
// short flags and -t5; an ambiguous prefix is refused with getopt's
// words; what tcptune cannot do is refused in one line naming it.
func TestIperf3Spellings(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // a line on stderr; "" = parses, then fails to connect
	}{
		{[]string{"iperf3", "-c", "127.0.0.1", "-p", "1", "--bid", "-t5", "-VN"}, ""},
		{[]string{"iperf3", "-c", "127.0.0.1", "-p", "1", "--conn=100", "--times", "--dscp", "af41"}, ""},
		{[]string{"iperf3", "-c", "127.0.0.1", "-p", "1", "--bi"}, "option '--bi' is ambiguous; possibilities: '--bidir' '--bind' '--bind-dev' '--bitrate'"},
		{[]string{"iperf3", "-c", "127.0.0.1", "-p", "1", "--json-s"}, "option '--json-s' is ambiguous"},
		{[]string{"iperf3", "-c", "127.0.0.1", "-p", "1", "-m"}, "-m/--mptcp: MPTCP is not supported by tcptune"},
		{[]string{"iperf3", "-c", "127.0.0.1", "-p", "1", "--sctp"}, "SCTP is not supported by tcptune"},
		{[]string{"iperf3", "-c", "127.0.0.1", "-p", "1", "--dscp", "af99"}, "--dscp: accepts 0-63 or a name"},
		{[]string{"tcptune", "bench", "-c", "127.0.0.1", "-p", "1", "--rev"}, ""},
		// iperf3's own auth test script spells it so: a prefix of
		// --authorized-users-path, with =value.
		{[]string{"iperf3", "-s", "--rsa-private-key-path=/nonexistent/private.pem", "--authorized-user=/nonexistent/users.csv"}, "--rsa-private-key-path: open /nonexistent/private.pem"},
	} {
		var out, errOut bytes.Buffer
		code := Main(c.args, &out, &errOut)
		msg := errOut.String()
		if c.want == "" {
			if !strings.Contains(msg, "unable to connect") {
				t.Errorf("%v: exit %d, stderr %q; want it to parse and try to connect", c.args, code, msg)
			}
			continue
		}
		if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, code, msg, c.want)
		}
	}
}

func TestStrftime(t *testing.T) {
	tm := time.Date(2026, 11, 3, 7, 4, 5, 0, time.UTC)
	for f, want := range map[string]string{
		"%c ":      "Tue Nov  3 07:04:05 2026 ",
		"%F %T":    "2026-11-03 07:04:05",
		"%s %j%%":  "1793689445 307%",
		"[%H:%M] ": "[07:04] ",
	} {
		if got := report.Strftime(f, tm); got != want {
			t.Errorf("%q: %q, want %q", f, got, want)
		}
	}
	var b bytes.Buffer
	pw := &report.PrefixWriter{W: &b, Stamp: "%T ", Prefix: "x:  ", Now: func() time.Time { return tm }}
	pw.Write([]byte("a\nb"))
	pw.Write([]byte("c\n"))
	if b.String() != "07:04:05 x:  a\n07:04:05 x:  bc\n" {
		t.Errorf("%q", b.String())
	}
}

// bench --logfile, and tcptune as iperf3 with --logfile, append the
// report and the error to the file, as iperf3's --logfile does, and
// exit 1 on the error.
func TestBenchLogfile(t *testing.T) {
	for _, args := range [][]string{{"tcptune", "bench"}, {"/usr/bin/iperf3"}} {
		log := t.TempDir() + "/bench.log"
		var out, errOut bytes.Buffer
		code := Main(append(args, "-c", "127.0.0.1", "-p", "1", "--logfile", log), &out, &errOut)
		b, _ := os.ReadFile(log)
		want := "Connecting to host 127.0.0.1, port 1\n" + strings.TrimPrefix(args[0], "/usr/bin/") + ": error - unable to connect"
		if code != 1 || out.Len() != 0 || errOut.Len() != 0 || !strings.Contains(string(b), want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, log %q", args, code, out.String(), errOut.String(), b)
		}
	}
}
