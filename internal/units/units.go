// Package units parses and formats the quantities network engineers type:
// byte sizes (4M, 4MiB, 4MB), bit rates (1gbit, 10G, 500mbit) and
// durations (50ms, 0.05s), following iperf3, tc and sysctl habits.
//
// Sizes: a bare K/M/G/T suffix and the IEC forms KiB/MiB/GiB/TiB are
// binary (×1024), as in iperf3's -w/-l/-n and in sysctl values; the SI
// forms KB/MB/GB/TB are decimal (×1000). Rates are decimal (k=1e3,
// m=1e6, g=1e9, t=1e12; Ki, Mi, Gi, Ti binary, as tc), bits per second
// by default as in iperf3's -b; a capital B (MB/s, MBps, MB) or "byte"
// means bytes per second and is multiplied by 8 (see ReadRate).
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// splitNumber splits "12.5MiB" into 12.5 and "MiB".
func splitNumber(s string) (float64, string, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || (i == 0 && (s[i] == '+' || s[i] == '-'))) {
		i++
	}
	if i == 0 {
		return 0, "", fmt.Errorf("%q is not a number", s)
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("%q is not a number", s)
	}
	return v, strings.TrimSpace(s[i:]), nil
}

var sizeSuffix = map[string]float64{
	"": 1, "b": 1, "byte": 1, "bytes": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// ParseBytes parses a byte size such as "4M" (4 MiB), "4MiB", "4MB"
// (4,000,000) or "131072". Negative and fractional byte counts are errors.
func ParseBytes(s string) (int64, error) {
	v, suf, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	mult, ok := sizeSuffix[strings.ToLower(suf)]
	if !ok {
		return 0, fmt.Errorf("%q: unknown size unit %q (use K, M, G, KiB, MiB, GiB, KB, MB, GB)", s, suf)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q: size must not be negative", s)
	}
	b := v * mult
	if b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: size too large", s)
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("%q: not a whole number of bytes", s)
	}
	return int64(b), nil
}

// Rate is a rate as the user wrote it and what it was read as.
type Rate struct {
	Bits  float64 // bits per second
	Bytes bool    // written in bytes per second (×8 taken)
	Bare  bool    // a number without a unit (bits per second, as iperf3 -b)
}

// ratePrefix are the rate prefixes: SI as in iperf3 and tc (k = 1000),
// IEC as in tc (Ki = 1024).
var ratePrefix = map[string]float64{
	"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12,
	"ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30, "ti": 1 << 40,
}

// ReadRate parses a rate. Bits: 1gbit, 1Gbit/s, 100Mb, 100Mbps, 10G,
// 500M (a bare prefix is bits, as iperf3's -b reads it). Bytes, ×8: a
// capital B (125MB/s, 125MBps, 125MB, 100MiB/s) or the word byte. A
// bare number is bits per second (iperf3; tc would read bytes).
// iperf3 and tc agree on k = 1000 and on the bit words; they differ on
// "mbps", which tc reads as megabytes per second and most writing as
// megabits: an all-lower-case kbps/mbps/gbps/tbps is refused as
// ambiguous, and so is a lower-case "gb" alone (gigabit or gigabyte?).
func ReadRate(s string) (Rate, error) {
	v, suf, err := splitNumber(s)
	if err != nil {
		return Rate{}, err
	}
	if v < 0 {
		return Rate{}, fmt.Errorf("%q: rate must not be negative", s)
	}
	r := Rate{Bare: suf == ""}
	u := suf
	per := false
	for _, t := range []string{"/sec", "/s", "ps"} {
		if rest, ok := strings.CutSuffix(u, t); ok {
			u, per = rest, true
			break
		}
	}
	low := strings.ToLower(u)
	switch {
	case strings.HasSuffix(low, "bytes"), strings.HasSuffix(low, "byte"):
		r.Bytes = true
		u = u[:strings.LastIndex(low, "byte")]
	case strings.HasSuffix(low, "bits"), strings.HasSuffix(low, "bit"):
		u = u[:strings.LastIndex(low, "bit")]
	case strings.HasSuffix(u, "B"):
		r.Bytes = true
		u = strings.TrimSuffix(u, "B")
	case strings.HasSuffix(u, "b"):
		if u == strings.ToLower(u) && len(u) > 1 {
			if per {
				return Rate{}, fmt.Errorf("%q: ambiguous (tc reads %s as bytes per second, most tools as bits): write %gmbit for bits or %gMB/s for bytes", s, suf, v, v)
			}
			return Rate{}, fmt.Errorf("%q: ambiguous (bits or bytes?): write %g%sbit for bits or %g%sB/s for bytes", s, v, u[:len(u)-1], v, strings.ToUpper(u[:len(u)-1]))
		}
		u = strings.TrimSuffix(u, "b")
	case per:
		return Rate{}, fmt.Errorf("%q: unknown rate unit %q (use bit or B, e.g. 1gbit, 100Mbit/s, 125MB/s)", s, suf)
	}
	mult, ok := ratePrefix[strings.ToLower(u)]
	if !ok {
		return Rate{}, fmt.Errorf("%q: unknown rate unit %q (use k, M, G, T with bit or B, e.g. 1gbit, 500M, 125MB/s)", s, suf)
	}
	r.Bits = v * mult
	if r.Bytes {
		r.Bits *= 8
	}
	return r, nil
}

