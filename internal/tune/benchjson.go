package tune

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tcptune/tcptune/internal/wire"
)

// benchDoc is the part of an iperf3 -J document (as tcptune bench
// writes it) that a trial needs.
type benchDoc struct {
	Error     string `json:"error"`
	Intervals []struct {
		Sum struct {
			BitsPerSecond float64 `json:"bits_per_second"`
			Omitted       bool    `json:"omitted"`
		} `json:"sum"`
	} `json:"intervals"`
	End struct {
		SumSent struct {
			Retransmits int64 `json:"retransmits"`
		} `json:"sum_sent"`
		SumReceived struct {
			BitsPerSecond float64 `json:"bits_per_second"`
		} `json:"sum_received"`
	} `json:"end"`
	Tcptune *struct {
		Streams []wire.ExtStream `json:"streams"`
		Peer    *wire.Ext        `json:"peer"`
		Limits  []struct {
			Result struct {
				Limit   string `json:"limit"`
				Verdict string `json:"verdict"`
				Advice  string `json:"advice"`
			} `json:"result"`
		} `json:"limits"`
	} `json:"tcptune"`
}

// parseTrial reads one trial from a -J document. The sender's view
// (window, send buffer, RTT) is ours going forward and the server's in
// reverse, when the server is tcptune.
func parseTrial(data []byte, d Direction) (Trial, error) {
	var doc benchDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Trial{}, fmt.Errorf("bench output: %w", err)
	}
	if doc.Error != "" {
		return Trial{}, errors.New(doc.Error)
	}
	t := Trial{Direction: d, BitsPerSecond: doc.End.SumReceived.BitsPerSecond, Retransmits: max(doc.End.SumSent.Retransmits, 0)}
	if t.BitsPerSecond <= 0 {
		return Trial{}, errors.New("bench output: no received throughput")
	}
	for _, iv := range doc.Intervals {
		if !iv.Sum.Omitted {
			t.Intervals = append(t.Intervals, iv.Sum.BitsPerSecond)
		}
	}
	if x := doc.Tcptune; x != nil {
		streams := x.Streams
		if d == Reverse {
			streams = nil
			if x.Peer != nil {
				streams = x.Peer.Streams
			}
		}
		var rtt float64
		for _, s := range streams {
			t.Window = max(t.Window, int64(s.SndWnd))
			t.SndBuf = max(t.SndBuf, int64(s.SndBuf))
			rtt += float64(s.RTT)
		}
		if len(streams) > 0 {
			t.RTTus = rtt / float64(len(streams))
		}
		if len(x.Limits) > 0 {
			r := x.Limits[0].Result
			t.Limit, t.Verdict, t.Advice = r.Limit, r.Verdict, r.Advice
		}
	}
	return t, nil
}
