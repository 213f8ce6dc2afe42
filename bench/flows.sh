#!/usr/bin/env bash
# What watch --flows costs and whether it misses flows. Needs root. In a
# throwaway namespace (loopback traffic only), prints:
#  - at RATE ended flows a second (default 1000) for SECS seconds (default
#    20): the watcher's CPU (% of one core, /proc/PID/stat), its peak
#    resident memory, the flows it recorded against the namespace's
#    ActiveOpens + PassiveOpens (each loopback connection is two flows,
#    both ends), and event overruns;
#  - with 10,000 open sockets (5,000 connections) held for SECS: its peak
#    resident memory and CPU, dumping them every second;
#  - the load's own rate without and with the watcher, alternating, RUNS
#    times (default 3): connections a second made as fast as they can
#    (5 s each), and a 5 s tcptune bench on loopback; with the watcher,
#    the flows it recorded against the kernel's opens.
#
#   sudo bench/flows.sh [RATE [SECS [RUNS]]]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
rate=${1:-1000} secs=${2:-20} runs=${3:-3}
ns=tcptune-flowbench
gen=$PWD/bench/flowgen.py
hz=$(getconf CLK_TCK)
tmp=$(mktemp -d)
watcher=
cleanup() {
	[ -n "$watcher" ] && kill "$watcher" 2>/dev/null || true
	ip netns pids $ns 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns del $ns 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
cleanup
tmp=$(mktemp -d)
ip netns add $ns
ip -n $ns link set lo up
ulimit -n "$(ulimit -Hn)" # 10,000 sockets in one process need as many descriptors
nsrun() { ip netns exec $ns "$@"; }

# start_watch OUT: the watcher in the namespace, writing --json to OUT;
# returns when it listens.
start_watch() {
	"$bin" watch --flows --netns $ns --json >"$1" 2>"$tmp/err" &
	watcher=$!
	for _ in $(seq 100); do grep -q listening "$tmp/err" 2>/dev/null && return; sleep 0.05; done
	echo "watch --flows did not start: $(cat "$tmp/err")" >&2; exit 1
}
stop_watch() { kill -INT "$watcher"; wait "$watcher" || true; watcher=; }
cpu() { awk '{print $14+$15}' /proc/"$1"/stat; }
hwm() { awk '/VmHWM/{print $2}' /proc/"$1"/status; }
opens() { nsrun cat /proc/net/snmp | awk '/^Tcp:/{if(!h){for(i=1;i<=NF;i++){if($i=="ActiveOpens")a=i;if($i=="PassiveOpens")p=i};h=1}else print $a+$p}'; }
summary() { tail -1 "$1" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print(s["flows"], s["overruns"], s["kernel_opens"])'; }

echo "== $rate ended flows a second for $secs s (watch --flows --json to a file)"
start_watch "$tmp/churn.json"
o0=$(opens); c0=$(cpu "$watcher"); t0=$(date +%s.%N)
made=$(nsrun python3 "$gen" churn "$((rate / 2))" "$secs") # two ends, two flows
sleep 1
c1=$(cpu "$watcher"); t1=$(date +%s.%N); o1=$(opens); mem=$(hwm "$watcher")
stop_watch
read -r flows overruns kopens < <(summary "$tmp/churn.json")
python3 -c "
made, mrate = '$made'.split()
print(f'connections made: {made} ({mrate}/s, {2*int(mrate)} ended flows/s); flows ended: {2*int(made)} expected')
print(f'watcher CPU: {($c1-$c0)/$hz/($t1-$t0)*100:.2f}% of one core; peak resident {$mem/1024:.1f} MB')
print(f'flows recorded: $flows; kernel opens over the run: $kopens (by /proc/net/snmp: $((o1-o0))); event overruns: $overruns; missed: {$kopens-$flows}')"

echo "== 10,000 open sockets held for $secs s (dumped every second)"
nsrun python3 "$gen" hold 5000 "$((secs + 5))" >"$tmp/hold" &
holder=$!
for _ in $(seq 200); do [ -s "$tmp/hold" ] && break; sleep 0.1; done
start_watch "$tmp/hold.json"
c0=$(cpu "$watcher"); t0=$(date +%s.%N)
sleep "$secs"
c1=$(cpu "$watcher"); t1=$(date +%s.%N); mem=$(hwm "$watcher")
stop_watch
kill $holder 2>/dev/null || true; wait $holder 2>/dev/null || true
python3 -c "print(f'sockets: {2*$(cat "$tmp/hold")}; watcher CPU: {($c1-$c0)/$hz/($t1-$t0)*100:.2f}% of one core; peak resident {$mem/1024:.1f} MB')"

echo "== the load's own rate without and with the watcher ($runs runs each, alternating)"
nsrun "$bin" serve -i 0 >/dev/null 2>&1 &
sleep 0.5
for i in $(seq "$runs"); do
	for w in without with; do
		[ $w = with ] && start_watch "$tmp/load.json"
		c=$(nsrun python3 "$gen" churn 0 5 | awk '{print $2}')
		b=$(nsrun "$bin" bench -c 127.0.0.1 -t 5 -J | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9,2))')
		seen=
		if [ $w = with ]; then
			stop_watch
			read -r flows overruns kopens < <(summary "$tmp/load.json")
			seen="; flows recorded $flows of $kopens opened, overruns $overruns"
		fi
		echo "run $i $w: $c connections/s, bench $b Gbit/s$seen"
	done
done
