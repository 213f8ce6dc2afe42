#!/usr/bin/env bash
# tcptune tune in the lab (issue 10). Needs root and jq. Each scenario
# runs "tcptune tune" with the defaults (3 trials × 5 s per direction
# for the baseline and the verification, one per direction to screen;
# both directions) from the namespaces' inherited settings, and prints
# per direction: the baseline and tuned medians ("tuned" is the
# verification of the choice when it was kept, else the baseline), the
# tuned median as a share of the link's goodput (rate × 1448/1500, the
# lab's truth, not tune's estimate) for the directions tune controls,
# the largest changed tcp_rmem/tcp_wmem maximum ÷ BDP (of a kept
# choice), the highest figure of any trial ÷ the goodput at that trial's
# MSS (1460 with timestamps off), the wall time, and what was kept.
# The last scenario is --peer: tune runs in end a of a 1 Gbit/s × 50 ms
# link with "tcptune serve" in end b, whose tcp_wmem max is 1 MiB.
# Targets: ≥ 93% of goodput in every direction this host controls
# (lossy: ≥ 85%); changed maxima ≤ 4 × BDP; ≤ 3 min; no figure above
# 100% of goodput; in --peer mode the forward gain kept and the peer's
# change printed.
#
#   sudo bench/tune.sh [extra tune flags]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
command -v jq >/dev/null || { echo "bench/tune.sh needs jq (apt-get install jq)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"; "$bin" lab down --all >/dev/null 2>&1 || true' EXIT

report() { # scenario rate_bps rtt_s wall json
	jq -r --arg sc "$1" --argjson rate "$2" --argjson rtt "$3" --arg wall "$4" '
		($rate * 1448 / 1500) as $g
		| ($rate * $rtt / 8) as $bdp
		| (.candidates[] | select(.id == "baseline")) as $b
		| (.candidates[] | select(.id == $ch)) as $c
		| ([.candidates[].trials[]?, .verify.trials[]? | .bits_per_second / ((.mss // 1448) / 1448)] | max) as $top
		| (if .kept then [$c.settings[]? | select(.key == "net.ipv4.tcp_rmem" or .key == "net.ipv4.tcp_wmem") | .value | split(" ") | .[2] | tonumber] | max // 0 else 0 end) as $chg
		| .controllable as $ctl
		| .options.directions[] as $d
		| ($b.summary[$d].median) as $bm
		| (if .verify and .kept then .verify.summary[$d].median else $bm end) as $tm
		| [$sc, $d, (($bm/1e6*10|floor)/10|tostring) + "M", (($tm/1e6*10|floor)/10|tostring) + "M",
		   (if ($ctl | index($d)) != null then ((1000*$tm/$g|floor)/10|tostring) + "%" else "peer-limited" end),
		   (if $chg > 0 then (($chg/$bdp*100|floor)/100|tostring) else "-" end),
		   ((1000*$top/$g|floor)/10|tostring) + "%",
		   $wall + " s",
		   (if .already_full then "already full" elif .kept then (if .applied then "kept, applied" else "kept" end) else "nothing kept" end)
		    + (if (.peer_advice|length) > 0 then "; peer: " + (.peer_advice[0] | capture("sysctl -w (?<c>.*) \\(").c) else "" end)]
		| @tsv' --arg ch "$(jq -r .choice "$5")" "$5" |
	awk -F'\t' '{printf "%-30s %-8s %10s %10s %13s %9s %9s %7s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
}

printf '%-30s %-8s %10s %10s %13s %9s %9s %7s  %s\n' scenario dir baseline tuned /goodput max/BDP top wall result
for sc in "1gbit 50ms 1e9 0.05" "100mbit 200ms 1e8 0.2" "2.5gbit 20ms 2.5e9 0.02" "300mbit 150ms 3e8 0.15 --loss 0.1%"; do
	set -- $sc
	start=$(date +%s)
	"$bin" tune --lab --rate "$1" --rtt "$2" "${@:5}" --json >"$out/r.json" 2>"$out/progress.txt" || { cat "$out/progress.txt" >&2; exit 1; }
	report "lab $1 × $2 ${*:5}" "$3" "$4" "$(( $(date +%s) - start ))" "$out/r.json"
done

# --peer: end a tunes against tcptune serve in end b, whose send buffer is small.
"$bin" lab up tunepeer --rate 1gbit --rtt 50ms >/dev/null
ip netns exec tcptune-tunepeer-b sysctl -qw net.ipv4.tcp_wmem="4096 16384 1048576"
"$bin" lab exec tunepeer b -- "$bin" serve >/dev/null 2>&1 &
sleep 1
start=$(date +%s)
"$bin" lab exec tunepeer a -- sh -c 'exec "$0" tune --peer "$TCPTUNE_PEER" --apply --json' "$bin" >"$out/r.json" 2>"$out/progress.txt" || { cat "$out/progress.txt" >&2; exit 1; }
report "peer 1gbit × 50ms, b wmem 1M" 1e9 0.05 "$(( $(date +%s) - start ))" "$out/r.json"
"$bin" lab down tunepeer >/dev/null
