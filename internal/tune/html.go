package tune

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// dirColor is each direction's colour in the charts.
func dirColor(d Direction) string {
	if d == Reverse {
		return "#c05621"
	}
	return "#2b6cb0"
}

// throughputChart: each candidate's median per direction with its
// confidence interval and its trials, against the link's goodput.
func throughputChart(r *Result) string {
	type row struct {
		c *Candidate
		d Direction
	}
	var rows []row
	top := r.Goodput
	for _, c := range append(append([]*Candidate{}, r.Candidates...), r.Verify) {
		if c == nil {
			continue
		}
		for _, d := range r.Options.Directions {
			if s, ok := c.Summary[d]; ok && s.N > 0 {
				rows = append(rows, row{c, d})
				top = max(top, s.CIHigh, s.Max)
			}
		}
	}
	top = niceMax(top)
	const left, right, rowH = 300.0, 860.0, 20.0
	h := int(40 + rowH*float64(len(rows)) + 40)
	s := newSVG("chart-throughput", "Throughput per candidate: median, confidence interval and trials", 900, h)
	x := func(v float64) float64 { return left + (right-left)*v/top }
	for i, rw := range rows {
		y := 30 + rowH*float64(i)
		sum := rw.c.Summary[rw.d]
		name := rw.c.Name
		if i > 0 && rows[i-1].c == rw.c {
			name = ""
		}
		s.text(left-60, y+13, "end", name, 12, "#222")
		s.text(left-6, y+13, "end", string(rw.d), 11, dirColor(rw.d))
		s.rect(left, y+3, x(sum.Median)-left, rowH-6, dirColor(rw.d), fmt.Sprintf("%s %s: median %s", rw.c.Name, rw.d, rate(sum.Median)))
		s.line(x(sum.CILow), y+rowH/2, x(sum.CIHigh), y+rowH/2, "#111", 1.5, false)
		s.line(x(sum.CILow), y+5, x(sum.CILow), y+rowH-5, "#111", 1.5, false)
		s.line(x(sum.CIHigh), y+5, x(sum.CIHigh), y+rowH-5, "#111", 1.5, false)
		for _, t := range rw.c.Trials {
			if t.Direction == rw.d {
				s.circle(x(t.BitsPerSecond), y+rowH/2, 3, "#fff", rate(t.BitsPerSecond))
			}
		}
	}
	bottom := 30 + rowH*float64(len(rows)) + 4
	if r.Goodput > 0 {
		s.line(x(r.Goodput), 22, x(r.Goodput), bottom, "#2f855a", 1.5, true)
		s.text(x(r.Goodput)-4, 16, "end", "link goodput "+rate(r.Goodput), 11, "#2f855a")
	}
	s.xAxis(left, right, bottom, top, 5, rate)
	return s.String()
}

// timeChart: throughput per interval of the baseline's and the final
// state's median trials.
func timeChart(r *Result) string {
	d := r.Options.Directions[0]
	series := []struct {
		name  string
		c     *Candidate
		color string
	}{{"before: " + r.Baseline().Name, r.Baseline(), "#c53030"}, {"after: " + r.AfterLabel(), r.After(), "#2f855a"}}
	top, n := r.Goodput, 1
	for _, sr := range series {
		if t, ok := medianTrial(sr.c, d); ok {
			n = max(n, len(t.Intervals))
			for _, v := range t.Intervals {
				top = max(top, v)
			}
		}
	}
	top = niceMax(top)
	const left, right, y0, y1 = 90.0, 860.0, 260.0, 30.0
	s := newSVG("chart-time", fmt.Sprintf("Throughput over time (%s), before and after", d), 900, 320)
	s.yAxis(left, y0, y1, top, rate)
	ticks := n
	for ticks > 10 {
		ticks = (ticks + 1) / 2
	}
	s.xAxis(left, right, y0, float64(n), ticks, func(v float64) string { return fmt.Sprintf("%.3g s", v) })
	for i, sr := range series {
		t, ok := medianTrial(sr.c, d)
		if !ok || len(t.Intervals) == 0 {
			continue
		}
		var xs, ys []float64
		for j, v := range t.Intervals {
			xs = append(xs, left+(right-left)*(float64(j)+0.5)/float64(n))
			ys = append(ys, y0-(y0-y1)*v/top)
		}
		s.polyline(xs, ys, sr.color, sr.name)
		s.rect(left+10+float64(i)*330, 290, 14, 4, sr.color, sr.name)
		s.text(left+30+float64(i)*330, 296, "start", sr.name, 12, "#222")
	}
	if r.Goodput > 0 {
		y := y0 - (y0-y1)*r.Goodput/top
		s.line(left, y, right, y, "#2f855a", 1, true)
	}
	return s.String()
}

