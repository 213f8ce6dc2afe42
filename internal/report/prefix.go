package report

import (
	"io"
	"strings"
)

// PrefixWriter prefixes each line written through it with Prefix
// (iperf3's -T/--title).
type PrefixWriter struct {
	W      io.Writer
	Prefix string
	mid    bool
}

func (p *PrefixWriter) Write(b []byte) (int, error) {
	var sb strings.Builder
	for _, c := range string(b) {
		if !p.mid {
			sb.WriteString(p.Prefix)
			p.mid = true
		}
		sb.WriteRune(c)
		if c == '\n' {
			p.mid = false
		}
	}
	if _, err := io.WriteString(p.W, sb.String()); err != nil {
		return 0, err
	}
	return len(b), nil
}
