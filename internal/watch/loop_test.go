package watch

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/metricsrv"
	"github.com/tcptune/tcptune/internal/procnet"
)

// counting is a source whose PruneCalled grows by 5 a sample.
type counting struct{ n *int }

func (c counting) Sample() (Sample, error) {
	*c.n++
	return Sample{Time: time.Unix(int64(*c.n), 0), Counters: procnet.Counters{"TcpExt.PruneCalled": int64(5 * *c.n)}}, nil
}

func TestRunEmitsCountIntervals(t *testing.T) {
	n := 0
	var got []Report
	err := Run(context.Background(), counting{&n}, time.Millisecond, 3, func(r Report) error { got = append(got, r); return nil })
	if err != nil || len(got) != 3 || n != 4 {
		t.Fatalf("err %v, %d reports from %d samples", err, len(got), n)
	}
	for _, r := range got {
		if r.Seconds != 1 {
			t.Errorf("interval %g s, want the samples' 1 s", r.Seconds)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, counting{&n}, time.Hour, 0, func(Report) error { t.Error("emitted after the end"); return nil }); err != nil {
		t.Fatalf("an ended context is a normal end: %v", err)
	}
}

func TestPrinterFormats(t *testing.T) {
	r := Diff(Sample{Time: time.Unix(1, 0)}, Sample{Time: time.Unix(2, 0)})
	var b strings.Builder
	Printer(&b, JSONLines)(r)
	var back Report
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || strings.Count(b.String(), "\n") != 1 {
		t.Fatalf("not one JSON line: %v %q", err, b.String())
	}
	b.Reset()
	Printer(&b, Screen)(r)
	if !strings.HasPrefix(b.String(), "\033[H\033[2J") {
		t.Fatalf("screen: %q", b.String())
	}
}

func TestServeMetricsOnLoopback(t *testing.T) {
	n := 0
	at, stop, err := metricsrv.Serve(":0", NewCollector(counting{&n}))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.HasPrefix(at.String(), "127.0.0.1:") {
		t.Fatalf("listening on %s, want loopback", at)
	}
	resp, err := http.Get("http://" + at.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "PruneCalled") && !strings.Contains(string(body), "prune") {
		t.Fatalf("metrics:\n%.2000s", body)
	}
}
