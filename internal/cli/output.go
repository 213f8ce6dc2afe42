package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/tcptune/tcptune/internal/client"
	"github.com/tcptune/tcptune/internal/metricsrv"
)

// writeJSON prints v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// output prints v as one JSON document when asJSON, else as text.
func output(w io.Writer, asJSON bool, v any, text func(io.Writer) error) error {
	if asJSON {
		return writeJSON(w, v)
	}
	return text(w)
}

// isTerminal reports whether w is a terminal (progress bars redraw in
// place there; piped output gets plain lines).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// servePrometheus serves cs for Prometheus on addr (--prometheus), says
// where on stderr, and returns what stops it.
func servePrometheus(cmd *cobra.Command, addr string, cs ...prometheus.Collector) (func(), error) {
	at, stop, err := metricsrv.Serve(addr, cs...)
	if err != nil {
		return nil, fmt.Errorf("--prometheus %s: %v", addr, client.UnwrapOp(err))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "serving Prometheus metrics on http://%s/metrics\n", at)
	return stop, nil
}
