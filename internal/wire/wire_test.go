package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCookie(t *testing.T) {
	c := NewCookie()
	if !ValidCookie(c) || len(CookieString(c)) != 36 {
		t.Fatalf("bad cookie %q", c)
	}
	for _, ch := range CookieString(c) {
		if !strings.ContainsRune(cookieAlphabet, ch) {
			t.Fatalf("cookie char %q outside alphabet", ch)
		}
	}
	var garbage [CookieSize]byte
	copy(garbage[:], "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if ValidCookie(garbage) {
		t.Fatal("HTTP request accepted as cookie")
	}
}

func TestJSONFraming(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if got := b.Bytes()[:4]; binary.BigEndian.Uint32(got) != 7 {
		t.Fatalf("length prefix %x", got)
	}
	body, err := ReadJSON(&b, MaxParamsJSON)
	if err != nil || string(body) != `{"a":1}` {
		t.Fatalf("ReadJSON = %q, %v", body, err)
	}
	// Zero length, oversize (4 GiB), short body, non-JSON.
	for name, in := range map[string][]byte{
		"zero":    {0, 0, 0, 0},
		"4GiB":    {0xff, 0xff, 0xff, 0xff},
		"over8K":  {0, 0, 0x20, 0x01},
		"short":   {0, 0, 0, 10, '{', '}'},
		"notjson": append([]byte{0, 0, 0, 3}, "abc"...),
	} {
		if _, err := ReadJSON(bytes.NewReader(in), MaxParamsJSON); err == nil {
			t.Errorf("%s: want error", name)
		}
	}
	if _, err := ReadJSON(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff}), MaxParamsJSON); !errors.Is(err, ErrMessageTooLarge) {
		t.Errorf("4GiB: %v", err)
	}
}

func TestStateAndError(t *testing.T) {
	var b bytes.Buffer
	WriteState(&b, AccessDenied)
	if b.Bytes()[0] != 0xff {
		t.Fatalf("ACCESS_DENIED = %x", b.Bytes())
	}
	s, _ := ReadState(&b)
	if s != AccessDenied {
		t.Fatalf("got %v", s)
	}
	b.Reset()
	WriteServerError(&b, IENumStreams, 0)
	if b.Len() != 9 {
		t.Fatalf("error payload %d bytes", b.Len())
	}
	st, _ := ReadState(&b)
	e, err := ReadErrorPayload(&b)
	if st != ServerError || err != nil || e.Code != IENumStreams {
		t.Fatalf("got %v %v %v", st, e, err)
	}
	// 3.12 sends only i_errno for some errors.
	e, err = ReadErrorPayload(bytes.NewReader([]byte{0, 0, 0, 142}))
	if err != nil || e.Code != 142 || e.Errno != 0 {
		t.Fatalf("short payload: %v %v", e, err)
	}
	if _, err := ReadErrorPayload(bytes.NewReader([]byte{0})); err == nil {
		t.Fatal("truncated payload accepted")
	}
	_ = io.EOF
}

