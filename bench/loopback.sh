#!/usr/bin/env bash
# Loopback throughput: tcptune against iperf3 3.12 (Debian's) and the
# newest iperf3 (3.22, from scripts/iperf3-newest.sh), side by side in
# one run. Each tool talks to its own server (tcptune serve / iperf3 -s)
# on 127.0.0.1; runs alternate between the tools, RUNS each, single
# stream and -P 2, DURATION seconds each. Prints per-run figures, the
# median receiver throughput of each, the ratios to each iperf3, and CPU
# seconds per GB (client + server user+system time over bytes moved).
#
#   bench/loopback.sh [RUNS] [DURATION] [CLIENT FLAGS…]   (defaults: 5 runs, 5 s)
#   bench/loopback.sh 5 4 --skip-rx-copy -Z               (the same flags for every tool)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dur=${2:-5}
shift $(($# < 2 ? $# : 2))
extra=("$@")
bin=./bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (make deps)"; exit 1; }
new=$(scripts/iperf3-newest.sh) || { echo "iperf3 3.22 is not available (scripts/iperf3-newest.sh)"; exit 1; }
tp=5341 ip=5342 np=5343
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin" serve -p $tp -i 0 >/dev/null 2>&1 & pids+=($!)
iperf3 -s -p $ip >/dev/null 2>&1 & pids+=($!)
"$new" -s -p $np >/dev/null 2>&1 & pids+=($!)
sleep 1
# The wrapper execs the loader: its PID is the server's.
declare -A srv=([tcptune]=${pids[0]} [iperf3-3.12]=${pids[1]} [iperf3-3.22]=${pids[2]})
declare -A port=([tcptune]=$tp [iperf3-3.12]=$ip [iperf3-3.22]=$np)
declare -A cmd=([tcptune]="$bin bench" [iperf3-3.12]=iperf3 [iperf3-3.22]=$new)
tools=(iperf3-3.12 iperf3-3.22 tcptune)

cpu_of() { awk '{print $14+$15}' "/proc/$1/stat"; }   # clock ticks
hz=$(getconf CLK_TCK)

# one TOOL STREAMS: runs one client, appends "bps cpu_seconds bytes" to a file
one() {
	local tool=$1 p=$2 out s0 s1 c
	out="$tmp/out.json"
	s0=$(cpu_of "${srv[$tool]}")
	local TIMEFORMAT='%U %S'
	# shellcheck disable=SC2086
	if ! c=$( { time ${cmd[$tool]} -c 127.0.0.1 -p "${port[$tool]}" -t "$dur" -P "$p" -J "${extra[@]}" > "$out" 2>/dev/null; } 2>&1 ); then
		touch "$tmp/$tool-$p.refused" # e.g. 3.12 has no --skip-rx-copy
		return 0
	fi
	s1=$(cpu_of "${srv[$tool]}")
	python3 - "$out" "$c" "$s0" "$s1" "$hz" >> "$tmp/$tool-$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["end"]["sum_received"]
u, s = map(float, sys.argv[2].split())
srv = (float(sys.argv[4]) - float(sys.argv[3])) / float(sys.argv[5])
print(r["bits_per_second"], u + s + srv, r["bytes"])
PY
}

for p in 1 2; do
	for i in $(seq "$runs"); do
		for t in "${tools[@]}"; do one "$t" $p; done
	done
done

python3 - "$tmp" "$runs" "$dur" "${extra[*]:-}" <<'PY'
import statistics, sys, os
tmp, runs, dur, extra = sys.argv[1:5]
print(f"loopback, {runs} alternating runs per tool, {dur} s each, receiver throughput" + (f", flags: {extra}" if extra else ""))
print(f"{'tool':12} {'streams':>7} {'runs (Gbit/s)':40} {'median':>8} {'CPU s/GB':>9}")
med, cpu = {}, {}
for p in ("1", "2"):
    for tool in ("iperf3-3.12", "iperf3-3.22", "tcptune"):
        if os.path.exists(os.path.join(tmp, f"{tool}-{p}.refused")):
            print(f"{tool:12} {p:>7} refused the flags")
            continue
        rows = [list(map(float, l.split())) for l in open(os.path.join(tmp, f"{tool}-{p}"))]
        g = [r[0] / 1e9 for r in rows]
        cpu[(tool, p)] = sum(r[1] for r in rows) / (sum(r[2] for r in rows) / 1e9)
        med[(tool, p)] = statistics.median(g)
        print(f"{tool:12} {p:>7} {', '.join(f'{x:.1f}' for x in g):40} {med[(tool, p)]:8.2f} {cpu[(tool, p)]:9.3f}")
for p in ("1", "2"):
    for peer in ("iperf3-3.12", "iperf3-3.22"):
        if (peer, p) not in med:
            continue
        print(f"-P {p}: tcptune/{peer} throughput {med[('tcptune', p)] / med[(peer, p)]:.2f}x, "
              f"CPU per GB {cpu[('tcptune', p)] / cpu[(peer, p)]:.2f}x")
PY
