package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/tcptune/tcptune/internal/engine"
)

// Mode selects the output format.
type Mode int

// Output modes: iperf3's text, -J (one document at the end) and
// --json-stream (one event per line).
const (
	Text Mode = iota
	JSON
	JSONStream
)

// Printer writes one test's report in the chosen mode. In JSON mode it
// collects the document and writes it once, at Flush.
type Printer struct {
	W    io.Writer
	Mode Mode

	mu         sync.Mutex
	meta       Meta
	doc        Document
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

// Start records the test's description.
func (p *Printer) Start(m Meta, localSends, tcpInfo bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.meta, p.localSends, p.tcpInfo = m, localSends, tcpInfo
	p.doc.Start = StartObj(m)
	p.doc.Title, p.doc.Extra = m.Params.Title, m.Params.ExtraData
	if p.Mode == JSONStream {
		p.event("start", p.doc.Start)
	}
}

// Interval reports one interval.
func (p *Printer) Interval(iv engine.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	obj := IntervalObj(iv)
	switch p.Mode {
	case JSON:
		p.doc.Intervals = append(p.doc.Intervals, obj)
	case JSONStream:
		p.event("interval", obj)
	default:
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
func (p *Printer) End(s Summary, ext any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doc.End = EndObj(s)
	p.doc.Tcptune = ext
	switch p.Mode {
	case JSONStream:
		p.event("end", p.doc.End)
		if ext != nil {
			p.event("tcptune", ext)
		}
	case Text:
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
	switch p.Mode {
	case JSONStream:
		if len(js) > 0 {
			p.event("server_output_json", js)
		} else if text != "" {
			p.event("server_output_text", text)
		}
	case Text:
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
	if p.Mode == JSONStream {
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
	return p.doc
}

// Flush writes the -J document (JSON mode only).
func (p *Printer) Flush() {
	if p.Mode != JSON {
		return
	}
	p.W.Write(Indent(p.Document()))
}
