package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/units"
)

// RateLimit is iperf3's --server-bitrate-limit: a test whose streams
// together (both directions) average more than Bits a second over Every
// is ended with iperf3's error 27, and one whose -b × streams asks for
// more is refused at once.
type RateLimit struct {
	Bits  float64
	Every time.Duration
}

// Set reads RATE[/SECONDS] ("100M", "1G/10"; the averaging interval
// is 5 s unless given, as iperf3's), so that a RateLimit is a flag.
func (l *RateLimit) Set(s string) error {
	rate, secs := s, "5"
	if i := strings.IndexByte(s, '/'); i >= 0 {
		rate, secs = s[:i], s[i+1:]
	}
	bits, err := units.ParseRate(rate)
	n, serr := strconv.Atoi(secs)
	if err != nil || bits < 0 || serr != nil || n < 1 || n > 3600 {
		return fmt.Errorf("accepts RATE[/SECONDS], a rate (e.g. 100M, 1gbit; 0 = none) averaged over 1..3600 s (default 5)")
	}
	*l = RateLimit{Bits: bits, Every: time.Duration(n) * time.Second}
	return nil
}

func (l *RateLimit) String() string {
	if l.Bits <= 0 {
		return ""
	}
	return fmt.Sprintf("%g/%d", l.Bits, int(l.Every.Seconds()))
}

func (l *RateLimit) Type() string { return "rate[/seconds]" }

// asks is whether a test's own pacing (-b per stream) already asks for
// more than the limit.
func (l RateLimit) asks(bandwidth int64, streams int) bool {
	return l.Bits > 0 && bandwidth > 0 && float64(bandwidth)*float64(streams) > l.Bits
}

// rateWindow holds a test's byte count once a second for the limit's
// averaging interval (at most 3600 samples).
type rateWindow struct {
	l       RateLimit
	at      []time.Time
	counted []int64
}

// over records the test's total at now and says whether the average
// over the last interval is above the limit.
func (w *rateWindow) over(now time.Time, total int64) bool {
	if w.l.Bits <= 0 || (len(w.at) > 0 && now.Sub(w.at[len(w.at)-1]) < time.Second) {
		return false
	}
	w.at, w.counted = append(w.at, now), append(w.counted, total)
	if now.Sub(w.at[0]) < w.l.Every {
		return false
	}
	for len(w.at) > 1 && now.Sub(w.at[1]) >= w.l.Every {
		w.at, w.counted = w.at[1:], w.counted[1:]
	}
	return float64(total-w.counted[0])*8/now.Sub(w.at[0]).Seconds() > w.l.Bits
}
