package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/wire"
)

// liveHeap is the heap still in use after a collection: unlike the RSS,
// which keeps pages the runtime has freed but not yet returned, it grows
// only with what the server keeps.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func rss() string {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return "?"
	}
	var size, res int64
	fmt.Sscan(string(b), &size, &res)
	return strconv.FormatInt(res*int64(os.Getpagesize())>>20, 10) + " MiB"
}

// A ten-minute test at -i 0.1 (6000 intervals, the clock simulated) must
// not grow the server's memory with its length, in text mode with
// --get-server-output and in JSON mode. What it keeps is bounded, and
// reaches its bound within the first five minutes: from the fifth minute
// to the tenth the live heap grows by less than 256 KiB (without the
// bounds it grew by 0.8 MiB in text mode and 3 MiB in JSON mode).
func TestLongTestMemoryIsBounded(t *testing.T) {
	for _, mode := range []report.Mode{report.Text, report.JSON} {
		t.Run(map[report.Mode]string{report.Text: "text", report.JSON: "json"}[mode], func(t *testing.T) {
			ticks := make(chan time.Time)
			_, addr, logs := startServer(t, Options{Mode: mode, Interval: 100 * time.Millisecond, Out: io.Discard, ticks: ticks})
			h, p, _ := net.SplitHostPort(addr)
			port, _ := strconv.Atoi(p)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				o := client.Options{Host: h, Port: port, Params: wire.Params{Time: 600, Parallel: 1, Bandwidth: 10e6,
					GetServerOutput: true, ServerAffinity: -1, PacingTimer: 1000}}
				_, err := client.Run(ctx, o, report.NewPrinter(io.Discard, report.Text))
				done <- err
			}()
			defer func() { cancel(); <-done }()
			clock := time.Now()
			tick := func(n int) {
				for range n {
					clock = clock.Add(100 * time.Millisecond)
					select {
					case ticks <- clock:
					case err := <-done:
						t.Fatalf("the test ended early: %v\n%s", err, logs.String())
					case <-time.After(20 * time.Second):
						t.Fatalf("the server took no interval for 20 s\n%s", logs.String())
					}
				}
			}
			tick(3000) // five minutes
			before, rssBefore := liveHeap(), rss()
			tick(3000) // to the tenth
			after := liveHeap()
			t.Logf("live heap after 5 min %d KiB, after 10 min %d KiB (RSS %s, then %s)", before>>10, after>>10, rssBefore, rss())
			if grew := int64(after) - int64(before); grew > 256<<10 {
				t.Errorf("the live heap grew by %d KiB over five simulated minutes", grew>>10)
			}
		})
	}
}
