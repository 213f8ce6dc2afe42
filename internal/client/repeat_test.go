package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/server"
	"github.com/tcptune/tcptune/internal/wire"
)

func serve(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s := server.New(server.Options{Port: port, Interval: time.Second, Out: io.Discard, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return port
}

// --repeat 3: the series, typed (three runs, their statistics), and as
// bench renders it: one JSON document holding the three runs and their
// statistics; in text, each run's report and the summary line.
func TestRepeated(t *testing.T) {
	port := serve(t)
	o := client.Options{Host: "127.0.0.1", Port: port, Params: wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, PacingTimer: 1000, Bandwidth: 50e6}}
	var out bytes.Buffer
	runs := &report.Runs{W: &out, Mode: report.JSON, N: 3}
	series, err := client.Repeated(context.Background(), o, 3, func(i int) client.Observer { return runs.Run(i) })
	if err != nil {
		t.Fatal(err)
	}
	if len(series.Runs) != 3 || series.Stats == nil || series.Stats.N != 3 || series.Last == nil || series.Runs[2].BitsPerSecond != series.Last.Received() {
		t.Fatalf("series: %+v", series)
	}
	series.Last.Ext.Repeat = series.Repeat()
	runs.Done(series.Stats, 0, series.Last.Ext, series.Repeat())
	var doc struct {
		End     map[string]any `json:"end"`
		Tcptune struct {
			Repeat client.Repeat `json:"repeat"`
		} `json:"tcptune"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out.String())
	}
	r := doc.Tcptune.Repeat
	if len(r.Runs) != 3 || r.Summary.N != 3 || r.Summary.Median < 40e6 || r.Summary.Median > 55e6 || doc.End == nil {
		t.Fatalf("repeat: %+v", r)
	}
	out.Reset()
	runs = &report.Runs{W: &out, Mode: report.Text, N: 2}
	series, err = client.Repeated(context.Background(), o, 2, func(i int) client.Observer { return runs.Run(i) })
	if err != nil {
		t.Fatal(err)
	}
	runs.Done(series.Stats, 0, series.Last.Ext, series.Repeat())
	if s := out.String(); strings.Count(s, "Run ") != 2 || strings.Count(s, "connected to 127.0.0.1") != 2 || !strings.Contains(s, "Repeat (2 runs): median") || strings.Contains(s, "iperf Done.") {
		t.Fatalf("text:\n%s", s)
	}
	// One run: no statistics, iperf3's last line.
	series, err = client.Repeated(context.Background(), o, 1, func(int) client.Observer { return client.Discard{} })
	if err != nil || len(series.Runs) != 1 || series.Stats != nil || series.Repeat() != nil {
		t.Fatalf("one run: %+v, %v", series, err)
	}
}