// windowChart: the largest window the receiver advertised and the
// sender's buffer in each candidate's median trial, against the BDP.
func windowChart(r *Result) string {
	d := r.Options.Directions[0]
	type row struct {
		name        string
		win, sndbuf int64
	}
	var rows []row
	top := float64(r.BDP)
	for _, c := range r.Candidates {
		if t, ok := medianTrial(c, d); ok && (t.Window > 0 || t.SndBuf > 0) {
			rows = append(rows, row{c.Name, t.Window, t.SndBuf})
			top = max(top, float64(t.Window), float64(t.SndBuf))
		}
	}
	// Bars beyond 8 × BDP are cut at the edge and labelled, so one huge
	// profile does not flatten the rest.
	top = niceMax(min(top, 8*float64(r.BDP)))
	const left, right, rowH = 300.0, 860.0, 30.0
	h := int(50 + rowH*float64(max(len(rows), 1)) + 40)
	s := newSVG("chart-window", fmt.Sprintf("Window and send buffer against the BDP (%s)", d), 900, h)
	x := func(v float64) float64 { return left + (right-left)*min(v, top)/top }
	if len(rows) == 0 {
		s.text(450, 60, "middle", "no sender-side figures (a stock iperf3 peer sent): window unknown", 13, "#666")
	}
	for i, rw := range rows {
		y := 40 + rowH*float64(i)
		s.text(left-6, y+17, "end", rw.name, 12, "#222")
		s.rect(left, y+3, x(float64(rw.win))-left, 11, "#3182ce", fmt.Sprintf("%s: receiver's window up to %s", rw.name, size(rw.win)))
		s.rect(left, y+15, x(float64(rw.sndbuf))-left, 11, "#dd6b20", fmt.Sprintf("%s: send buffer %s", rw.name, size(rw.sndbuf)))
		if float64(max(rw.win, rw.sndbuf)) > top {
			s.text(right-4, y+12, "end", fmt.Sprintf("→ %s / %s", size(rw.win), size(rw.sndbuf)), 11, "#fff")
		}
	}
	bottom := 40 + rowH*float64(max(len(rows), 1)) + 4
	s.line(x(float64(r.BDP)), 30, x(float64(r.BDP)), bottom, "#2f855a", 2, true)
	s.text(x(float64(r.BDP)), 24, "middle", "BDP "+size(r.BDP), 11, "#2f855a")
	s.rect(left, float64(h-18), 14, 8, "#3182ce", "legend")
	s.text(left+20, float64(h-10), "start", "largest window the receiver advertised", 11, "#222")
	s.rect(left+290, float64(h-18), 14, 8, "#dd6b20", "legend")
	s.text(left+310, float64(h-10), "start", "sender's send buffer", 11, "#222")
	s.xAxis(left, right, bottom, top, 5, func(v float64) string { return size(int64(v)) })
	return s.String()
}

var reportTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tcptune tune report</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:960px;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border-bottom:1px solid #ddd;padding:.3em .6em;text-align:left;font-size:.9em}
.headline{font-size:1.3em;font-weight:600}.chart{display:block;margin:1em 0}code{background:#f4f4f4;padding:0 .2em}
</style></head><body>
<h1>tcptune tune</h1>
<p>{{.R.Env}} — RTT {{printf "%.1f" .R.RTTms}} ms, rate {{.Rate}} ({{.R.RateSource}}), BDP {{.BDP}}.
full sets of {{.R.Options.Trials}} trials of {{.R.Options.TimeS}} s per direction (the baseline's, and the choice's: its verification), one trial to screen a point; throughput is {{.R.CountedBy}}.</p>
{{range .Headlines}}<p class="headline">{{.}}</p>{{end}}
<p>{{.R.Why}}</p>
{{with .Relay}}<p><strong>{{.}}</strong></p>{{end}}
{{if .R.Steps}}<h2>Search</h2><ul>{{range .R.Steps}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .R.PeerAdvice}}<h2>On the peer (not changed by tune)</h2><ul>{{range .R.PeerAdvice}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{with .Choice}}{{if not .Baseline}}<h2>{{if $.R.Kept}}Chosen{{else}}Tried and rolled back{{end}}: {{.Name}}</h2><p>{{.Source}}</p>
<table><tr><th>key</th><th>value</th><th>why</th></tr>{{range .Settings}}<tr><td><code>{{.Key}}</code></td><td><code>{{.Value}}</code></td><td>{{.Reason}}</td></tr>{{end}}</table>{{end}}{{end}}
{{if .Limits}}<h2>What limited the transfer</h2><ul>{{range .Limits}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Throughput per candidate</h2>
{{.Throughput}}
<h2>Throughput over time</h2>
{{.Time}}
<h2>Window against BDP</h2>
{{.Window}}
<h2>Candidates</h2>
<table><tr><th>candidate</th><th>memory per connection</th>{{range .R.Options.Directions}}<th>{{.}}</th>{{end}}<th>status</th></tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
<p>Generated by tcptune; took {{printf "%.0f" .R.Elapsed}} s.</p>
<script>
// Mark what the browser actually rendered, for automated checks.
var out = [];
document.querySelectorAll("svg.chart").forEach(function (s) {
  var r = s.getBoundingClientRect(), n = 0;
  s.querySelectorAll(".mark").forEach(function (m) { var b = m.getBBox(); if (b.width > 0 || b.height > 0) n++; });
  out.push(s.id + ":" + Math.round(r.width) + "x" + Math.round(r.height) + ":" + n);
});
document.body.setAttribute("data-rendered", out.join(" "));
</script>
</body></html>
`))

// WriteHTML writes the self-contained report: headline, chosen
// settings, three inline SVG charts, and the candidates.
func WriteHTML(w io.Writer, r *Result) error {
	var heads, limits []string
	for _, d := range r.Options.Directions {
		heads = append(heads, string(d)+": "+r.Headline(d))
	}
	for _, l := range r.Limits() {
		limits = append(limits, fmt.Sprintf("%s (%s): %s", l.When, l.Direction, l.Verdict))
	}
	return reportTmpl.Execute(w, map[string]any{
		"R": r, "Rate": rate(r.Rate), "BDP": size(r.BDP), "Headlines": heads, "Limits": limits, "Choice": r.Choice(), "Rows": r.rows(), "Relay": r.relayNote(),
		"Throughput": template.HTML(throughputChart(r)), "Time": template.HTML(timeChart(r)), "Window": template.HTML(windowChart(r)),
	})
}

// WriteHTMLFile writes the report atomically.
func WriteHTMLFile(path string, r *Result) error {
	var b strings.Builder
	if err := WriteHTML(&b, r); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
