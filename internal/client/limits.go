package client

import (
	"fmt"
	"runtime"

	"github.com/tcptune/tcptune/internal/engine"
	"github.com/tcptune/tcptune/internal/limits"
	"github.com/tcptune/tcptune/internal/result"
	"github.com/tcptune/tcptune/internal/stats"
	"github.com/tcptune/tcptune/internal/sysctl"
	"github.com/tcptune/tcptune/internal/units"
	"github.com/tcptune/tcptune/internal/version"
	"github.com/tcptune/tcptune/internal/view"
	"github.com/tcptune/tcptune/internal/wire"
)

// Verdict is the limit attribution of one direction of a test.
type Verdict = limits.Verdict

// views builds the test's directions (package view) and their verdicts:
// our own TCP_INFO where we sent, the server's (tcptune peers) where it
// did.
func (s *session) views(totals []engine.StreamTotal, sum result.Summary, ext *wire.Ext, peerStreams []wire.StreamResult) []view.Direction {
	local, remote := s.o.Host, s.o.Host
	if len(s.meta.Connected) > 0 {
		local, remote = s.meta.Connected[0].LocalHost, s.meta.Connected[0].RemoteHost
	}
	remoteCores := runtime.NumCPU()
	var peer []wire.ExtStream
	var peerReceived []wire.ExtReceived
	peerDrops := int64(-1)
	if ext != nil {
		peer, peerReceived = ext.Streams, ext.Received
		if ext.Cores > 0 {
			remoteCores = ext.Cores
		}
		if ext.RcvbufErrors != nil {
			peerDrops = *ext.RcvbufErrors
		}
	}
	return view.Build(view.Input{Side: view.Client, Totals: totals, Peer: peer, PeerReceived: peerReceived, UDP: s.params.UDP,
		PeerStreams: peerStreams, LocalRcvbufErrors: s.test.RcvbufErrors(), PeerRcvbufErrors: peerDrops,
		Context: func(localSends bool) limits.Context {
			c := limits.Context{
				TargetRate: float64(s.params.Bandwidth), Window: s.params.Window,
				PathRate: s.o.PathRate, PathMSS: s.o.PathMSS, IdleRTTUS: uint64(s.o.IdleRTT.Microseconds()), SenderIsLocal: localSends,
				Sender: local, Receiver: remote, SenderCPU: sum.CPU.Total, SenderCores: runtime.NumCPU(), ReceiverCPU: sum.RemoteCPU.Total,
			}
			c.Concurrent = s.params.Bidirectional
			if !localSends {
				c.Sender, c.Receiver = remote, local
				c.SenderCPU, c.SenderCores, c.ReceiverCPU = sum.RemoteCPU.Total, remoteCores, sum.CPU.Total
				c.RecvBufMax = sysctl.Host().Int("net.ipv4.tcp_rmem", 2)
			}
			return c
		}})
}

// verdicts are the directions' verdicts.
func verdicts(views []view.Direction) []Verdict {
	var out []Verdict
	for _, v := range views {
		out = append(out, v.Verdict)
	}
	return out
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

func extension(m result.Meta, totals []engine.StreamTotal, peer *wire.Ext, verdicts []Verdict) *Extension {
	return &Extension{
		Version: version.Version,
		Buffers: Buffers{Requested: m.Params.Window, SndBufActual: m.SndBufActual, RcvBufActual: m.RcvBufActual},
		Peer:    peer,
		Streams: view.ExtStreams(totals),
		Limits:  verdicts,
	}
}

// bufferLine says what the kernel granted for the data sockets' buffers
// and, when -w was cut, by what; in binary units (KiB, MiB), as -w is
// given. A UDP socket is not autotuned: its buffers are the defaults
// (net.core.rmem_default, wmem_default) unless -w sets them.
func bufferLine(requested, snd, rcv int, udp bool) string {
	if requested <= 0 {
		limit := "autotuned up to " + autotuneLimits()
		if udp {
			limit = "not autotuned (UDP: -w sets them, up to net.core.rmem_max / wmem_max)"
		}
		return fmt.Sprintf("Socket buffers (this host): send %s, receive %s at start; %s",
			units.FormatIEC(float64(snd)), units.FormatIEC(float64(rcv)), limit)
	}
	line := fmt.Sprintf("Socket buffers (this host): requested %s (-w), granted send %s, receive %s",
		units.FormatIEC(float64(requested)), units.FormatIEC(float64(snd)), units.FormatIEC(float64(rcv)))
	if runtime.GOOS == "linux" {
		line += " (Linux doubles the request"
		if !udp {
			line += "; autotuning is off"
		}
		line += ")"
	}
	if snd < requested || rcv < requested || (runtime.GOOS == "linux" && (snd < 2*requested || rcv < 2*requested)) {
		line += fmt.Sprintf("\nWARNING: requested %s, but the kernel capped the buffers%s", units.FormatIEC(float64(requested)), capReason())
	}
	return line
}
