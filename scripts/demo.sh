#!/usr/bin/env bash
# The demo: a loopback throughput test with tcptune's explanation of what
# limited it. (It will run `tcptune tune --lab` once tuning exists.)
set -euo pipefail
cd "$(dirname "$0")/.."
port=${TCPTUNE_DEMO_PORT:-5299}
./bin/tcptune serve -p "$port" -1 >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null || true; wait $srv 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	(exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
	sleep 0.1
done
./bin/tcptune bench -c 127.0.0.1 -p "$port" -t 5
