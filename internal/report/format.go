package report

import (
	"fmt"
	"strings"
)

// num formats as iperf3's unit_snprintf: 4 significant-ish digits.
func num(v float64) string {
	switch {
	case v < 9.995:
		return fmt.Sprintf("%4.2f", v)
	case v < 99.95:
		return fmt.Sprintf("%4.1f", v)
	}
	return fmt.Sprintf("%4.0f", v)
}

// Bytes formats a byte count with binary units ("3.46 GBytes").
func Bytes(b float64) string {
	switch {
	case b >= 1<<40:
		return num(b/(1<<40)) + " TBytes"
	case b >= 1<<30:
		return num(b/(1<<30)) + " GBytes"
	case b >= 1<<20:
		return num(b/(1<<20)) + " MBytes"
	case b >= 1<<10:
		return num(b/(1<<10)) + " KBytes"
	}
	return num(b) + " Bytes"
}

// Rate formats bits/s with decimal units, or in a fixed unit given by
// iperf3's -f letter (k m g t for bits, K M G T for bytes).
func Rate(bps float64, unit byte) string {
	scale := func(div float64, name string) string { return num(bps/div) + " " + name }
	switch unit {
	case 'k':
		return scale(1e3, "Kbits/sec")
	case 'm':
		return scale(1e6, "Mbits/sec")
	case 'g':
		return scale(1e9, "Gbits/sec")
	case 't':
		return scale(1e12, "Tbits/sec")
	case 'K':
		return scale(8*1024, "KBytes/sec")
	case 'M':
		return scale(8*(1<<20), "MBytes/sec")
	case 'G':
		return scale(8*(1<<30), "GBytes/sec")
	case 'T':
		return scale(8*(1<<40), "TBytes/sec")
	}
	switch {
	case bps >= 1e12:
		return scale(1e12, "Tbits/sec")
	case bps >= 1e9:
		return scale(1e9, "Gbits/sec")
	case bps >= 1e6:
		return scale(1e6, "Mbits/sec")
	case bps >= 1e3:
		return scale(1e3, "Kbits/sec")
	}
	return scale(1, "bits/sec")
}

// RTT formats microseconds.
func RTT(us uint32) string {
	if us >= 10000 {
		return fmt.Sprintf("%.1f ms", float64(us)/1000)
	}
	if us >= 1000 {
		return fmt.Sprintf("%.2f ms", float64(us)/1000)
	}
	return fmt.Sprintf("%d us", us)
}

// id renders iperf3's "[  5]" or "[SUM]" stream tag, with a role suffix
// in --bidir ("[  5][TX-C]").
func id(n int, role string) string {
	var s string
	if n < 0 {
		s = "[SUM]"
	} else {
		s = fmt.Sprintf("[%3d]", n)
	}
	if role != "" {
		s += "[" + role + "]"
	}
	return s
}

func interval(start, end float64) string {
	return fmt.Sprintf("%6.2f-%-6.2f sec", start, end)
}

const separator = "- - - - - - - - - - - - - - - - - - - - - - - - -"

func pad(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return s + strings.Repeat(" ", n-len(s))
}