func TestParamsRoundTrip(t *testing.T) {
	p := Params{Time: 1, Parallel: 2, Len: 131072, PacingTimer: 1000, ClientVersion: "3.12", ServerAffinity: -1}
	b, _ := p.MarshalJSON()
	want := `{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":2,"len":131072,"pacing_timer":1000,"client_version":"3.12"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	q, err := ParseParams(b)
	if err != nil || q.Parallel != 2 || q.Time != 1 || q.Reverse || q.UDP {
		t.Fatalf("parse: %+v %v", q, err)
	}
	// Flags that are off must not appear at all.
	for _, k := range []string{"reverse", "bidirectional", "nodelay", "udp", "window"} {
		if strings.Contains(string(b), k) {
			t.Errorf("off flag %q present", k)
		}
	}
	p.Reverse, p.UDP, p.Bandwidth, p.Window, p.Len = true, true, 100e6, 262144, 1460
	b, _ = p.MarshalJSON()
	q, err = ParseParams(b)
	if err != nil || !q.Reverse || !q.UDP || q.Bandwidth != 100e6 || q.Window != 262144 {
		t.Fatalf("parse: %+v %v", q, err)
	}
}

func TestParamsValidation(t *testing.T) {
	cases := map[string]int{
		`{"tcp":true,"time":10,"parallel":100000}`:       IENumStreams,
		`{"tcp":true,"time":10,"parallel":0}`:            IENumStreams,
		`{"tcp":true,"time":100000,"parallel":1}`:        IEDuration,
		`{"tcp":true,"time":10,"parallel":1,"len":2e6}`:  IEBlockSize,
		`{"udp":true,"time":10,"parallel":1,"len":8}`:    IEUDPBlockSize,
		`{"tcp":true,"time":10,"parallel":"4"}`:          IERecvParams,
		`{"tcp":true,"time":10,"parallel":1,"TOS":300}`:  IEBadTOS,
		`{"tcp":true,"time":10,"parallel":1,"omit":601}`: IEOmit,
		`[1,2,3]`:  IERecvParams,
		`"string"`: IERecvParams,
		`null`:     IERecvParams,
		`{"tcp":true,"time":0,"num":0,"parallel":1}`: IEDuration,
	}
	for in, code := range cases {
		_, err := ParseParams([]byte(in))
		var e *Error
		if !errors.As(err, &e) || e.Code != code {
			t.Errorf("%s: got %v, want code %d", in, err, code)
		}
	}
	// Presence-style flags from old clients.
	p, err := ParseParams([]byte(`{"tcp":1,"time":5,"parallel":1,"reverse":1,"nodelay":true}`))
	if err != nil || !p.Reverse || !p.NoDelay {
		t.Fatalf("presence flags: %+v %v", p, err)
	}
}

func TestResultsQuirks(t *testing.T) {
	in := `{"cpu_util_total":39.03,"cpu_util_user":0.52,"cpu_util_system":38.51,"sender_has_retransmits":18446744073709551615,"congestion_used":"bbr","streams":[{"id":1,"bytes":528220160,"retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1.002514}]}`
	r, err := ParseResults([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if r.SenderHasRetransmits != -1 || r.Streams[0].Retransmits != -1 || r.Streams[0].Bytes != 528220160 {
		t.Fatalf("quirk not decoded: %+v", r)
	}
	out, _ := r.MarshalJSON()
	if strings.Contains(string(out), "18446744073709551615") || !strings.Contains(string(out), `"retransmits":-1`) {
		t.Fatalf("re-encoded: %s", out)
	}
	if _, err := ParseResults([]byte(`{"streams":[{"bytes":1}]}`)); err == nil {
		t.Fatal("stream without id accepted")
	}
	if _, err := ParseResults([]byte(`{"streams":5}`)); err == nil {
		t.Fatal("bad streams accepted")
	}
}

func TestParamsEncodeChecks(t *testing.T) {
	ok := Params{Time: 10, Parallel: 1, ServerAffinity: -1}
	if _, err := ok.Encode(); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Params{
		"no streams": {Time: 10, Parallel: 0, ServerAffinity: -1},
		"omit 601":   {Time: 10, Omit: 601, Parallel: 1, ServerAffinity: -1},
		"over 8 KiB": {Time: 10, Parallel: 1, ServerAffinity: -1, ExtraData: strings.Repeat("x", MaxParamsJSON)},
	} {
		if _, err := p.Encode(); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

// A 3.18+ server ignores keys it does not know; so does ours, and reads
// the 3.19+ ones it does.
func TestParseParamsNewerKeys(t *testing.T) {
	p, err := ParseParams([]byte(`{"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"zerocopy":1,"skip_rx_copy":1,"mptcp":0,"gso":0,"gso_dg_size":0,"gro":0,"some_future_key":{"x":[1,2]},"client_version":"3.22"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.SkipRxCopy || !p.ZeroCopy || p.ClientVersion != "3.22" {
		t.Fatalf("%+v", p)
	}
	b, _ := p.MarshalJSON()
	if !strings.Contains(string(b), `"zerocopy":1,"skip_rx_copy":1`) {
		t.Fatalf("skip_rx_copy not sent as 3.22 sends it: %s", b)
	}
}
