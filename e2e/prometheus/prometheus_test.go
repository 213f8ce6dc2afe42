//go:build linux

package prometheus_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tcptune/tcptune/internal/testutil"
)

// query asks Prometheus's HTTP API for an instant vector.
func query(t *testing.T, api, q string) []struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
} {
	t.Helper()
	resp, err := http.Get(api + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" {
		return nil
	}
	return r.Data.Result
}

func value(v [2]any) float64 {
	s, _ := v[1].(string)
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// A real Prometheus server (Debian's) scrapes tcptune serve --prometheus
// and tcptune watch --prometheus on loopback; its HTTP API must then
// return the finished tests, with their limit verdict as a label, and
// the watched sockets.
func TestPrometheusScrapesServeAndWatch(t *testing.T) {
	prom, err := exec.LookPath("prometheus")
	testutil.Need(t, err == nil, "prometheus is not installed (make deps)")
	bin := testutil.Binary(t)
	ports, _ := testutil.ServeOnFreePorts(t, 2, bin, func(p []int) []string {
		return []string{"serve", "-p", strconv.Itoa(p[0]), "--prometheus", fmt.Sprintf("127.0.0.1:%d", p[1])}
	})
	port, servePort := ports[0], ports[1]
	// Two tests: one each way, from a tcptune client (whose sender view
	// the server receives) at 200 Mbit/s.
	for _, extra := range [][]string{nil, {"-R"}} {
		args := append([]string{"bench", "-c", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1", "-b", "200M"}, extra...)
		if out, errOut, err := testutil.Run(t, 30*time.Second, bin, args...); err != nil {
			t.Fatalf("bench %v: %v\n%s%s", extra, err, out, errOut)
		}
	}
	watchPort, _ := testutil.ServeOnFreePort(t, bin, func(p int) []string {
		return []string{"watch", "--port", strconv.Itoa(port), "--prometheus", fmt.Sprintf("127.0.0.1:%d", p), "-i", "0.5"}
	})

	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(conf, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
scrape_configs:
  - job_name: tcptune-serve
    static_configs: [{targets: ["127.0.0.1:%d"]}]
  - job_name: tcptune-watch
    static_configs: [{targets: ["127.0.0.1:%d"]}]
`, servePort, watchPort)), 0o644)
	promPort, p := testutil.ServeOnFreePort(t, prom, func(port int) []string {
		return []string{"--config.file=" + conf, "--storage.tsdb.path=" + filepath.Join(dir, "data"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port)}
	})
	api := fmt.Sprintf("http://127.0.0.1:%d", promPort)

	deadline := time.Now().Add(60 * time.Second)
	for {
		tests := query(t, api, `tcptune_serve_tests_total{job="tcptune-serve",outcome="completed"}`)
		up := query(t, api, `up{job="tcptune-watch"} == 1`)
		if len(tests) == 1 && value(tests[0].Value) == 2 && len(up) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus never saw both targets' series: tests %v, watch up %v\n%s", tests, up, p.Stderr.String())
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Each direction's last verdict is one limit, named in a label.
	for _, dir := range []string{"client_to_server", "server_to_client"} {
		r := query(t, api, fmt.Sprintf(`tcptune_serve_last_test_limit{direction=%q} == 1`, dir))
		if len(r) != 1 || r[0].Metric["limit"] == "" {
			t.Errorf("%s: last limit %v", dir, r)
		}
		bps := query(t, api, fmt.Sprintf(`tcptune_serve_test_bits_per_second_count{direction=%q}`, dir))
		if len(bps) == 0 {
			t.Errorf("%s: no rate histogram", dir)
		}
	}
	// The -b 200M tests land in the 100..300 Mbit/s bucket, not above.
	if r := query(t, api, `sum(tcptune_serve_test_bits_per_second_bucket{le="3e+08"}) - sum(tcptune_serve_test_bits_per_second_bucket{le="1e+08"})`); len(r) != 1 || value(r[0].Value) < 2 {
		t.Errorf("rates not in the 100..300 Mbit/s bucket: %v", r)
	}
	if r := query(t, api, `count(tcptune_netstat_total{job="tcptune-watch"})`); len(r) != 1 || value(r[0].Value) == 0 {
		t.Errorf("no kernel counters from watch: %v", r)
	}
}
