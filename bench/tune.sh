#!/usr/bin/env bash
# tcptune tune in the lab (issue 6). Needs root. For each scenario it runs
# "tcptune tune --lab" with the defaults (3 trials × 5 s per candidate and
# direction, both directions) from the namespaces' inherited settings and
# prints: baseline and tuned medians (the worse direction; "tuned" is
# the verification of the choice, or the baseline when it was rolled
# back), the tuned median as a share of the link's goodput (rate ×
# MSS/MTU) and of its rate, the chosen candidate's tcp_rmem/tcp_wmem
# maxima ÷ BDP, and the wall time.
# Targets: ≥ 93% of goodput at 1 Gbit/s × 50 ms, ≥ 90% at 100 Mbit/s ×
# 200 ms and 2.5 Gbit/s × 20 ms; maxima ≤ 4 × BDP.
#
#   sudo bench/tune.sh [extra tune flags]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
command -v jq >/dev/null || { echo "bench/tune.sh needs jq (apt-get install jq)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"; "$bin" lab down --all >/dev/null 2>&1 || true' EXIT

printf '%-22s %12s %12s %9s %8s %10s %10s %8s  %s\n' scenario baseline tuned /goodput /rate rmem/BDP wmem/BDP wall choice
for sc in "1gbit 50ms" "100mbit 200ms" "2.5gbit 20ms"; do
	set -- $sc
	start=$(date +%s)
	"$bin" tune --lab --rate "$1" --rtt "$2" --json "${@:3}" >"$out/r.json" 2>"$out/progress.txt" || { cat "$out/progress.txt" >&2; exit 1; }
	wall=$(( $(date +%s) - start ))
	jq -r --arg sc "$1 × $2" --arg wall "$wall" '
		def worse(c): [c.summary[]?.median] | min;
		(.candidates[] | select(.id == "baseline")) as $b
		| (.candidates[] | select(.id == $ch)) as $c
		| (if .verify and .kept then worse(.verify) else worse($b) end) as $t
		| [$sc, (worse($b)/1e6 | tostring | .[0:6]) + "M", ($t/1e6 | tostring | .[0:6]) + "M",
		   ((100*$t/.link_goodput_bits_per_second) | floor | tostring) + "%",
		   ((100*$t/.rate_bits_per_second) | floor | tostring) + "%",
		   (($c.rmem_max / .bdp_bytes * 100 | floor) / 100 | tostring),
		   (($c.wmem_max / .bdp_bytes * 100 | floor) / 100 | tostring),
		   $wall + " s", (.choice + (if .kept then " (kept)" else " (rolled back: baseline stays)" end))]
		| @tsv' --arg ch "$(jq -r .choice "$out/r.json")" "$out/r.json" |
	awk -F'\t' '{printf "%-22s %12s %12s %9s %8s %10s %10s %8s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9}'
done
