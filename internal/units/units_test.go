package units

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	cases := map[string]int64{
		"131072": 131072, "4M": 4 << 20, "4MiB": 4 << 20, "4MB": 4000000,
		"256K": 256 << 10, "256k": 256 << 10, "1G": 1 << 30, "1.5K": 1536, "2GB": 2e9,
	}
	for in, want := range cases {
		got, err := ParseBytes(in)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "-4M", "4X", "1.3", "NaN"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q): want error", bad)
		}
	}
}

func TestParseRate(t *testing.T) {
	cases := map[string]float64{
		"1gbit": 1e9, "10G": 10e9, "500mbit": 500e6, "100M": 100e6, "1.5g": 1.5e9,
		"100Mbps": 100e6, "125MB/s": 1e9, "2.5gbit": 2.5e9, "0": 0, "64k": 64e3, "1Gb": 1e9,
		"1Gbit/s": 1e9, "100Mb": 100e6, "125MBps": 1e9, "125MB": 1e9, "1GB": 8e9, "100MiB/s": 100 << 20 * 8,
		"1000": 1000, "10mibit": 10 << 20, "2Gbits": 2e9, "1 MByte/s": 8e6, "1000 bytes/sec": 8000,
	}
	for in, want := range cases {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for bad, why := range map[string]string{"": "", "fast": "", "-1g": "", "1x": "", "1gb": "ambiguous", "100mbps": "tc reads", "1kb": "ambiguous", "5/s": "unknown"} {
		if _, err := ParseRate(bad); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseRate(%q): %v, want an error naming %q", bad, err, why)
		}
	}
}

func TestParsePathRate(t *testing.T) {
	for in, want := range map[string]string{
		"125MB/s": "125MB/s = 1 Gbit/s (bytes per second × 8)",
		"10gbit":  "10gbit = 10 Gbit/s",
		"1000":    "a number without a unit",
		"500k":    "outside 1 Mbit/s",
		"2Tbit":   "outside",
	} {
		_, how, err := ParsePathRate(in)
		if err != nil {
			how = err.Error()
		}
		if !strings.Contains(how, want) {
			t.Errorf("%s: %q, want %q", in, how, want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	cases := map[string]time.Duration{
		"50ms": 50 * time.Millisecond, "0.05s": 50 * time.Millisecond, "5": 5 * time.Second,
		"200us": 200 * time.Microsecond, "1m": time.Minute,
	}
	for in, want := range cases {
		got, err := ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "soon", "-5ms", "-1"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q): want error", bad)
		}
	}
}

func TestFormat(t *testing.T) {
	if got := FormatBytes(4 << 30); got != "4.00 GBytes" {
		t.Errorf("FormatBytes = %q", got)
	}
	for bps, want := range map[float64]string{
		960e6: "960 Mbit/s", 999.6e6: "1 Gbit/s", 999.4e6: "999 Mbit/s", 2.5e9: "2.5 Gbit/s",
		12.34e6: "12.3 Mbit/s", 9999: "10 kbit/s", 500: "500 bit/s", 0: "0 bit/s", 1.2345e12: "1230 Gbit/s",
	} {
		if got := FormatRateShort(bps); got != want {
			t.Errorf("FormatRateShort(%g) = %q, want %q", bps, got, want)
		}
	}
	if got := FormatRateShort(960e6); got != "960 Mbit/s" {
		t.Errorf("FormatRateShort = %q", got)
	}
}

func TestFormatIEC(t *testing.T) {
	for b, want := range map[float64]string{65536: "64 KiB", 4194304: "4 MiB", 1572864: "1.5 MiB", 100: "100 B", 1 << 30: "1 GiB"} {
		if got := FormatIEC(b); got != want {
			t.Errorf("%v: %q, want %q", b, got, want)
		}
	}
}

func TestFormatRateFlagParsesBack(t *testing.T) {
	for _, bps := range []float64{1e9, 2.5e9, 100e6, 9.65e8, 10e9, 40e3, 123} {
		s := FormatRateFlag(bps)
		got, err := ParseRate(s)
		if err != nil || math.Abs(got-bps) > bps*1e-3 {
			t.Errorf("%v → %q → %v, %v", bps, s, got, err)
		}
		if strings.ContainsAny(s, " /") {
			t.Errorf("%q is not one flag word", s)
		}
	}
}
