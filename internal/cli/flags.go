package cli

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/units"
)

// Flag values that validate as they parse, so that a bad flag gets one
// line naming the flag and what it accepts.

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

func intVarP(fs *pflag.FlagSet, p *int, name, short string, def, min, max int, what, usage string) {
	*p = def
	fs.VarP(&intValue{p: p, min: min, max: max, what: what}, name, short, usage)
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

func sizeVarP(fs *pflag.FlagSet, p *int64, name, short string, max int64, usage string) {
	fs.VarP(&sizeValue{p: p, max: max}, name, short, usage)
}

type rateValue struct{ p *float64 }

func (v *rateValue) String() string { return strconv.FormatFloat(*v.p, 'f', -1, 64) }
func (v *rateValue) Type() string   { return "rate" }
func (v *rateValue) Set(s string) error {
	// iperf3 allows "rate/burst"; the burst is accepted and ignored.
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			s = s[:i]
			break
		}
	}
	r, err := units.ParseRate(s)
	if err != nil {
		return fmt.Errorf("accepts a bit rate, e.g. 100M, 1gbit, 2.5G, 500mbit (0 = unlimited)")
	}
	*v.p = r
	return nil
}

func rateVarP(fs *pflag.FlagSet, p *float64, name, short string, usage string) {
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

func secondsVarP(fs *pflag.FlagSet, p *time.Duration, name, short string, def, min, max time.Duration, zeroOK bool, usage string) {
	*p = def
	fs.VarP(&secondsValue{p: p, min: min, max: max, zeroOK: zeroOK}, name, short, usage)
}

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

// keepAliveValue is --cntl-ka[=IDLE/INTERVAL/COUNT].
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
