package client

import (
	"fmt"
	"runtime"

	"github.com/tcptune/tcptune/internal/attrib"
	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/report"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/version"
	"github.com/tcptune/tcptune/internal/wire"
)

// Verdict is the limit attribution of one direction of a test.
type Verdict struct {
	Direction string        `json:"direction"` // "client→server" or "server→client"
	Result    attrib.Result `json:"result"`
	Streams   []StreamLimit `json:"streams,omitempty"`
}

// StreamLimit is one stream's attribution.
type StreamLimit struct {
	ID     int           `json:"id"`
	Result attrib.Result `json:"result"`
}

// Line is the verdict as printed under the report.
func (v Verdict) Line() string {
	return fmt.Sprintf("Limit (%s): %s", v.Direction, v.Result)
}

// inputFromExt turns a sender-side view into attribution input.
func inputFromExt(e wire.ExtStream) attrib.Input {
	// The rate the kernel delivered (it cannot exceed the path); the
	// application's writes where the sender did not count.
	bps, n := 0.0, e.Bytes
	if e.Delivered > 0 {
		n = e.Delivered
	}
	if e.Seconds > 0 {
		bps = float64(n) * 8 / e.Seconds
	}
	return attrib.Input{
		WallUS: uint64(e.Seconds * 1e6), BusyUS: e.BusyUS, RwndLimitedUS: e.RwndUS, SndbufLimitUS: e.SndbufUS,
		SndWnd: e.SndWnd, SndBuf: e.SndBuf, CwndBytes: e.Cwnd, RTTUS: uint64(e.RTT), MinRTTUS: uint64(e.MinRTT),
		Retransmits: e.Retransmits, BitsPerSecond: bps, Streams: 1,
		InflightBytes: e.Inflight, NotsentBytes: e.Notsent,
	}
}

// attribute explains each direction of the test from the sender's view:
// our own TCP_INFO when we sent, the server's (tcptune peers) when it did.
func (s *session) attribute(totals []engine.StreamTotal, sum report.Summary, ext *wire.Ext) []Verdict {
	if s.params.UDP {
		return nil
	}
	local := s.o.Host
	if len(s.meta.Connected) > 0 {
		local = s.meta.Connected[0].LocalHost
	}
	remote := s.o.Host
	if len(s.meta.Connected) > 0 {
		remote = s.meta.Connected[0].RemoteHost
	}
	remoteExt := map[int]wire.ExtStream{}
	remoteCores := runtime.NumCPU()
	if ext != nil {
		for _, e := range ext.Streams {
			remoteExt[e.ID] = e
		}
		if ext.Cores > 0 {
			remoteCores = ext.Cores
		}
	}
	var out []Verdict
	for _, dir := range []struct {
		name   string
		localS bool
	}{{"client→server", true}, {"server→client", false}} {
		var ins []attrib.Input
		var per []StreamLimit
		present := false
		missing := false
		for _, t := range totals {
			if t.Sender != dir.localS {
				continue
			}
			present = true
			var e wire.ExtStream
			var ok bool
			if dir.localS {
				e, ok = t.Ext()
			} else {
				e, ok = remoteExt[t.ID]
			}
			if !ok {
				missing = true
				continue
			}
			in := inputFromExt(e)
			s.context(&in, dir.localS, local, remote, sum, remoteCores)
			ins = append(ins, in)
			per = append(per, StreamLimit{ID: t.ID, Result: attrib.Attribute(in)})
		}
		if !present {
			continue
		}
		v := Verdict{Direction: dir.name}
		switch {
		case missing && dir.localS:
			v.Result = attrib.Unavailable(fmt.Sprintf("TCP_INFO is not available on %s", runtime.GOOS))
		case missing:
			v.Result = attrib.Unavailable("the server sends in this direction and only a tcptune server reports its TCP_INFO; the attribution needs the sender's view (run tcptune serve there)")
		default:
			merged := attrib.Merge(ins)
			v.Result = attrib.Attribute(merged)
			if len(per) > 1 {
				v.Streams = per
			}
		}
		out = append(out, v)
	}
	return out
}

// context adds what the sender's TCP_INFO does not know: CPU, the -b
// target, -w, and who is who.
func (s *session) context(in *attrib.Input, localSends bool, local, remote string, sum report.Summary, remoteCores int) {
	in.TargetRate = float64(s.params.Bandwidth)
	in.PathRate, in.IdleRTTUS = s.o.PathRate, uint64(s.o.IdleRTT.Microseconds())
	in.Window = s.params.Window
	in.SenderIsLocal = localSends
	if localSends {
		in.Sender, in.Receiver = local, remote
		in.SenderCPU, in.SenderCores, in.ReceiverCPU = sum.CPU.Total, runtime.NumCPU(), sum.RemoteCPU.Total
	} else {
		in.Sender, in.Receiver = remote, local
		in.SenderCPU, in.SenderCores, in.ReceiverCPU = sum.RemoteCPU.Total, remoteCores, sum.CPU.Total
	}
}

// Extension is the "tcptune" object of bench's -J document: what
// tcptune adds to iperf3's report. bench -J prints it; tune reads it
// from the Outcome, typed.
type Extension struct {
	Version string           `json:"version"`
	Buffers Buffers          `json:"buffers"`
	Peer    *wire.Ext        `json:"peer,omitempty"`
	Streams []wire.ExtStream `json:"streams,omitempty"`
	Limits  []Verdict        `json:"limits,omitempty"`
	Repeat  *Repeat          `json:"repeat,omitempty"`
}

// Buffers are the data sockets' buffer sizes on this host.
type Buffers struct {
	Requested    int `json:"requested"`
	SndBufActual int `json:"sndbuf_actual"`
	RcvBufActual int `json:"rcvbuf_actual"`
}

// Repeat is bench --repeat's record: each run and their statistics.
type Repeat struct {
	Runs    []RepeatRun   `json:"runs"`
	Summary stats.Summary `json:"summary"`
}

// RepeatRun is one run of --repeat.
type RepeatRun struct {
	Run           int     `json:"run"`
	BitsPerSecond float64 `json:"bits_per_second"`
	Seconds       float64 `json:"seconds"`
}

func extension(m report.Meta, totals []engine.StreamTotal, peer *wire.Ext, verdicts []Verdict) *Extension {
	return &Extension{
		Version: version.Version,
		Buffers: Buffers{Requested: m.Params.Window, SndBufActual: m.SndBufActual, RcvBufActual: m.RcvBufActual},
		Peer:    peer,
		Streams: engine.ExtStreams(totals),
		Limits:  verdicts,
	}
}

// bufferLine says what the kernel granted for the data sockets' buffers
// and, when -w was cut, by what.
func bufferLine(requested, snd, rcv int) string {
	if requested <= 0 {
		return fmt.Sprintf("Socket buffers (this host): send %s, receive %s at start; autotuned up to %s",
			report.Bytes(float64(snd)), report.Bytes(float64(rcv)), autotuneLimits())
	}
	line := fmt.Sprintf("Socket buffers (this host): requested %s (-w), granted send %s, receive %s",
		report.Bytes(float64(requested)), report.Bytes(float64(snd)), report.Bytes(float64(rcv)))
	if runtime.GOOS == "linux" {
		line += " (Linux doubles the request; autotuning is off)"
	}
	if snd < requested || rcv < requested || (runtime.GOOS == "linux" && (snd < 2*requested || rcv < 2*requested)) {
		line += fmt.Sprintf("\nWARNING: requested %s, but the kernel capped the buffers%s", units.FormatSize(float64(requested)), capReason())
	}
	return line
}
