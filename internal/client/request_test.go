package client

import (
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/wire"
)

// The rules that join flags: each bad combination is refused naming
// its flags, and the defaults that depend on other flags are iperf3's.
func TestRequestOptions(t *testing.T) {
	base := Request{Host: "h", Port: 5201, Time: 10 * time.Second, Parallel: 1, Interval: time.Second, Length: 0}
	for name, tc := range map[string]struct {
		edit func(*Request)
		err  string
	}{
		"-4 and -6":        {func(q *Request) { q.IPv4, q.IPv6 = true, true }, "-4 and -6: choose one"},
		"-R and --bidir":   {func(q *Request) { q.Reverse, q.Bidir = true, true }, "-R and --bidir: choose one"},
		"UDP length":       {func(q *Request) { q.UDP, q.Length = true, 70000 }, "-l/--length: accepts"},
		"tos words":        {func(q *Request) { q.TOS = "high" }, "-S/--tos: accepts 0..255"},
		"tos too large":    {func(q *Request) { q.TOS = "0x100" }, "-S/--tos: accepts 0..255"},
		"affinity garbage": {func(q *Request) { q.Affinity = "x" }, "-A/--affinity:"},
		"rcv-timeout sent": {func(q *Request) { q.RcvTimeout = 5000 }, "--rcv-timeout: valid only where this side receives"},
		"-t and -n":        {func(q *Request) { q.TimeSet, q.Bytes = true, 1<<20 }, "-t, -n, -k: only one test end condition"},
		"-n and -k":        {func(q *Request) { q.Bytes, q.Blocks = 1<<20, 100 }, "-t, -n, -k: only one test end condition"},
		"sctp":             {func(q *Request) { q.SCTP = true }, "--sctp: SCTP is not supported"},
	} {
		q := base
		tc.edit(&q)
		if _, _, err := q.Options(); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", name, err, tc.err)
		}
	}
	q := base
	q.UDP, q.TOS, q.Affinity, q.Format, q.IPv6 = true, "0x10", "1,2", 'a', true
	o, local, err := q.Options()
	if err != nil || o.Params.Bandwidth != wire.DefaultUDPRate || o.Params.TOS != 16 || local != 1 || o.Params.ServerAffinity != 2 || o.Unit != 0 || o.Family != "6" {
		t.Fatalf("UDP defaults: %+v local %d, %v", o, local, err)
	}
	q.BitrateSet = true // -b 0: unlimited, not UDP's default
	if o, _, _ := q.Options(); o.Params.Bandwidth != 0 {
		t.Errorf("-u -b 0: bandwidth %d", o.Params.Bandwidth)
	}
	q = base
	q.Bidir, q.RcvTimeout = true, 1500
	if o, _, err := q.Options(); err != nil || o.RcvTimeout != 1500*time.Millisecond {
		t.Errorf("--bidir --rcv-timeout 1500: %v %v", o.RcvTimeout, err)
	}
	q = base
	q.Time = 1500 * time.Millisecond // iperf3 takes -t 1.5 (as 1 s)
	if o, _, err := q.Options(); err != nil || o.Time != q.Time || o.Omit != 0 {
		t.Errorf("-t 1.5: exact %v after %v, %v", o.Time, o.Omit, err)
	}
	q = base
	q.Bytes = 100 << 20
	if o, local, err := q.Options(); err != nil || o.Params.Time != 0 || o.Params.Num != 100<<20 || local != -1 {
		t.Errorf("-n 100M: %+v %d %v", o.Params, local, err)
	}
}

func TestParseDSCP(t *testing.T) {
	for in, want := range map[string]int{"ef": 46, "AF41": 34, "0x2e": 46, "010": 8, "63": 63} {
		if got, err := ParseDSCP(in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"64", "-1", "gold"} {
		if _, err := ParseDSCP(in); err == nil || !strings.HasPrefix(err.Error(), "--dscp: accepts 0-63") {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// getopt_long's prefixes: an unambiguous one is spelled out (with its
// value), an exact name wins, an ambiguous one is refused in getopt's
// words, and nothing after "--" is touched.

// iperf3 3.22's options: refused in iperf3's words, warned about, or
// honoured (--dscp sets the TOS's upper six bits, --pacing-timer the
// server's timer, --bind-dev and --snd-timeout the sockets').
func TestRequestCompat(t *testing.T) {
	base := Request{Host: "h", Port: 5201, Time: 10 * time.Second, Parallel: 1, Interval: time.Second}
	for want, edit := range map[string]func(*Request){
		"-m/--mptcp: MPTCP is not supported":   func(q *Request) { q.MPTCP = true },
		"-F/--file: transmitting a file":       func(q *Request) { q.File = "x" },
		"--sctp: SCTP is not supported":        func(q *Request) { q.SCTP, q.NStreams = true, 2 },
		"--dscp: accepts 0-63":                 func(q *Request) { q.DSCP = "64" },
		"--pacing-timer: accepts microseconds": func(q *Request) { q.PacingTimer = "soon" },
	} {
		q := base
		edit(&q)
		if _, _, err := q.Options(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", want, err)
		}
	}
	q := base
	q.DSCP, q.PacingTimer, q.BindDev, q.SndTimeout, q.GSRO = "ef", "2K", "eth1", 5000, true
	o, _, err := q.Options()
	if err != nil || o.Params.TOS != 46<<2 || o.Params.PacingTimer != 2048 || o.Device != "eth1" || o.SndTimeout != 5000 {
		t.Fatalf("honoured: %+v %v", o, err)
	}
	if w := q.Warnings(); len(w) != 1 || !strings.Contains(w[0], "--gsro") {
		t.Errorf("warnings %q", w)
	}
	// SCTP's own options, without --sctp: iperf3 runs the TCP test.
	q = base
	q.XBind, q.NStreams = "10.0.0.1", 2
	if _, _, err := q.Options(); err != nil || len(q.Warnings()) != 1 || !strings.Contains(q.Warnings()[0], "--nstreams") {
		t.Errorf("-X/--nstreams without --sctp: %v %q", err, q.Warnings())
	}
}
