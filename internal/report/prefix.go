package report

import (
	"fmt"
	"io"
	"strings"
	"time"
)

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

// Strftime formats t as C's strftime does in the C locale, for the
// conversions iperf3's users write (%c %a %A %b %B %d %e %H %I %M %S %p
// %y %Y %m %j %F %T %D %R %s %z %Z %n %t %%); others are copied as they
// are.
func Strftime(format string, t time.Time) string {
	var sb strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			sb.WriteByte(format[i])
			continue
		}
		i++
		switch format[i] {
		case 'c':
			sb.WriteString(t.Format("Mon Jan _2 15:04:05 2006"))
		case 'a':
			sb.WriteString(t.Format("Mon"))
		case 'A':
			sb.WriteString(t.Format("Monday"))
		case 'b', 'h':
			sb.WriteString(t.Format("Jan"))
		case 'B':
			sb.WriteString(t.Format("January"))
		case 'd':
			sb.WriteString(t.Format("02"))
		case 'e':
			sb.WriteString(t.Format("_2"))
		case 'H':
			sb.WriteString(t.Format("15"))
		case 'I':
			sb.WriteString(t.Format("03"))
		case 'M':
			sb.WriteString(t.Format("04"))
		case 'S':
			sb.WriteString(t.Format("05"))
		case 'p':
			sb.WriteString(t.Format("PM"))
		case 'y':
			sb.WriteString(t.Format("06"))
		case 'Y':
			sb.WriteString(t.Format("2006"))
		case 'm':
			sb.WriteString(t.Format("01"))
		case 'j':
			fmt.Fprintf(&sb, "%03d", t.YearDay())
		case 'F':
			sb.WriteString(t.Format("2006-01-02"))
		case 'T':
			sb.WriteString(t.Format("15:04:05"))
		case 'D':
			sb.WriteString(t.Format("01/02/06"))
		case 'R':
			sb.WriteString(t.Format("15:04"))
		case 's':
			fmt.Fprintf(&sb, "%d", t.Unix())
		case 'z':
			sb.WriteString(t.Format("-0700"))
		case 'Z':
			sb.WriteString(t.Format("MST"))
		case 'n':
			sb.WriteByte('\n')
		case 't':
			sb.WriteByte('\t')
		case '%':
			sb.WriteByte('%')
		default:
			sb.WriteByte('%')
			sb.WriteByte(format[i])
		}
	}
	return sb.String()
}
