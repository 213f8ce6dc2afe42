// Package report renders test results the way iperf3 does — the -J
// document with its exact key names and nesting, --json-stream events,
// and the text report — plus tcptune's additions (buffers, MSS, limit
// attribution) under the single extra key "tcptune".
package report

import (
	"bytes"
	"encoding/json"
	"math"
)

// KV is one key of an ordered JSON object.
type KV struct {
	K string
	V any
}

// Obj is a JSON object that keeps its key order, as iperf3's output does.
type Obj []KV

// Set appends or replaces a key.
func (o *Obj) Set(k string, v any) {
	for i := range *o {
		if (*o)[i].K == k {
			(*o)[i].V = v
			return
		}
	}
	*o = append(*o, KV{k, v})
}

// Get returns a key's value.
func (o Obj) Get(k string) (any, bool) {
	for _, kv := range o {
		if kv.K == k {
			return kv.V, true
		}
	}
	return nil, false
}

// MarshalJSON writes the keys in order. Non-finite floats become 0:
// iperf3 once printed NaN, which no JSON parser accepts.
func (o Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.K)
		b.Write(k)
		b.WriteByte(':')
		v := kv.V
		if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			v = 0
		}
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Indent renders v as iperf3 does: tab-indented, newline-terminated.
func Indent(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		raw, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	var b bytes.Buffer
	json.Indent(&b, raw, "", "\t")
	b.WriteByte('\n')
	return b.Bytes()
}
