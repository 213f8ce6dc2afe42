package packaging

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tcptune/tcptune/internal/servemetrics"
	"github.com/tcptune/tcptune/internal/watch"
)

// Every metric the Grafana dashboard queries is one that serve or watch
// exports, so that a renamed metric cannot leave an empty panel.
func TestGrafanaDashboardQueriesExportedMetrics(t *testing.T) {
	b, err := os.ReadFile("grafana/tcptune.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	exported := map[string]bool{}
	descs := make(chan *prometheus.Desc, 100)
	servemetrics.New().Describe(descs)
	watch.NewCollector(nil).Describe(descs)
	close(descs)
	name := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range descs {
		if m := name.FindStringSubmatch(d.String()); m != nil {
			exported[m[1]] = true
		}
	}
	metric := regexp.MustCompile(`tcptune_[a-z_]+`)
	suffix := regexp.MustCompile(`_(bucket|count|sum)$`)
	queries := 0
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, m := range metric.FindAllString(tg.Expr, -1) {
				queries++
				if !exported[m] && !exported[suffix.ReplaceAllString(m, "")] {
					t.Errorf("panel %q queries %s, which neither serve nor watch exports", p.Title, m)
				}
			}
		}
	}
	if queries < 8 {
		t.Fatalf("only %d metric references in the dashboard", queries)
	}
}
