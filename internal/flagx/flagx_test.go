package flagx

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// Each value takes what iperf3's users write and refuses the rest with
// one line saying what it accepts.
func TestValues(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var n int
	var size int64
	var rate float64
	var d time.Duration
	var unit byte
	var frac float64
	FractionVar(fs, &frac, "noise", 0.05, "")
	IntVarP(fs, &n, "parallel", "P", 1, 1, 128, "streams", "")
	SizeVarP(fs, &size, "window", "w", 1<<30, "")
	RateVarP(fs, &rate, "bitrate", "b", "")
	SecondsVarP(fs, &d, "interval", "i", time.Second, 100*time.Millisecond, 60*time.Second, true, "")
	fs.VarP(Format(&unit), "format", "f", "")
	if err := fs.Parse([]string{"-P", "4", "-w", "4M", "-b", "100M/64", "-i", "0", "-f", "a", "--noise", "20%"}); err != nil {
		t.Fatal(err)
	}
	if n != 4 || size != 4<<20 || rate != 100e6 || d != 0 || unit != 'a' || frac != 0.2 {
		t.Fatalf("n %d size %d rate %g d %v unit %q", n, size, rate, d, unit)
	}
	// "/s" is a unit, not iperf3's burst.
	if err := fs.Parse([]string{"-b", "125MB/s"}); err != nil || rate != 1e9 {
		t.Fatalf("-b 125MB/s: %g %v", rate, err)
	}
	for _, bad := range []struct{ args, want string }{
		{"-P 0", "accepts streams 1..128"},
		{"--noise 1", "accepts a fraction 0..1 (0.05) or a percentage (5%)"},
		{"--noise -0.1", "accepts a fraction 0..1"},
		{"-w 2G", "accepts a size in bytes up to 1073741824"},
		{"-b fast", "accepts a rate in bits/s"},
		{"-i 0.05", "accepts 0 or 0.1..60 seconds"},
		{"-f x", "accepts one of k, m, g, t"},
	} {
		if err := fs.Parse(strings.Fields(bad.args)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %q", bad.args, err, bad.want)
		}
	}
}

func TestExpandPrefixes(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Bool("bidir", false, "")
	fs.Bool("json", false, "")
	fs.Bool("json-stream", false, "")
	fs.String("title", "", "")
	got, err := ExpandPrefixes(fs, []string{"--bid", "--tit=x", "--json", "-c", "h", "--", "--bid"})
	if err != nil || strings.Join(got, " ") != "--bidir --title=x --json -c h -- --bid" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := ExpandPrefixes(fs, []string{"--js"}); err == nil || err.Error() != "option '--js' is ambiguous; possibilities: '--json' '--json-stream'" {
		t.Fatalf("ambiguous: %v", err)
	}
}

func TestOneLine(t *testing.T) {
	got := OneLine(errors.New(`invalid argument "fast" for "-t, --time" flag: accepts seconds`))
	if got.Error() != `-t/--time: accepts seconds (got "fast")` {
		t.Errorf("%q", got)
	}
	if other := errors.New("unknown flag: --nope"); OneLine(other) != other {
		t.Errorf("other errors pass unchanged")
	}
}

func TestFirstChanged(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("rtt", "", "")
	fs.String("loss", "", "")
	fs.Parse([]string{"--loss", "1%"})
	if got := FirstChanged(fs, "rtt", "loss"); got != "loss" {
		t.Errorf("%q", got)
	}
	if got := FirstChanged(fs, "rtt"); got != "" {
		t.Errorf("%q", got)
	}
}
