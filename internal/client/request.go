package client

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tcptune/tcptune/internal/affinity"
	"github.com/tcptune/tcptune/internal/units"
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
	Time           time.Duration // -t (whole seconds go to the server; a fraction is kept by this side's clock)
	Bytes, Blocks  int64         // -n, -k (0 = by time)
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
	ConnectTimeout int  // milliseconds
	RcvTimeout     int  // --rcv-timeout, milliseconds (0 = iperf3's 120000)
	TimeSet        bool // -t was given: with -n or -k, two end conditions
	BusyWait       time.Duration
	CCFromStart    bool // --cc-from-start: -C before connect
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
	// iperf3 3.22's options beyond those: honoured (DSCP, BindDev,
	// SndTimeout, PacingTimer), ignored with a warning (GSRO), or
	// refused in iperf3's words (MPTCP, File, SCTP); SCTP's own XBind and
	// NStreams are ignored with a warning, as iperf3 ignores them.
	DSCP, BindDev, PacingTimer string
	SndTimeout, NStreams       int
	GSRO, MPTCP, SCTP          bool
	File, XBind                string
}

// Warnings are what the request asks for that tcptune ignores.
func (q Request) Warnings() []string {
	var w []string
	if q.GSRO {
		w = append(w, "--gsro: UDP GSO/GRO is not supported by tcptune; ignored")
	}
	if q.XBind != "" || q.NStreams > 0 {
		w = append(w, "-X/--xbind, --nstreams: SCTP's options, without effect on TCP and UDP (as in iperf3); ignored")
	}
	return w
}

// Options validates the request and builds the client's options, and
// the CPU this side pins itself to (-1: none); errors name the flag
// and what it accepts.
func (q Request) Options() (Options, int, error) {
	o := Options{Host: q.Host, Port: q.Port, Interval: q.Interval, Bind: q.Bind, CPort: q.CPort,
		ConnectTimeout: time.Duration(q.ConnectTimeout) * time.Millisecond, Unit: q.Format, KeepAlive: q.KeepAlive, BusyWait: q.BusyWait,
		CongestionFromStart: q.CCFromStart}
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
	ends := 0
	for _, given := range []bool{q.TimeSet, q.Bytes > 0, q.Blocks > 0} {
		if given {
			ends++
		}
	}
	if ends > 1 {
		return o, -1, errors.New("-t, -n, -k: only one test end condition may be specified, as iperf3 asks")
	}
	if o.RcvTimeout = time.Duration(q.RcvTimeout) * time.Millisecond; q.RcvTimeout > 0 && !q.Reverse && !q.Bidir {
		return o, -1, errors.New("--rcv-timeout: valid only where this side receives (-R or --bidir), as iperf3's client")
	}
	p := wire.Params{UDP: q.UDP, Omit: q.Omit, Time: int(q.Time / time.Second), Num: q.Bytes, BlockCount: q.Blocks, Parallel: q.Parallel,
		Len: int(q.Length), ServerAffinity: -1, MSS: q.MSS, NoDelay: q.NoDelay, Reverse: q.Reverse, Bidirectional: q.Bidir,
		Window: int(q.Window), Bandwidth: int64(q.Bitrate), FQRate: int64(q.FQRate), PacingTimer: 1000,
		Title: q.Title, Congestion: q.Congestion, GetServerOutput: q.ServerOutput, UDPCounters64: q.UDP64,
		ZeroCopy: q.ZeroCopy, SkipRxCopy: q.SkipRxCopy, DontFragment: q.DontFrag, FlowLabel: q.FlowLabel, ExtraData: q.ExtraData}
	if q.Bytes > 0 || q.Blocks > 0 {
		p.Time = 0
	} else if q.Time%time.Second != 0 {
		// iperf3 reads -t with atoi (1.5 runs 1 s, 0.5 without end);
		// this side's clock runs the fraction, and the server is told
		// the whole seconds that cover it.
		o.Omit, o.Time = time.Duration(q.Omit)*time.Second, q.Time
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
	switch {
	case q.MPTCP:
		return o, -1, errors.New("-m/--mptcp: MPTCP is not supported by tcptune")
	case q.File != "":
		return o, -1, errors.New("-F/--file: transmitting a file is not supported by tcptune")
	case q.SCTP:
		return o, -1, errors.New("--sctp: SCTP is not supported by tcptune")
	}
	if q.DSCP != "" {
		d, err := ParseDSCP(q.DSCP)
		if err != nil {
			return o, -1, err
		}
		p.TOS = d << 2
	}
	if q.PacingTimer != "" {
		v, err := units.ParseBytes(q.PacingTimer)
		if err != nil || v <= 0 || v > 1e9 {
			return o, -1, fmt.Errorf("--pacing-timer: accepts microseconds, e.g. 1000 or 1K (got %q)", q.PacingTimer)
		}
		p.PacingTimer = int(v)
	}
	o.Device, o.SndTimeout = q.BindDev, q.SndTimeout
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

// dscpNames are RFC 4594's DSCP names, as iperf3 takes them.
func dscpNames() map[string]int {
	return map[string]int{
		"cs0": 0, "cs1": 8, "cs2": 16, "cs3": 24, "cs4": 32, "cs5": 40, "cs6": 48, "cs7": 56,
		"af11": 10, "af12": 12, "af13": 14, "af21": 18, "af22": 20, "af23": 22,
		"af31": 26, "af32": 28, "af33": 30, "af41": 34, "af42": 36, "af43": 38,
		"ef": 46, "va": 44, "le": 1,
	}
}

// ParseDSCP reads --dscp: 0-63 (decimal, 0x hex, 0 octal) or a name.
func ParseDSCP(s string) (int, error) {
	if v, ok := dscpNames()[strings.ToLower(s)]; ok {
		return v, nil
	}
	v, err := strconv.ParseInt(s, 0, 32)
	if err != nil || v < 0 || v > 63 {
		return 0, fmt.Errorf("--dscp: accepts 0-63 or a name (af11-af43, cs0-cs7, ef, va, le) (got %q)", s)
	}
	return int(v), nil
}
