package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Prefixed is w with each text line prefixed by iperf3's -T/--title and
// --timestamps (either may be ""), or w itself where neither applies: a
// JSON mode, or neither given.
func Prefixed(w io.Writer, mode Mode, title, stamp string) io.Writer {
	if title == "" && stamp == "" || mode != Text {
		return w
	}
	if title != "" {
		title += ":  "
	}
	return &PrefixWriter{W: w, Prefix: title, Stamp: stamp}
}

// PrefixWriter prefixes each line written through it with Prefix
// (iperf3's -T/--title), after a timestamp in the strftime format Stamp
// when it is set (--timestamps).
type PrefixWriter struct {
	W      io.Writer
	Prefix string
	Stamp  string
	// Now is the clock (nil = time.Now), for tests.
	Now func() time.Time
	mid bool
}

func (p *PrefixWriter) Write(b []byte) (int, error) {
	var sb strings.Builder
	for _, c := range string(b) {
		if !p.mid {
			if p.Stamp != "" {
				now := time.Now
				if p.Now != nil {
					now = p.Now
				}
				sb.WriteString(Strftime(p.Stamp, now()))
			}
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

// strftimeLayouts are the strftime conversions that Go's layouts spell
// (C locale).
var strftimeLayouts = map[byte]string{
	'c': "Mon Jan _2 15:04:05 2006", 'a': "Mon", 'A': "Monday", 'b': "Jan", 'h': "Jan", 'B': "January",
	'd': "02", 'e': "_2", 'H': "15", 'I': "03", 'M': "04", 'S': "05", 'p': "PM", 'y': "06", 'Y': "2006",
	'm': "01", 'F': "2006-01-02", 'T': "15:04:05", 'D': "01/02/06", 'R': "15:04", 'z': "-0700", 'Z': "MST",
}

// Strftime formats t as C's strftime does in the C locale, for the
// conversions iperf3's users write (those of strftimeLayouts, and %j %s
// %n %t %%); others are copied as they are.
func Strftime(format string, t time.Time) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			sb.WriteByte(format[i])
			continue
		}
		i++
		c := format[i]
		if l, ok := strftimeLayouts[c]; ok {
			sb.WriteString(t.Format(l))
			continue
		}
		switch c {
		case 'j':
			fmt.Fprintf(&sb, "%03d", t.YearDay())
		case 's':
			fmt.Fprintf(&sb, "%d", t.Unix())
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteByte('%')
			sb.WriteByte(c)
		}
	}
	return sb.String()
}
