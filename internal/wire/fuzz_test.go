package wire

import (
	"bytes"
	"testing"
)

// FuzzControl feeds arbitrary bytes to the control-message parsers as a
// server reads them: a framed parameter message, then results. They must
// never panic, and must respect the size limit.
func FuzzControl(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x7b{\"tcp\":true,\"omit\":0,\"time\":1,\"num\":0,\"blockcount\":0,\"parallel\":2,\"len\":131072,\"pacing_timer\":1000,\"client_version\":\"3.12\"}"))
	f.Add([]byte("\x00\x00\x00\x00"))
	f.Add([]byte("\xff\xff\xff\xff"))
	f.Add([]byte("\x00\x00\x00\x02{}"))
	f.Add([]byte("\x00\x00\x00\x10{\"parallel\":1e99}"))
	f.Add([]byte("\x00\x00\x00\x14{\"streams\":[{\"id\":1}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		body, err := ReadJSON(r, MaxParamsJSON)
		if err != nil {
			return
		}
		if len(body) > MaxParamsJSON {
			t.Fatalf("accepted %d bytes", len(body))
		}
		if p, err := ParseParams(body); err == nil {
			if p.Parallel < 1 || p.Parallel > MaxParallel || p.Time < 0 || p.Len < 0 {
				t.Fatalf("invalid params accepted: %+v", p)
			}
			if _, err := p.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		}
		if res, err := ParseResults(body); err == nil {
			if _, err := res.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
