package client

import (
	"encoding/json"
	"fmt"

	"github.com/tcptune/tcptune/internal/limits"
)

// Doc is what a program reads back from a bench -J document (mesh's
// matrix, a rollout's comparison): the test's error, its --extra-data,
// the rate received, and tcptune's extension.
type Doc struct {
	ExtraData string `json:"extra_data"`
	Error     string `json:"error"`
	End       struct {
		SumReceived struct {
			BitsPerSecond float64 `json:"bits_per_second"`
		} `json:"sum_received"`
	} `json:"end"`
	Tcptune Extension `json:"tcptune"`
}

// ReadDoc parses a bench -J document.
func ReadDoc(data []byte) (Doc, error) {
	var d Doc
	if err := json.Unmarshal(data, &d); err != nil {
		return Doc{}, fmt.Errorf("not a bench -J document: %w", err)
	}
	return d, nil
}

// Runs are the rates of the document's runs: each of --repeat's, or
// the one run's received rate.
func (d Doc) Runs() []float64 {
	if r := d.Tcptune.Repeat; r != nil {
		out := make([]float64, 0, len(r.Runs))
		for _, run := range r.Runs {
			out = append(out, run.BitsPerSecond)
		}
		return out
	}
	return []float64{d.End.SumReceived.BitsPerSecond}
}

// Forward is the verdict client to server, if the document has one.
func (d Doc) Forward() (limits.Verdict, bool) {
	for _, v := range d.Tcptune.Limits {
		if v.Direction == limits.ClientToServer {
			return v, true
		}
	}
	return limits.Verdict{}, false
}