// ParseRate parses a rate as ReadRate does and returns bits/s.
func ParseRate(s string) (float64, error) {
	r, err := ReadRate(s)
	return r.Bits, err
}

// The bounds of a path's rate: below 1 Mbit/s or above 1 Tbit/s a
// value is far more likely a unit slip (1000 meant as Mbit/s, bytes for
// bits) than a path.
const (
	MinPathRate = 1e6
	MaxPathRate = 1e12
)

// ParsePathRate parses the rate of a path or link (advise, tune, doctor,
// lab): as ReadRate, but a bare number is refused (iperf3 reads bits,
// tc bytes) and so is a rate outside 1 Mbit/s .. 1 Tbit/s. It returns
// the reading, in the user's unit and in bits, for the caller to echo.
func ParsePathRate(s string) (float64, string, error) {
	r, err := ReadRate(s)
	switch {
	case err != nil:
		return 0, "", err
	case r.Bare:
		return 0, "", fmt.Errorf("%q: a number without a unit; write one: %smbit, %sgbit (bits) or %sMB/s (bytes)", s, s, s, s)
	case r.Bits < MinPathRate || r.Bits > MaxPathRate:
		return 0, "", fmt.Errorf("%q is %s: outside 1 Mbit/s .. 1 Tbit/s", s, FormatRateShort(r.Bits))
	}
	how := strings.TrimSpace(s) + " = " + FormatRateShort(r.Bits)
	if r.Bytes {
		how += " (bytes per second × 8)"
	}
	return r.Bits, how, nil
}

// ParseDuration parses "50ms", "0.05s", "2m", "1h", "250us" or a bare number
// of seconds ("5").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsNaN(f) || f > 1e9 {
			return 0, fmt.Errorf("%q: duration out of range", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 50ms, 0.05s)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q: duration must not be negative", s)
	}
	return d, nil
}

// FormatBytes formats a byte count the way iperf3 does in its text
// output: binary multiples with a "Bytes" suffix ("3.98 GBytes").
func FormatBytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GBytes", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MBytes", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.2f KBytes", b/(1<<10))
	}
	return fmt.Sprintf("%.0f Bytes", b)
}

// FormatSize formats a size compactly for explanations ("6.0 MB" uses
// decimal megabytes as network engineers quote BDPs; binary sizes get iB).
func FormatSize(b float64) string {
	switch {
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.0f KB", b/1e3)
	}
	return fmt.Sprintf("%.0f B", b)
}

// FormatIEC formats a size given in binary multiples as the user gave
// it (-w 64K is 64 KiB): KiB, MiB, GiB, exact where it is whole.
func FormatIEC(b float64) string {
	for _, u := range []struct {
		div  float64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if b >= u.div {
			v := b / u.div
			if v == float64(int64(v)) {
				return fmt.Sprintf("%d %s", int64(v), u.name)
			}
			return fmt.Sprintf("%.1f %s", v, u.name)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}

// FormatRateShort formats bits/s compactly ("960 Mbit/s").
func FormatRateShort(bps float64) string {
	// The unit follows the value rounded to three digits, so that 999.6
	// Mbit/s reads "1 Gbit/s", not "1e+03 Mbit/s".
	if bps > 0 {
		p := math.Pow(10, math.Floor(math.Log10(bps))-2)
		bps = math.Round(bps/p) * p
	}
	for _, u := range [...]struct {
		f    float64
		name string
	}{{1e9, "Gbit/s"}, {1e6, "Mbit/s"}, {1e3, "kbit/s"}} {
		if v := bps / u.f; v >= 1000 {
			return strconv.FormatFloat(v, 'f', 0, 64) + " " + u.name
		} else if v >= 1 {
			return strconv.FormatFloat(v, 'g', 3, 64) + " " + u.name
		}
	}
	return fmt.Sprintf("%.0f bit/s", bps)
}

// FormatRateFlag formats bits/s as a command-line flag value that
// ParseRate reads back ("1gbit", "2.5gbit", "100mbit"): for commands
// printed to be pasted.
func FormatRateFlag(bps float64) string {
	for _, u := range []struct {
		div  float64
		name string
	}{{1e12, "tbit"}, {1e9, "gbit"}, {1e6, "mbit"}, {1e3, "kbit"}} {
		if bps >= u.div {
			return strconv.FormatFloat(bps/u.div, 'g', 4, 64) + u.name
		}
	}
	return strconv.FormatFloat(bps, 'f', 0, 64)
}

// FormatDuration formats a duration in ms with sensible precision.
func FormatDuration(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms >= 10000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", ms/1000), ".0") + " s"
	case ms >= 1:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", ms), ".0") + " ms"
	}
	return fmt.Sprintf("%.0f µs", ms*1000)
}
