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
	"github.com/tcptune/tcptune/internal/stats"
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

// --repeat 3: one JSON document holding the three runs and their
// statistics; in text, each run's report and the summary line.
func TestRepeated(t *testing.T) {
	port := serve(t)
	o := client.Options{Host: "127.0.0.1", Port: port, Params: wire.Params{Time: 1, Parallel: 1, ServerAffinity: -1, PacingTimer: 1000, Bandwidth: 50e6}}
	var out bytes.Buffer
	if err := client.Repeated(context.Background(), o, report.JSON, 3, &out); err != nil {
		t.Fatal(err)
	}
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
	if err := client.Repeated(context.Background(), o, report.Text, 2, &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Count(s, "Run ") != 2 || !strings.Contains(s, "Repeat (2 runs): median") || strings.Contains(s, "iperf Done.") {
		t.Fatalf("text:\n%s", s)
	}
}

func TestRepeatLine(t *testing.T) {
	s := stats.Summarize([]float64{9e8, 9.5e8, 1e9}, 0.95)
	got := client.RepeatLine(s, 0)
	if !strings.HasPrefix(got, "Repeat (3 runs): median  950 Mbits/sec, min  900 Mbits/sec, max 1.00 Gbits/sec") || !strings.Contains(got, "use 6 or more") {
		t.Fatalf("%q", got)
	}
}
