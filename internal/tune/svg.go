package tune

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// svg builds one chart as inline SVG markup.
type svg struct {
	b             strings.Builder
	width, height int
}

func newSVG(id, title string, width, height int) *svg {
	s := &svg{width: width, height: height}
	fmt.Fprintf(&s.b, `<svg class="chart" id="%s" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		id, width, height, width, height, html.EscapeString(title))
	fmt.Fprintf(&s.b, `<title>%s</title>`, html.EscapeString(title))
	return s
}

func (s *svg) rect(x, y, w, h float64, fill, tip string) {
	fmt.Fprintf(&s.b, `<rect class="mark" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`, x, y, max(w, 0.5), h, fill, html.EscapeString(tip))
}

func (s *svg) line(x1, y1, x2, y2 float64, stroke string, width float64, dash bool) {
	d := ""
	if dash {
		d = ` stroke-dasharray="5,4"`
	}
	fmt.Fprintf(&s.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"%s/>`, x1, y1, x2, y2, stroke, width, d)
}

func (s *svg) circle(x, y, r float64, fill, tip string) {
	fmt.Fprintf(&s.b, `<circle class="mark" cx="%.1f" cy="%.1f" r="%.1f" fill="%s"><title>%s</title></circle>`, x, y, r, fill, html.EscapeString(tip))
}

func (s *svg) polyline(xs, ys []float64, stroke, tip string) {
	var pts []string
	for i := range xs {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs[i], ys[i]))
	}
	fmt.Fprintf(&s.b, `<polyline class="mark" points="%s" fill="none" stroke="%s" stroke-width="2.5"><title>%s</title></polyline>`, strings.Join(pts, " "), stroke, html.EscapeString(tip))
}

func (s *svg) text(x, y float64, anchor, txt string, size int, fill string) {
	fmt.Fprintf(&s.b, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%d" fill="%s">%s</text>`, x, y, anchor, size, fill, html.EscapeString(txt))
}

func (s *svg) String() string { return s.b.String() + "</svg>" }

// niceMax rounds v up to 1, 2 or 5 × 10^n, so axis ticks are round.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// xAxis draws a horizontal axis from x0 to x1 at y for 0..top, with
// ticks intervals labelled by label.
func (s *svg) xAxis(x0, x1, y, top float64, ticks int, label func(float64) string) {
	s.line(x0, y, x1, y, "#555", 1, false)
	for i := 0; i <= ticks; i++ {
		v := top * float64(i) / float64(ticks)
		x := x0 + (x1-x0)*float64(i)/float64(ticks)
		s.line(x, y, x, y+4, "#555", 1, false)
		s.text(x, y+16, "middle", label(v), 11, "#333")
	}
}

// yAxis draws a vertical axis at x from y0 (bottom, 0) to y1 (top).
func (s *svg) yAxis(x, y0, y1, top float64, label func(float64) string) {
	s.line(x, y0, x, y1, "#555", 1, false)
	for i := 0; i <= 5; i++ {
		v := top * float64(i) / 5
		y := y0 - (y0-y1)*float64(i)/5
		s.line(x-4, y, x, y, "#555", 1, false)
		s.line(x, y, float64(s.width)-20, y, "#eee", 1, false)
		s.text(x-6, y+4, "end", label(v), 11, "#333")
	}
}
