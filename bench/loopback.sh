#!/usr/bin/env bash
# Loopback throughput, tcptune against iperf3, side by side in one run.
# Each tool talks to its own server (tcptune serve / iperf3 -s) on
# 127.0.0.1; runs alternate between the tools, RUNS each, single stream
# and -P 2, DURATION seconds each. Prints per-run figures, the median
# receiver throughput of each, their ratio, and CPU seconds per GB
# (client + server user+system time over bytes moved).
#
#   bench/loopback.sh [RUNS] [DURATION]      (defaults: 5 runs, 5 s)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dur=${2:-5}
bin=./bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (make deps)"; exit 1; }
tp=5341 ip=5342
"$bin" serve -p $tp -i 0 >/dev/null 2>&1 & tsrv=$!
iperf3 -s -p $ip >/dev/null 2>&1 & isrv=$!
trap 'kill $tsrv $isrv 2>/dev/null; wait 2>/dev/null' EXIT
sleep 1
tmp=$(mktemp -d)
trap 'kill $tsrv $isrv 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

cpu_of() { awk '{print $14+$15}' "/proc/$1/stat"; }   # clock ticks
hz=$(getconf CLK_TCK)

# one TOOL STREAMS: runs one client, appends "bps cpu_seconds bytes" to a file
one() {
	local tool=$1 p=$2 srv port client out s0 s1 c
	if [ "$tool" = tcptune ]; then srv=$tsrv port=$tp client=("$bin" bench); else srv=$isrv port=$ip client=(iperf3); fi
	out="$tmp/out.json"
	s0=$(cpu_of $srv)
	local TIMEFORMAT='%U %S'
	c=$( { time "${client[@]}" -c 127.0.0.1 -p $port -t "$dur" -P "$p" -J > "$out" 2>/dev/null; } 2>&1 )
	s1=$(cpu_of $srv)
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
		one iperf3 $p
		one tcptune $p
	done
done

python3 - "$tmp" "$runs" "$dur" <<'PY'
import statistics, sys, os
tmp, runs, dur = sys.argv[1], sys.argv[2], sys.argv[3]
print(f"loopback, {runs} alternating runs per tool, {dur} s each, receiver throughput")
print(f"{'tool':8} {'streams':>7} {'runs (Gbit/s)':40} {'median':>8} {'CPU s/GB':>9}")
med = {}
for p in ("1", "2"):
    for tool in ("iperf3", "tcptune"):
        rows = [list(map(float, l.split())) for l in open(os.path.join(tmp, f"{tool}-{p}"))]
        g = [r[0] / 1e9 for r in rows]
        cpu = sum(r[1] for r in rows) / (sum(r[2] for r in rows) / 1e9)
        med[(tool, p)] = statistics.median(g)
        print(f"{tool:8} {p:>7} {', '.join(f'{x:.1f}' for x in g):40} {med[(tool, p)]:8.2f} {cpu:9.3f}")
for p in ("1", "2"):
    print(f"ratio tcptune/iperf3, -P {p}: {med[('tcptune', p)] / med[('iperf3', p)]:.2f}x")
PY
