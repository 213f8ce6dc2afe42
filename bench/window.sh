#!/usr/bin/env bash
# The window model against the kernel: how much of a socket
# buffer becomes payload in flight (the send side) and advertised window
# (the receive side), for several MSS and buffer sizes, on a lab link of
# 1 Gbit/s × 80 ms with a queue of one BDP. Needs root and jq.
#
# Send side: end a's tcp_wmem max is the buffer under test, end b's
# tcp_rmem max is ample (64 MiB); the flow is send-buffer limited, and
# the payload share is bench's mean bytes in flight ÷ the send buffer.
# Receive side: end b's tcp_rmem max is under test, end a's tcp_wmem max
# ample; the share is the largest window b advertised ÷ its tcp_rmem max.
# Each cell is one 6 s trial (2 s omitted), congestion control bbr (it
# fills a buffer within the trial; cubic behind a deep queue is still
# growing its window at the end of 6 s).
# The model (internal/window) says 0.65 received and 0.80 sent for Linux 6.6+
# (the send share is an application's writer; tcptune's own keeps its buffer fuller).
#
#   sudo bench/window.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
command -v jq >/dev/null || { echo "bench/window.sh needs jq" >&2; exit 1; }
trap '"$bin" lab down bw >/dev/null 2>&1 || true; kill $srv 2>/dev/null || true' EXIT
printf '%-5s %-8s %-9s %12s %12s %10s %10s\n' mtu side buffer "in flight" "window" share rate
for mtu in 1500 9000; do
	"$bin" lab down bw >/dev/null 2>&1 || true
	"$bin" lab up bw --rate 1gbit --rtt 80ms --mtu "$mtu" >/dev/null
	"$bin" lab exec bw b -- "$bin" serve >/dev/null 2>&1 &
	srv=$!
	for _ in $(seq 100); do ip netns exec tcptune-bw-b ss -Hltn 'sport = :5201' | grep -q . && break; sleep 0.1; done
	peer=$(jq -r .addr_b /run/tcptune/lab/bw/state.json)
	for side in send receive; do
		for mib in 1 2 4 8; do
			buf=$((mib << 20))
			if [ "$side" = send ]; then
				ip netns exec tcptune-bw-a sysctl -qw net.ipv4.tcp_wmem="4096 16384 $buf"
				ip netns exec tcptune-bw-b sysctl -qw net.ipv4.tcp_rmem="4096 131072 67108864"
			else
				ip netns exec tcptune-bw-a sysctl -qw net.ipv4.tcp_wmem="4096 16384 67108864"
				ip netns exec tcptune-bw-b sysctl -qw net.ipv4.tcp_rmem="4096 131072 $buf"
			fi
			ip netns exec tcptune-bw-a "$bin" bench -c "$peer" -t 6 -O 2 -C bbr -J |
				jq -r --arg mtu "$mtu" --arg side "$side" --argjson buf "$buf" '
					.tcptune.streams[0] as $s
					| [$mtu, $side, (($buf / 1048576 | tostring) + " MiB"), $s.mean_inflight, $s.max_snd_wnd,
					   (if $side == "send" then $s.mean_inflight / $buf else $s.max_snd_wnd / $buf end * 1000 | floor / 1000),
					   ((.end.sum_received.bits_per_second / 1e6 | floor | tostring) + "M")] | @tsv' |
				awk -F'\t' '{printf "%-5s %-8s %-9s %12s %12s %10s %10s\n", $1, $2, $3, $4, $5, $6, $7}'
		done
	done
	kill $srv 2>/dev/null || true
	wait $srv 2>/dev/null || true
done
