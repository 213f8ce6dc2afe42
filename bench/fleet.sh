#!/usr/bin/env bash
# Fleet time: rollout.yml over SSH on eight lab hosts (h1–h8,
# 100 Mbit/s × 20 ms each to the hub, scripts/fleet-lab.sh), with a tune
# result made first on a lab link (rollout_from: no canary), each host
# measured before and after (bench -t T --repeat R) in one batch of all
# eight. Run twice: every host in one path group (measured one at a time,
# as hosts that share a bottleneck must be), then each in its own
# (measured at once). The play's time includes the role's install on
# every host. Prints the wall time of each, the time per host,
# and what 50 hosts would take by the same figures. Needs root.
#
#   sudo bench/fleet.sh [T=2] [R=2]
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-2} r=${2:-2}
bin=$PWD/bin/tcptune
go build -o "$bin" ./cmd/tcptune
dir=$(mktemp -d /tmp/tcptune-fleet-bench.XXXXXX)
specs=""
trap 'FLEET_HOSTS="$specs" scripts/fleet-lab.sh down >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT

echo "a tune result to roll out (tune --lab 1 Gbit/s × 50 ms, forward, 2 trials of 1 s) ..."
"$bin" tune --lab --rate 1gbit --rtt 50ms --time 1 --trials 2 --direction forward --json >"$dir/result.json" 2>/dev/null
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['kept'], r['why']; print('  kept:', r['choice'])" "$dir/result.json"

run() { # label, host specs
	local label=$1
	specs=$2
	FLEET_HOSTS="$specs" scripts/fleet-lab.sh up "$dir/$label" >/dev/null
	local ref
	ref=$(awk '$1 == "ref" {print $2}' "$dir/$label/hosts")
	local start end
	start=$(date +%s.%N)
	scripts/fleet-lab.sh run "$dir/$label" ansible-playbook tcptune.tcptune.rollout \
		-e rollout_group=mesh -e reference_server="$ref" -e rollout_from="$dir/result.json" \
		-e rollout_time="$t" -e rollout_repeat="$r" -e rollout_batch=100% -e rollout_noise=0.5 \
		-e rollout_summary_file="$dir/$label/summary.txt" >"$dir/$label/play.log" 2>&1 ||
		{ echo "$label: rollout failed:"; tail -30 "$dir/$label/play.log"; exit 1; }
	end=$(date +%s.%N)
	cat "$dir/$label/summary.txt"
	python3 -c "import sys; w=float(sys.argv[2])-float(sys.argv[1]); print('%s: %.0f s for 8 hosts, %.1f s a host' % (sys.argv[3], w, w/8))" "$start" "$end" "$label" | tee -a "$dir/times"
	FLEET_HOSTS="$specs" scripts/fleet-lab.sh down >/dev/null
}

hosts() { # group suffix per host ("" = the inventory's one group)
	local s="" i
	for i in 1 2 3 4 5 6 7 8; do
		s+="h$i:100mbit:20ms${1:+:g$i} "
	done
	echo "${s}ref:2.5gbit:0ms"
}
run one-group "$(hosts)"
run eight-groups "$(hosts x)"
echo
echo "T=$t s, R=$r runs: per host, two measurements of R × (T + about 1 s of handshakes) and the apply"
