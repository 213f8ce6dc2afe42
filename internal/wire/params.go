package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Params is the test description the client sends after PARAM_EXCHANGE.
type Params struct {
	UDP             bool
	Omit            int // seconds
	Time            int // seconds; 0 with -n/-k
	Num             int64
	BlockCount      int64
	Parallel        int
	Len             int
	ServerAffinity  int // -1 = unset
	MSS             int
	NoDelay         bool
	Reverse         bool
	Bidirectional   bool
	Window          int
	Bandwidth       int64 // bit/s per stream
	FQRate          int64
	PacingTimer     int
	Burst           int
	TOS             int
	FlowLabel       int
	Title           string
	ExtraData       string
	Congestion      string
	CongestionUsed  string
	GetServerOutput bool
	UDPCounters64   bool
	RepeatingPay    bool
	ZeroCopy        bool
	SkipRxCopy      bool // 3.19+: the receiver counts with MSG_TRUNC, no copy
	DontFragment    bool
	// Authtoken is iperf3's authentication token (internal/auth): an
	// RSA-encrypted user, password and time, in base64.
	Authtoken     string
	ClientVersion string
	// Tcptune is our extension: present only when the client is tcptune.
	Tcptune *ParamsExt
}

// ParamsExt is tcptune's addition to the parameter message; iperf3
// servers ignore unknown keys.
type ParamsExt struct {
	Version string `json:"version"`
}

// MarshalJSON writes the parameters as iperf3 does: flags that are off
// are omitted (a 3.12 server treats mere presence as "on"), numbers are
// JSON numbers, and the always-present keys come first.
func (p Params) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	put := func(k string, v any) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	if p.UDP {
		put("udp", true)
	} else {
		put("tcp", true)
	}
	put("omit", p.Omit)
	put("time", p.Time)
	put("num", p.Num)
	put("blockcount", p.BlockCount)
	if p.MSS > 0 {
		put("MSS", p.MSS)
	}
	if p.NoDelay {
		put("nodelay", true)
	}
	put("parallel", p.Parallel)
	if p.Reverse {
		put("reverse", true)
	}
	if p.Bidirectional {
		put("bidirectional", true)
	}
	if p.Window > 0 {
		put("window", p.Window)
	}
	if p.Len > 0 {
		put("len", p.Len)
	}
	if p.Bandwidth > 0 {
		put("bandwidth", p.Bandwidth)
	}
	if p.FQRate > 0 {
		put("fqrate", p.FQRate)
	}
	if p.PacingTimer > 0 {
		put("pacing_timer", p.PacingTimer)
	}
	if p.Burst > 0 {
		put("burst", p.Burst)
	}
	if p.TOS > 0 {
		put("TOS", p.TOS)
	}
	if p.FlowLabel > 0 {
		put("flowlabel", p.FlowLabel)
	}
	if p.ServerAffinity >= 0 {
		put("server_affinity", p.ServerAffinity)
	}
	if p.Title != "" {
		put("title", p.Title)
	}
	if p.ExtraData != "" {
		put("extra_data", p.ExtraData)
	}
	if p.Congestion != "" {
		put("congestion", p.Congestion)
	}
	if p.CongestionUsed != "" {
		put("congestion_used", p.CongestionUsed)
	}
	if p.GetServerOutput {
		put("get_server_output", 1)
	}
	if p.UDPCounters64 {
		put("udp_counters_64bit", 1)
	}
	if p.RepeatingPay {
		put("repeating_payload", 1)
	}
	if p.ZeroCopy {
		put("zerocopy", 1)
	}
	if p.SkipRxCopy {
		put("skip_rx_copy", 1)
	}
	if p.DontFragment {
		put("dont_fragment", 1)
	}
	if p.Authtoken != "" {
		put("authtoken", p.Authtoken)
	}
	put("client_version", p.ClientVersion)
	if p.Tcptune != nil {
		put("tcptune", p.Tcptune)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Encode is the parameter message a client sends, checked as an iperf3
// 3.18+ server checks it: values in range (Validate) and the whole
// message within MaxParamsJSON bytes.
func (p Params) Encode() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	b, err := p.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if len(b) > MaxParamsJSON {
		return nil, fmt.Errorf("the parameter message is %d bytes; servers accept at most %d (shorten --title or --extra-data)", len(b), MaxParamsJSON)
	}
	return b, nil
}

// fields is a decoded JSON object with typed accessors that record the
// first type error.
type fields struct {
	m   map[string]json.RawMessage
	err error
}

func (f *fields) has(k string) bool { _, ok := f.m[k]; return ok }

// flag reads a presence-style or typed flag: true or a non-zero number
// is on; false, 0, null or absence is off.
func (f *fields) flag(k string) bool {
	raw, ok := f.m[k]
	if !ok {
		return false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != "" && x != "0" && x != "false"
	}
	return false
}

// num reads an integer, mapping iperf3 3.12's unsigned -1 (>= 2^63) to -1.
func (f *fields) num(k string, def int64) int64 {
	raw, ok := f.m[k]
	if !ok {
		return def
	}
	v, err := DecodeInt(raw)
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("key %q: %v", k, err)
	}
	return v
}

