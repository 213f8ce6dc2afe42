// Package flagx holds command-line flag values that validate as they
// parse, so that a bad flag gets one line naming the flag and what it
// accepts (sizes, rates, seconds and bounded integers with units, as
// iperf3's users write them), and getopt_long's habits that pflag lacks:
// unambiguous prefixes of long options, and iperf3's DSCP names.
package flagx

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/units"
)

type intValue struct {
	p        *int
	min, max int
	what     string
}

func (v *intValue) String() string { return strconv.Itoa(*v.p) }
func (v *intValue) Type() string   { return "int" }
func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < v.min || n > v.max {
		return fmt.Errorf("accepts %s %d..%d", v.what, v.min, v.max)
	}
	*v.p = n
	return nil
}

// IntVarP defines an int flag that accepts min..max (what names the unit
// in the error: "streams", "seconds").
func IntVarP(fs *pflag.FlagSet, p *int, name, short string, def, min, max int, what, usage string) {
	*p = def
	fs.VarP(&intValue{p: p, min: min, max: max, what: what}, name, short, usage)
}

type fractionValue struct{ p *float64 }

func (v *fractionValue) String() string { return strconv.FormatFloat(*v.p, 'f', -1, 64) }
func (v *fractionValue) Type() string   { return "fraction" }
func (v *fractionValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if pct, ok := strings.CutSuffix(strings.TrimSpace(s), "%"); ok {
		f, err = strconv.ParseFloat(pct, 64)
		f /= 100
	}
	if err != nil || f < 0 || f >= 1 {
		return fmt.Errorf("accepts a fraction 0..1 (0.05) or a percentage (5%%)")
	}
	*v.p = f
	return nil
}

// FractionVar defines a flag that accepts a fraction in [0, 1), as 0.05
// or 5%.
func FractionVar(fs *pflag.FlagSet, p *float64, name string, def float64, usage string) {
	*p = def
	fs.Var(&fractionValue{p: p}, name, usage)
}

type sizeValue struct {
	p   *int64
	max int64
}

func (v *sizeValue) String() string {
	if *v.p == 0 {
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}
func (v *sizeValue) Type() string { return "size" }
func (v *sizeValue) Set(s string) error {
	n, err := units.ParseBytes(s)
	if err != nil || (v.max > 0 && n > v.max) {
		return fmt.Errorf("accepts a size in bytes up to %d, e.g. 256K, 4M, 4MiB, 4MB (K/M/G are binary, KB/MB/GB decimal)", v.max)
	}
	*v.p = n
	return nil
}

// SizeVarP defines a byte-size flag (256K, 4M, 4MiB, 4MB) up to max.
func SizeVarP(fs *pflag.FlagSet, p *int64, name, short string, max int64, usage string) {
	fs.VarP(&sizeValue{p: p, max: max}, name, short, usage)
}

type rateValue struct{ p *float64 }

func (v *rateValue) String() string { return strconv.FormatFloat(*v.p, 'f', -1, 64) }
func (v *rateValue) Type() string   { return "rate" }
func (v *rateValue) Set(s string) error {
	// iperf3 allows "rate/burst" (a packet count); the burst is accepted
	// and ignored. "/s" is a unit (125MB/s), not a burst.
	if i := strings.LastIndexByte(s, '/'); i > 0 && i < len(s)-1 && strings.Trim(s[i+1:], "0123456789") == "" {
		s = s[:i]
	}
	r, err := units.ParseRate(s)
	if err != nil {
		return fmt.Errorf("accepts a rate in bits/s, e.g. 100M, 1gbit, 2.5G, 500mbit, or bytes/s, e.g. 125MB/s (0 = unlimited): %v", err)
	}
	*v.p = r
	return nil
}

type pathRateValue struct {
	p   *float64
	how *string
}

func (v *pathRateValue) String() string { return strconv.FormatFloat(*v.p, 'f', -1, 64) }
func (v *pathRateValue) Type() string   { return "rate" }
func (v *pathRateValue) Set(s string) error {
	r, how, err := units.ParsePathRate(s)
	if err != nil {
		return fmt.Errorf("accepts a path's rate with its unit, bits (1gbit, 10G, 500Mbit/s) or bytes (125MB/s): %v", err)
	}
	*v.p = r
	if v.how != nil {
		*v.how = how
	}
	return nil
}

// PathRateVarP defines the rate of a path or link (advise, doctor,
// tune): a unit is required and the rate lies within 1 Mbit/s ..
// 1 Tbit/s (units.ParsePathRate); how, if not nil, gets the reading in
// the user's unit and in bits, to echo.
func PathRateVarP(fs *pflag.FlagSet, p *float64, how *string, name, short string, usage string) {
	fs.VarP(&pathRateValue{p: p, how: how}, name, short, usage)
}

// RateVarP defines a bit-rate flag (100M, 1gbit; iperf3's "rate/burst"
// takes the rate).
func RateVarP(fs *pflag.FlagSet, p *float64, name, short string, usage string) {
	fs.VarP(&rateValue{p: p}, name, short, usage)
}

type secondsValue struct {
	p        *time.Duration
	min, max time.Duration
	zeroOK   bool
}

func (v *secondsValue) String() string { return strconv.FormatFloat(v.p.Seconds(), 'f', -1, 64) }
func (v *secondsValue) Type() string   { return "seconds" }
func (v *secondsValue) Set(s string) error {
	d, err := units.ParseDuration(s)
	if err == nil && ((d == 0 && v.zeroOK) || (d >= v.min && d <= v.max)) {
		*v.p = d
		return nil
	}
	zero := ""
	if v.zeroOK {
		zero = "0 or "
	}
	return fmt.Errorf("accepts %s%g..%g seconds (e.g. 1, 0.5, 500ms)", zero, v.min.Seconds(), v.max.Seconds())
}

// SecondsVarP defines a duration flag in seconds (1, 0.5, 500ms) within
// min..max, or 0 when zeroOK.
func SecondsVarP(fs *pflag.FlagSet, p *time.Duration, name, short string, def, min, max time.Duration, zeroOK bool, usage string) {
	*p = def
	fs.VarP(&secondsValue{p: p, min: min, max: max, zeroOK: zeroOK}, name, short, usage)
}

// Format is iperf3's -f: k m g t (bits), K M G T (bytes), a (adaptive:
// stored as 0).
func Format(p *byte) pflag.Value { return &formatValue{p} }

type formatValue struct{ p *byte }

func (v *formatValue) String() string {
	if *v.p == 0 {
		return "a"
	}
	return string(*v.p)
}
func (v *formatValue) Type() string { return "unit" }
func (v *formatValue) Set(s string) error {
	if len(s) != 1 || !containsByte("kmgtKMGTa", s[0]) {
		return fmt.Errorf("accepts one of k, m, g, t (bits), K, M, G, T (bytes) or a (adaptive)")
	}
	*v.p = s[0]
	return nil
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// KeepAlive is --cntl-ka[=IDLE/INTERVAL/COUNT].
func KeepAlive(p **net.KeepAliveConfig) pflag.Value { return &keepAliveValue{p} }

type keepAliveValue struct{ p **net.KeepAliveConfig }

func (v *keepAliveValue) String() string { return "" }
func (v *keepAliveValue) Type() string   { return "idle/intv/cnt" }
func (v *keepAliveValue) Set(s string) error {
	ka, err := client.ParseKeepAlive(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*v.p = &ka
	return nil
}

// ExpandPrefixes spells out long options given as an unambiguous prefix
// (--bid for --bidir), as getopt_long allows iperf3's users; an exact
// name always wins. A prefix that fits several is refused with
// getopt_long's words. Arguments after "--" are left alone.
func ExpandPrefixes(fs *pflag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		if fs.Lookup(name) != nil {
			out = append(out, a)
			continue
		}
		var fits []string
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.HasPrefix(f.Name, name) && !f.Hidden {
				fits = append(fits, f.Name)
			}
		})
		switch len(fits) {
		case 0:
			out = append(out, a) // pflag says it is unknown
		case 1:
			if hasVal {
				out = append(out, "--"+fits[0]+"="+val)
			} else {
				out = append(out, "--"+fits[0])
			}
		default:
			sort.Strings(fits)
			return nil, fmt.Errorf("option '--%s' is ambiguous; possibilities: '--%s'", name, strings.Join(fits, "' '--"))
		}
	}
	return out, nil
}

