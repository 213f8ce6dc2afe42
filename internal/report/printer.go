package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/result"
)

// Mode selects the output format.
type Mode int

// Output modes: iperf3's text, -J (one document at the end),
// --json-stream (one event per line) and --json-stream-full-output (the
// events, then the -J document, as iperf3 3.20+ prints them).
const (
	Text Mode = iota
	JSON
	JSONStream
	JSONStreamFull
)

// Streams reports whether the mode writes events as they happen.
// ModeOf is the output mode iperf3's flags ask for: -J (json),
// --json-stream (stream), --json-stream-full-output (full, which implies
// --json-stream); -J with either of the others is refused.
func ModeOf(json, stream, full bool) (Mode, error) {
	switch {
	case json && (stream || full):
		return Text, errors.New("-J and --json-stream: choose one")
	case json:
		return JSON, nil
	case full:
		return JSONStreamFull, nil
	case stream:
		return JSONStream, nil
	}
	return Text, nil
}

func (m Mode) Streams() bool { return m == JSONStream || m == JSONStreamFull }

// Collects reports whether the mode writes the -J document at Flush.
func (m Mode) Collects() bool { return m == JSON || m == JSONStreamFull }

// Printer writes one test's report in the chosen mode. In JSON mode it
// collects the document and writes it once, at Flush.
type Printer struct {
	W    io.Writer
	Mode Mode
	// MaxIntervals bounds the intervals the document keeps (0 = all):
	// the first and the last halves are kept, and IntervalsLeftOut
	// counts the rest. A server sets it.
	MaxIntervals int
	// Err takes the warnings of the JSON modes (nil drops them).
	Err io.Writer

	mu         sync.Mutex
	meta       result.Meta
	doc        Document
	intervals  headTail[Obj]
	headerDone bool
	localSends bool
	tcpInfo    bool
}

// NewPrinter returns a Printer.
func NewPrinter(w io.Writer, mode Mode) *Printer { return &Printer{W: w, Mode: mode} }

// Textf prints a line in text mode only.
func (p *Printer) Textf(format string, args ...any) {
	if p.Mode != Text {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.W, format+"\n", args...)
}

func (p *Printer) event(name string, data any) { p.W.Write(EventLine(name, data)) }

// EventLine is one --json-stream line: {"event":name,"data":data}.
func EventLine(name string, data any) []byte {
	b, err := json.Marshal(Obj{{"event", name}, {"data", data}})
	if err != nil {
		b, _ = json.Marshal(Obj{{"event", "error"}, {"data", err.Error()}})
	}
	return append(b, '\n')
}

// Start records the test's description; in text it prints iperf3's
// line for each connected stream.
func (p *Printer) Start(m result.Meta, localSends, tcpInfo bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.meta, p.localSends, p.tcpInfo = m, localSends, tcpInfo
	p.doc.Start = StartObj(m)
	p.doc.Title, p.doc.Extra = m.Params.Title, m.Params.ExtraData
	switch {
	case p.Mode.Streams():
		p.event("start", p.doc.Start)
	case p.Mode == Text:
		for _, c := range m.Connected {
			fmt.Fprintln(p.W, ConnectedLine(c))
		}
	}
}

// Warnf prints a warning: in text with the report, in the JSON modes
// to Err (iperf3 writes them to standard error there; nil drops them),
// so the document stays one JSON value.
func (p *Printer) Warnf(format string, args ...any) {
	if p.Mode == Text {
		p.Textf(format, args...)
		return
	}
	if p.Err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		fmt.Fprintf(p.Err, format+"\n", args...)
	}
}

// Interval reports one interval.
func (p *Printer) Interval(iv engine.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	obj := IntervalObj(iv)
	if p.Mode.Collects() {
		p.intervals.max = p.MaxIntervals
		p.intervals.add(obj)
	}
	switch {
	case p.Mode.Streams():
		p.event("interval", obj)
	case p.Mode == Text:
		if !p.headerDone {
			fmt.Fprintln(p.W, Header(p.meta, p.localSends, p.tcpInfo))
			p.headerDone = true
		}
		for _, l := range IntervalLines(p.meta, iv) {
			fmt.Fprintln(p.W, l)
		}
	}
}

// End reports the summary; ext goes under the "tcptune" key.
func (p *Printer) End(s result.Summary, ext any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doc.End = EndObj(s)
	p.doc.Tcptune = ext
	switch {
	case p.Mode.Streams():
		p.event("end", p.doc.End)
		if ext != nil {
			p.event("tcptune", ext)
		}
	case p.Mode == Text:
		for _, l := range EndLines(p.meta, s) {
			fmt.Fprintln(p.W, l)
		}
	}
}

// ServerOutput attaches the server's output (--get-server-output).
func (p *Printer) ServerOutput(js json.RawMessage, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doc.ServerOut, p.doc.ServerTxt = js, text
	switch {
	case p.Mode.Streams():
		if len(js) > 0 {
			p.event("server_output_json", js)
		} else if text != "" {
			p.event("server_output_text", text)
		}
	case p.Mode == Text:
		if text != "" {
			fmt.Fprintf(p.W, "\nServer output:\n%s", text)
		}
	}
}

// Error records a failure.
func (p *Printer) Error(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doc.Error = err.Error()
	if p.Mode.Streams() {
		p.event("error", p.doc.Error)
	}
}

// SetExt replaces the "tcptune" extension object.
func (p *Printer) SetExt(ext any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doc.Tcptune = ext
}

// Document returns the collected -J document.
func (p *Printer) Document() Document {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.doc
	d.Intervals = p.intervals.items()
	return d
}

// IntervalsLeftOut is how many intervals MaxIntervals left out of the
// document.
func (p *Printer) IntervalsLeftOut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.intervals.dropped
}

// Flush writes the -J document (the modes that collect it).
func (p *Printer) Flush() {
	if !p.Mode.Collects() {
		return
	}
	p.W.Write(Indent(p.Document()))
}
