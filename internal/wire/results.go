package wire

import (
	"encoding/json"
	"fmt"
)

// Results is the document each side sends after EXCHANGE_RESULTS.
type Results struct {
	CPUTotal             float64
	CPUUser              float64
	CPUSystem            float64
	SenderHasRetransmits int // -1 receiver only, 1 TCP_INFO available, 0 not
	CongestionUsed       string
	Streams              []StreamResult
	ServerOutputJSON     json.RawMessage
	ServerOutputText     string
	Tcptune              json.RawMessage // tcptune peers' extension; ignored by iperf3
}

// StreamResult is one stream's totals in a Results document.
type StreamResult struct {
	ID             int     `json:"id"`
	Bytes          int64   `json:"bytes"`
	Retransmits    int64   `json:"retransmits"`
	Jitter         float64 `json:"jitter"` // seconds
	Errors         int64   `json:"errors"`
	Packets        int64   `json:"packets"`
	OmittedErrors  int64   `json:"omitted_errors"`
	OmittedPackets int64   `json:"omitted_packets"`
	StartTime      float64 `json:"start_time"`
	EndTime        float64 `json:"end_time"`
}

type resultsJSON struct {
	CPUTotal             float64         `json:"cpu_util_total"`
	CPUUser              float64         `json:"cpu_util_user"`
	CPUSystem            float64         `json:"cpu_util_system"`
	SenderHasRetransmits int             `json:"sender_has_retransmits"`
	CongestionUsed       string          `json:"congestion_used,omitempty"`
	Streams              []StreamResult  `json:"streams"`
	ServerOutputJSON     json.RawMessage `json:"server_output_json,omitempty"`
	ServerOutputText     string          `json:"server_output_text,omitempty"`
	Tcptune              json.RawMessage `json:"tcptune,omitempty"`
}

// MarshalJSON emits the results with the key names iperf3 uses and with
// -1 written as a signed number.
func (r Results) MarshalJSON() ([]byte, error) {
	if r.Streams == nil {
		r.Streams = []StreamResult{}
	}
	return json.Marshal(resultsJSON(r))
}

// ParseResults decodes a peer's results leniently: numbers >= 2^63 are
// -1 (iperf3 3.12), start_time/end_time and omitted_* may be missing.
func ParseResults(data []byte) (*Results, error) {
	f, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	r := &Results{
		CPUTotal:             f.float("cpu_util_total"),
		CPUUser:              f.float("cpu_util_user"),
		CPUSystem:            f.float("cpu_util_system"),
		SenderHasRetransmits: int(f.num("sender_has_retransmits", -1)),
		CongestionUsed:       f.str("congestion_used"),
		ServerOutputText:     f.str("server_output_text"),
	}
	if raw, ok := f.m["server_output_json"]; ok {
		r.ServerOutputJSON = raw
	}
	if raw, ok := f.m["tcptune"]; ok {
		r.Tcptune = raw
	}
	var streams []json.RawMessage
	if raw, ok := f.m["streams"]; ok {
		if err := json.Unmarshal(raw, &streams); err != nil {
			return nil, fmt.Errorf("results: streams is not an array")
		}
	}
	if len(streams) > 2*MaxParallel {
		return nil, fmt.Errorf("results: %d streams", len(streams))
	}
	for _, sraw := range streams {
		sf, err := decodeObject(sraw)
		if err != nil {
			return nil, fmt.Errorf("results: stream: %v", err)
		}
		if !sf.has("id") {
			return nil, fmt.Errorf("results: stream without id")
		}
		s := StreamResult{
			ID:             int(clampI(sf.num("id", 0))),
			Bytes:          sf.num("bytes", 0),
			Retransmits:    sf.num("retransmits", -1),
			Jitter:         sf.float("jitter"),
			Errors:         sf.num("errors", 0),
			Packets:        sf.num("packets", 0),
			OmittedErrors:  sf.num("omitted_errors", 0),
			OmittedPackets: sf.num("omitted_packets", 0),
			StartTime:      sf.float("start_time"),
			EndTime:        sf.float("end_time"),
		}
		if sf.err != nil {
			return nil, fmt.Errorf("results: %v", sf.err)
		}
		r.Streams = append(r.Streams, s)
	}
	if f.err != nil {
		return nil, fmt.Errorf("results: %v", f.err)
	}
	return r, nil
}