func (f *fields) str(k string) string {
	raw, ok := f.m[k]
	if !ok {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil && f.err == nil {
		f.err = fmt.Errorf("key %q: want a string", k)
	}
	return s
}

func (f *fields) float(k string) float64 {
	raw, ok := f.m[k]
	if !ok {
		return 0
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil && f.err == nil {
		f.err = fmt.Errorf("key %q: want a number", k)
	}
	if v >= 1<<63 {
		return -1
	}
	return v
}

// DecodeInt decodes a JSON number leniently: floats are truncated and
// values at or above 2^63 (iperf3 3.12/3.13 printing -1 as unsigned)
// become -1.
func DecodeInt(raw json.RawMessage) (int64, error) {
	s := string(bytes.TrimSpace(raw))
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil && u >= 1<<63 {
		return -1, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, fmt.Errorf("want a number, got %.40s", s)
	}
	if f >= 1<<63 {
		return -1, nil
	}
	if f < -(1 << 63) {
		return math.MinInt64, nil
	}
	return int64(f), nil
}

func decodeObject(data []byte) (*fields, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if m == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	return &fields{m: m}, nil
}

// ParseParams decodes and validates a parameter message as a server
// receives it. A returned *Error carries the i_errno to send back.
func ParseParams(data []byte) (*Params, error) {
	f, err := decodeObject(data)
	if err != nil {
		return nil, &Error{Code: IERecvParams}
	}
	p := &Params{
		UDP:             f.flag("udp"),
		Omit:            int(clampI(f.num("omit", 0))),
		Time:            int(clampI(f.num("time", 10))),
		Num:             f.num("num", 0),
		BlockCount:      f.num("blockcount", 0),
		Parallel:        int(clampI(f.num("parallel", 1))),
		Len:             int(clampI(f.num("len", 0))),
		ServerAffinity:  int(clampI(f.num("server_affinity", -1))),
		MSS:             int(clampI(f.num("MSS", 0))),
		NoDelay:         f.flag("nodelay"),
		Reverse:         f.flag("reverse"),
		Bidirectional:   f.flag("bidirectional"),
		Window:          int(clampI(f.num("window", 0))),
		Bandwidth:       f.num("bandwidth", 0),
		FQRate:          f.num("fqrate", 0),
		PacingTimer:     int(clampI(f.num("pacing_timer", 1000))),
		Burst:           int(clampI(f.num("burst", 0))),
		TOS:             int(clampI(f.num("TOS", 0))),
		FlowLabel:       int(clampI(f.num("flowlabel", 0))),
		Title:           f.str("title"),
		ExtraData:       f.str("extra_data"),
		Congestion:      f.str("congestion"),
		CongestionUsed:  f.str("congestion_used"),
		GetServerOutput: f.flag("get_server_output"),
		UDPCounters64:   f.flag("udp_counters_64bit"),
		RepeatingPay:    f.flag("repeating_payload"),
		ZeroCopy:        f.flag("zerocopy"),
		SkipRxCopy:      f.flag("skip_rx_copy"),
		DontFragment:    f.flag("dont_fragment"),
		Authtoken:       f.str("authtoken"),
		ClientVersion:   f.str("client_version"),
	}
	if f.has("tcptune") {
		var ext ParamsExt
		if json.Unmarshal(f.m["tcptune"], &ext) == nil {
			p.Tcptune = &ext
		}
	}
	if f.err != nil {
		return nil, &Error{Code: IERecvParams}
	}
	if f.flag("sctp") {
		return nil, &Error{Code: IERecvParams}
	}
	return p, p.Validate()
}

func clampI(v int64) int64 {
	if v > math.MaxInt32 {
		return math.MaxInt32
	}
	if v < math.MinInt32 {
		return math.MinInt32
	}
	return v
}

// Validate checks the ranges iperf3 enforces (the union of the client's
// checks and HEAD's server checks). It returns an *Error or nil.
func (p *Params) Validate() error {
	switch {
	case p.Omit < 0 || p.Omit > MaxOmit:
		return &Error{Code: IEOmit}
	case p.Time < 0 || p.Time > MaxDuration:
		return &Error{Code: IEDuration}
	case p.Parallel < 1 || p.Parallel > MaxParallel:
		return &Error{Code: IENumStreams}
	case p.MSS < 0 || p.MSS > MaxMSS:
		return &Error{Code: IEMSS}
	case p.Window < 0 || p.Window > MaxWindow:
		return &Error{Code: IEBufSize}
	case p.TOS < 0 || p.TOS > 255:
		return &Error{Code: IEBadTOS}
	case p.Burst < 0 || p.Burst > MaxBurst:
		return &Error{Code: IEBurst}
	case p.Num < 0 || p.BlockCount < 0 || p.Bandwidth < 0 || p.FQRate < 0 || p.PacingTimer < 0 || p.FlowLabel < 0 || p.FlowLabel > 0xFFFFF:
		return &Error{Code: IERecvParams}
	case p.Time == 0 && p.Num == 0 && p.BlockCount == 0:
		return &Error{Code: IEDuration}
	}
	if p.UDP {
		if p.Len != 0 && (p.Len < MinUDPLen || p.Len > MaxUDPLen) {
			return &Error{Code: IEUDPBlockSize}
		}
	} else if p.Len < 0 || p.Len > MaxTCPLen {
		return &Error{Code: IEBlockSize}
	}
	return nil
}

// BlockLen is the effective block length: the requested one or the
// protocol default.
func (p *Params) BlockLen(udpDefault int) int {
	if p.Len > 0 {
		return p.Len
	}
	if p.UDP {
		return udpDefault
	}
	return DefaultTCPLen
}
