package client

import (
	"encoding/json"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/result"
)

// Observer is told of a test as it runs: the lines iperf3 prints on the
// way (Textf), warnings, the test's description once its streams are
// connected, each interval, the end, the server's output and a failure.
// Run calls it from its own goroutines, one call at a time per test.
// report.Printer is the observer that renders iperf3's output; Discard
// is that of a caller who only wants the Outcome.
type Observer interface {
	Textf(format string, args ...any)
	Warnf(format string, args ...any)
	Start(m result.Meta, localSends, tcpInfo bool)
	Interval(iv engine.Interval)
	End(s result.Summary, ext any)
	ServerOutput(js json.RawMessage, text string)
	Error(err error)
}

// Discard is an Observer that keeps nothing.
type Discard struct{}

func (Discard) Textf(string, ...any)                 {}
func (Discard) Warnf(string, ...any)                 {}
func (Discard) Start(result.Meta, bool, bool)        {}
func (Discard) Interval(engine.Interval)             {}
func (Discard) End(result.Summary, any)              {}
func (Discard) ServerOutput(json.RawMessage, string) {}
func (Discard) Error(error)                          {}
