// Package cores reads per-CPU time from /proc/stat (under an injectable
// root) and tells which core was busy over a test, and on what: user
// code, the kernel, or softirq (the receive path of the network stack).
// A transfer can be held by one saturated core while the host as a
// whole looks half idle; the per-process figures of iperf3's
// cpu_util_* cannot show a softirq core.
package cores

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Times is one CPU's time counters (USER_HZ ticks) of /proc/stat.
type Times struct {
	CPU                                                   int
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

func (t Times) total() uint64 {
	return t.User + t.Nice + t.System + t.Idle + t.IOWait + t.IRQ + t.SoftIRQ + t.Steal
}

// Snapshot is every CPU's counters at one moment.
type Snapshot []Times

// Read reads /proc/stat under root ("/" for the live system).
func Read(root string) (Snapshot, error) {
	f, err := os.Open(filepath.Join(root, "proc/stat"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s Snapshot
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 9 || !strings.HasPrefix(fields[0], "cpu") || fields[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(fields[0][3:])
		if err != nil {
			return nil, fmt.Errorf("/proc/stat: %q: not a CPU line", fields[0])
		}
		t := Times{CPU: n}
		for i, p := range []*uint64{&t.User, &t.Nice, &t.System, &t.Idle, &t.IOWait, &t.IRQ, &t.SoftIRQ, &t.Steal} {
			if *p, err = strconv.ParseUint(fields[i+1], 10, 64); err != nil {
				return nil, fmt.Errorf("/proc/stat: %s: column %d: %v", fields[0], i+1, err)
			}
		}
		s = append(s, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("/proc/stat: no per-CPU lines")
	}
	return s, nil
}

// Load is one core's use over an interval, in percent of that core.
type Load struct {
	CPU     int     `json:"cpu"`
	Busy    float64 `json:"busy_percent"`    // everything but idle and iowait
	User    float64 `json:"user_percent"`    // user and nice
	System  float64 `json:"system_percent"`  // the kernel on behalf of processes
	SoftIRQ float64 `json:"softirq_percent"` // softirq and hardirq: the stack's receive path, interrupts
}

// Saturated is the busy share from which a core counts as saturated:
// with the kernel's accounting at tick granularity, a core that ran
// flat out reads 90–100%.
const Saturated = 90.0

// Since is each core's load from before to s. A core missing from
// either (hot-plugged) is left out.
func (s Snapshot) Since(before Snapshot) []Load {
	prev := map[int]Times{}
	for _, t := range before {
		prev[t.CPU] = t
	}
	var out []Load
	for _, t := range s {
		p, ok := prev[t.CPU]
		if !ok || t.total() <= p.total() {
			continue
		}
		d := float64(t.total() - p.total())
		pct := func(a, b uint64) float64 {
			if a < b {
				return 0
			}
			return 100 * float64(a-b) / d
		}
		l := Load{CPU: t.CPU,
			User:    pct(t.User+t.Nice, p.User+p.Nice),
			System:  pct(t.System, p.System),
			SoftIRQ: pct(t.SoftIRQ+t.IRQ, p.SoftIRQ+p.IRQ),
		}
		l.Busy = 100 - pct(t.Idle+t.IOWait, p.Idle+p.IOWait)
		out = append(out, l)
	}
	return out
}

// Busiest is the most loaded core (false when there is none).
func Busiest(loads []Load) (Load, bool) {
	if len(loads) == 0 {
		return Load{}, false
	}
	b := loads[0]
	for _, l := range loads[1:] {
		if l.Busy > b.Busy {
			b = l
		}
	}
	return b, true
}

// Saturated reports whether the core ran flat out.
func (l Load) Saturated() bool { return l.Busy >= Saturated }

// String is "cpu1 97% busy (softirq 41%, system 50%, user 6%)".
func (l Load) String() string {
	return fmt.Sprintf("cpu%d %.0f%% busy (softirq %.0f%%, system %.0f%%, user %.0f%%)", l.CPU, l.Busy, l.SoftIRQ, l.System, l.User)
}
