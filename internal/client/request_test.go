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
	base := Request{Host: "h", Port: 5201, Time: 10, Parallel: 1, Interval: time.Second, Length: 0}
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
	q.Bytes = 100 << 20
	if o, local, err := q.Options(); err != nil || o.Params.Time != 0 || o.Params.Num != 100<<20 || local != -1 {
		t.Errorf("-n 100M: %+v %d %v", o.Params, local, err)
	}
}
