#!/usr/bin/env bash
# tune's search against an exhaustive oracle on simulated paths
# (internal/tunesim): for each scenario and seed, tune runs on a path
# whose truth is not tune's window model, and its final settings are
# scored by the truth without noise: the worst direction's share of the
# grid's best, the memory of the maxima against the cheapest point
# within 3% of the best, and the trial-seconds the search spent. Prints
# a Markdown table (docs/performance.md records it). No root needed.
#
#   bench/tunesim.sh            # 30 seeds per scenario
#   bench/tunesim.sh 100 satellite   # 100 seeds of the scenarios whose name holds "satellite"
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-30}
only=${2:-}
go test -count=1 -run '^TestBaseline$' -v ./internal/tunesim/ -args -seeds "$seeds" -scenario "$only" |
	sed -n 's/^ *\(|.*|\)$/\1/p; s/^ *tunesim_test.go:[0-9]*: \(seeds .*\)$/\1/p'
