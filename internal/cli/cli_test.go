package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tcptune/tcptune/internal/testutil"
)

// A bad flag gets one line naming the flag and what it accepts, under
// both names, with exit status 1 and nothing on stdout.
func TestBadFlagsSayOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tcptune", "bench", "-c", "h", "-t", "x"}, `tcptune: error - -t/--time: accepts 0 or 0.001..86400 seconds (e.g. 1, 0.5, 500ms) (got "x")`},
		{[]string{"tcptune", "bench", "-c", "h", "-P", "0"}, `-P/--parallel: accepts streams 1..128 (got "0")`},
		{[]string{"tcptune", "bench", "-c", "h", "-b", "fast"}, `-b/--bitrate:`},
		{[]string{"tcptune", "serve", "--time-skew-threshold", "-3"}, `--time-skew-threshold: accepts seconds 1..86400`},
		{[]string{"tcptune", "lab", "up", "x", "--loss", "lots"}, `--loss: accepts a fraction`},
		{[]string{"tcptune", "tune", "--peer", "h", "--rate", "fast"}, `--rate: accepts a path's rate`},
		{[]string{"tcptune", "advise", "--rate", "1gbit"}, `--rate and --rtt: required`},
		{[]string{"tcptune", "advise", "--rate", "1gbit", "--rtt", "soon"}, `--rtt: accepts 0.001..10 seconds`},
		{[]string{"tcptune", "show", "--rtt", "-1ms"}, `--rtt: accepts 0.001..10 seconds`},
		{[]string{"iperf3", "-c", "h", "-i", "abc"}, `iperf3: error - -i/--interval:`},
		{[]string{"iperf3", "-c", "h", "--username", "u"}, `--username and --rsa-public-key-path: give both, or neither`},
	} {
		var out, errOut bytes.Buffer
		code := Main(c.args, &out, &errOut)
		msg := errOut.String()
		if code != 1 || out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", c.args, code, out.String(), msg, c.want)
		}
	}
}

// The command line parses and prints; logic a test would want lives in
// the capability packages, so the package stays within 1,500 lines.
func TestCLIStaysThin(t *testing.T) {
	lines := 0
	for _, src := range testutil.Sources(t) {
		lines += strings.Count(src, "\n")
	}
	if lines > 1500 {
		t.Errorf("internal/cli is %d lines of code; it parses and prints in 1,500 at most: move logic into the package it belongs to", lines)
	}
}
