package client

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/tcptune/tcptune/internal/affinity"
	"github.com/tcptune/tcptune/internal/wire"
)

// Request is a test as a command line asks for it, in iperf3's terms
// (bench's flags, and the iperf3 drop-in's): each field one flag.
// Options checks the choices together and builds the client's Options,
// so the rules that join flags live here, with their tests, and the
// command line only maps flags onto fields.
type Request struct {
	Host           string
	Port           int
	Time           int   // -t, seconds
	Bytes, Blocks  int64 // -n, -k (0 = by time)
	Parallel       int
	Reverse, Bidir bool
	UDP            bool
	Bitrate        float64 // -b, bit/s per stream
	BitrateSet     bool    // -b was given (UDP's default is 1M otherwise)
	Window         int64
	MSS            int
	Length         int64
	Congestion     string
	NoDelay        bool
	Omit           int
	Interval       time.Duration
	ServerOutput   bool
	IPv4, IPv6     bool
	Bind           string
	ConnectTimeout int // milliseconds
	BusyWait       time.Duration
	ZeroCopy       bool
	SkipRxCopy     bool
	Affinity       string // -A n[,m]
	TOS            string // -S, as given: decimal, 0x hex or 0 octal
	ExtraData      string
	FlowLabel      int
	CPort          int
	Title          string
	Format         byte // -f: k m g t K M G T, or 'a' (adaptive)
	UDP64          bool
	FQRate         float64
	DontFrag       bool
	KeepAlive      *net.KeepAliveConfig
}

// Options validates the request and builds the client's options, and
// the CPU this side pins itself to (-1: none); errors name the flag
// and what it accepts.
func (q Request) Options() (Options, int, error) {
	o := Options{Host: q.Host, Port: q.Port, Interval: q.Interval, Bind: q.Bind, CPort: q.CPort,
		ConnectTimeout: time.Duration(q.ConnectTimeout) * time.Millisecond, Unit: q.Format, KeepAlive: q.KeepAlive, BusyWait: q.BusyWait}
	if q.Format == 'a' {
		o.Unit = 0
	}
	switch {
	case q.IPv4 && q.IPv6:
		return o, -1, errors.New("-4 and -6: choose one")
	case q.IPv4:
		o.Family = "4"
	case q.IPv6:
		o.Family = "6"
	}
	if q.Reverse && q.Bidir {
		return o, -1, errors.New("-R and --bidir: choose one")
	}
	p := wire.Params{UDP: q.UDP, Omit: q.Omit, Time: q.Time, Num: q.Bytes, BlockCount: q.Blocks, Parallel: q.Parallel,
		Len: int(q.Length), ServerAffinity: -1, MSS: q.MSS, NoDelay: q.NoDelay, Reverse: q.Reverse, Bidirectional: q.Bidir,
		Window: int(q.Window), Bandwidth: int64(q.Bitrate), FQRate: int64(q.FQRate), PacingTimer: 1000,
		Title: q.Title, Congestion: q.Congestion, GetServerOutput: q.ServerOutput, UDPCounters64: q.UDP64,
		ZeroCopy: q.ZeroCopy, SkipRxCopy: q.SkipRxCopy, DontFragment: q.DontFrag, FlowLabel: q.FlowLabel, ExtraData: q.ExtraData}
	if q.Bytes > 0 || q.Blocks > 0 {
		p.Time = 0
	}
	if q.UDP && p.Bandwidth == 0 && !q.BitrateSet {
		p.Bandwidth = wire.DefaultUDPRate
	}
	if q.UDP && q.Length > 0 && (q.Length < wire.MinUDPLen || q.Length > wire.MaxUDPLen) {
		return o, -1, fmt.Errorf("-l/--length: accepts %d..%d bytes for UDP", wire.MinUDPLen, wire.MaxUDPLen)
	}
	if q.TOS != "" {
		v, err := strconv.ParseInt(q.TOS, 0, 32)
		if err != nil || v < 0 || v > 255 {
			return o, -1, errors.New("-S/--tos: accepts 0..255 (decimal, 0x hex or 0 octal)")
		}
		p.TOS = int(v)
	}
	local := -1
	if q.Affinity != "" {
		l, r, err := affinity.Parse(q.Affinity)
		if err != nil {
			return o, -1, fmt.Errorf("-A/--affinity: %v", err)
		}
		local, p.ServerAffinity = l, r
	}
	if err := p.Validate(); err != nil {
		return o, -1, err
	}
	o.Params = p
	return o, local, nil
}