// OneLine rewrites pflag's message for a bad value ("invalid argument
// "x" for "-t, --time" flag: accepts ...") as one line that names the
// flag first, as iperf3 users expect: "-t/--time: accepts ... (got x)".
// Other errors pass unchanged.
func OneLine(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "invalid argument "); i >= 0 {
		if j := strings.Index(msg, " for \""); j > 0 {
			rest := msg[j+6:]
			if k := strings.Index(rest, "\" flag: "); k > 0 {
				name := strings.ReplaceAll(rest[:k], ", ", "/")
				return fmt.Errorf("%s: %s (got %s)", name, rest[k+8:], msg[i+17:j])
			}
		}
	}
	return err
}

// FirstChanged is the first of names that the command line set ("" if
// none): for a rule such as "these flags only with --lab".
func FirstChanged(fs *pflag.FlagSet, names ...string) string {
	for _, n := range names {
		if fs.Changed(n) {
			return n
		}
	}
	return ""
}

// iperf3ClientOnly are the options iperf3 3.22's server refuses as
// "client only" (with tcptune's own client options beside them).
const iperf3ClientOnly = "bidir bitrate blockcount bytes congestion connect-timeout dont-fragment dscp extra-data flowlabel fq-rate " +
	"get-server-output gsro length no-delay nstreams omit pacing-timer parallel repeating-payload reverse rsa-public-key-path " +
	"sctp set-mss skip-rx-copy time title tos udp udp-counters-64bit username window zerocopy " +
	"repeat busy-wait cc-from-start"

// ClientOnly is the first option given on fs that only iperf3's client
// takes, refused as iperf3's server refuses it; nil when there is none.
func ClientOnly(fs *pflag.FlagSet) error {
	name := FirstChanged(fs, strings.Fields(iperf3ClientOnly)...)
	if name == "" {
		return nil
	}
	label := "--" + name
	if short := fs.Lookup(name).Shorthand; short != "" {
		label = "-" + short + "/" + label
	}
	return fmt.Errorf("%s: a client's option, refused with -s as iperf3 refuses it (some option you are trying to set is client only)", label)
}
