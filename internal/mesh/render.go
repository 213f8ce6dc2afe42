package mesh

import (
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/tcptune/tcptune/internal/units"
)

// cellText is a cell as the text matrix shows it.
func cellText(p Pair, ok bool) string {
	switch {
	case !ok:
		return "-"
	case p.Error != "":
		return "failed"
	}
	return units.FormatRateShort(p.BitsPerSecond) + " (" + p.Why() + ")"
}

// WriteText writes the matrix (rows send, columns receive), then the
// slow pairs with their verdicts.
func WriteText(w io.Writer, pairs []Pair) error {
	m := NewMatrix(pairs)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "from \\ to")
	for _, h := range m.Hosts {
		fmt.Fprint(tw, "\t"+h)
	}
	fmt.Fprintln(tw)
	for _, from := range m.Hosts {
		fmt.Fprint(tw, from)
		for _, to := range m.Hosts {
			p, ok := m.Cells[[2]string{from, to}]
			if from == to {
				fmt.Fprint(tw, "\t·")
				continue
			}
			fmt.Fprint(tw, "\t"+cellText(p, ok))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var slow []string
	for _, p := range pairs {
		if m.Slow(p) {
			why := p.Verdict
			if p.Error != "" {
				why = p.Error
			}
			slow = append(slow, fmt.Sprintf("  %s → %s: %s, %s: %s", p.From, p.To, units.FormatRateShort(p.BitsPerSecond), p.Why(), why))
		}
	}
	if len(slow) > 0 {
		fmt.Fprintf(w, "\nSlow pairs (below half of the fastest, %s):\n%s\n", units.FormatRateShort(m.Best), strings.Join(slow, "\n"))
	}
	return nil
}

var page = template.Must(template.New("mesh").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tcptune mesh</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse}
th,td{border:1px solid #ccc;padding:.5em .8em;text-align:center}
th{background:#f4f4f4}
td.slow{background:#fde2e1}
td.ok{background:#e3f4e1}
td.self{background:#eee;color:#999}
td small{display:block;color:#555}
</style></head><body>
<h1>tcptune mesh</h1>
<p>Rows send, columns receive. Each cell is the median rate of the pair's runs and what limited it; hover for the verdict. Red: below half of the fastest pair ({{.Best}}).</p>
<table id="mesh">
<tr><th>from \ to</th>{{range .Hosts}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.From}}</th>{{range .Cells}}{{if .Self}}<td class="self">·</td>{{else if .Missing}}<td>-</td>{{else}}<td class="{{if .Slow}}slow{{else}}ok{{end}}" title="{{.Title}}" data-from="{{.From}}" data-to="{{.To}}">{{.Rate}}<small>{{.Why}}</small></td>{{end}}{{end}}</tr>
{{end}}</table>
</body></html>
`))

type htmlCell struct {
	From, To, Rate, Why, Title string
	Self, Missing, Slow        bool
}

// WriteHTML writes the matrix as a self-contained HTML page (no
// scripts, no external resources); each cell's title is its verdict.
func WriteHTML(w io.Writer, pairs []Pair) error {
	m := NewMatrix(pairs)
	type row struct {
		From  string
		Cells []htmlCell
	}
	var rows []row
	for _, from := range m.Hosts {
		r := row{From: from}
		for _, to := range m.Hosts {
			p, ok := m.Cells[[2]string{from, to}]
			c := htmlCell{From: from, To: to, Self: from == to, Missing: !ok}
			if ok {
				c.Rate, c.Why, c.Slow = units.FormatRateShort(p.BitsPerSecond), p.Why(), m.Slow(p)
				c.Title = fmt.Sprintf("%s → %s: %s over %d run(s); %s", from, to, c.Rate, p.Runs, p.Verdict)
				if p.Error != "" {
					c.Rate, c.Title = "failed", p.Error
				}
			}
			r.Cells = append(r.Cells, c)
		}
		rows = append(rows, r)
	}
	return page.Execute(w, map[string]any{"Hosts": m.Hosts, "Rows": rows, "Best": units.FormatRateShort(m.Best)})
}

// WriteHTMLFile writes the matrix's page to path, whole or not at all
// (a temporary file, then a rename).
func WriteHTMLFile(path string, pairs []Pair) error {
	var b strings.Builder
	if err := WriteHTML(&b, pairs); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
