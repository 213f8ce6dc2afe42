package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// checkIRQBalance: is irqbalance running (on more than one CPU)?
func checkIRQBalance(h Host, in inputs) []Result {
	cpus, _ := filepath.Glob(h.path("sys/devices/system/cpu/cpu[0-9]*"))
	procs, err := filepath.Glob(h.path("proc/[0-9]*/comm"))
	if err != nil || len(procs) == 0 {
		return []Result{na("irqbalance", "cannot list processes")}
	}
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) == "irqbalance" {
			return []Result{{Check: "irqbalance", Verdict: OK, Evidence: "irqbalance is running (pid " + filepath.Base(filepath.Dir(p)) + ")"}}
		}
	}
	r := Result{Check: "irqbalance", Verdict: Warn, Evidence: fmt.Sprintf("irqbalance is not running (%d CPUs)", len(cpus)),
		Why: "without it (or manual smp_affinity), one CPU may take every NIC interrupt; or pin queues by hand", Fix: "systemctl enable --now irqbalance"}
	if len(cpus) == 1 {
		r.Verdict, r.Why, r.Fix = OK, "", ""
		r.Evidence += ": not needed on one CPU"
	}
	return []Result{r}
}

// checkGovernor: the CPU frequency governor.
func checkGovernor(h Host, in inputs) []Result {
	files, _ := filepath.Glob(h.path("sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"))
	if len(files) == 0 {
		return []Result{na("cpu-governor", "no cpufreq in sysfs (a VM, or frequency scaling off): nothing to tune here")}
	}
	count := map[string]int{}
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			count[strings.TrimSpace(string(b))]++
		}
	}
	var parts []string
	for g, n := range count {
		parts = append(parts, fmt.Sprintf("%s on %d CPU(s)", g, n))
	}
	sort.Strings(parts)
	r := Result{Check: "cpu-governor", Verdict: OK, Evidence: "governor " + strings.Join(parts, ", ")}
	if len(count) > 1 || count["performance"] == 0 {
		r.Verdict, r.Why, r.Fix = Warn, "a ramping clock adds latency to each burst and lowers per-core throughput (or use tuned's network-throughput profile)", "cpupower frequency-set -g performance"
	}
	return []Result{r}
}
