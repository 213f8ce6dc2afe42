#!/usr/bin/env bash
# Lab link accuracy and capacity. Needs root. Prints:
#  - relay capacity at 0 ms and 50 ms RTT (128 MiB buffers, rate 40 Gbit/s),
#    and at 0 ms with each of the path's features on (CoDel, a policer, a
#    rate schedule, jitter, reordering, Gilbert-Elliott loss);
#  - RTT accuracy, configured vs measured (TCP-connect RTT, median of 20);
#  - goodput vs rate at 100 Mbit/s, 1 Gbit/s, 2.5 Gbit/s × 50 ms (CUBIC,
#    buffers 4 × BDP, 10 s with 3 s omitted), tcptune bench and iperf3
#    side by side, as a share of rate × MSS/MTU;
#  - relay CPU (% of one core) and relay drops vs the sender's TcpRetransSegs.
#
#   sudo bench/lab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
name=bench
cleanup() { "$bin" lab down $name >/dev/null 2>&1 || true; }
trap cleanup EXIT
hz=$(getconf CLK_TCK)

up() { # rate rtt
	cleanup
	"$bin" lab up $name --rate "$1" --rtt "$2" >/dev/null
	"$bin" lab exec $name b -- "$bin" serve -i 0 >/dev/null 2>&1 &
	"$bin" lab exec $name b -- iperf3 -s -p 5202 >/dev/null 2>&1 &
	sleep 0.5
}
bufs() { # bytes
	for s in a b; do
		"$bin" lab exec $name $s -- sh -c "echo '4096 131072 $1' > /proc/sys/net/ipv4/tcp_rmem; echo '4096 16384 $1' > /proc/sys/net/ipv4/tcp_wmem"
	done
}
relay_pid() { "$bin" lab ls --json | python3 -c 'import json,sys; print([l for l in json.load(sys.stdin) if l["name"]=="'$name'"][0]["pid"])'; }
relay_cpu() { awk '{print $14+$15}' /proc/"$1"/stat; }
retrans() { "$bin" lab exec $name a -- cat /proc/net/snmp | awk '/^Tcp:/{if(!h){for(i=1;i<=NF;i++)if($i=="RetransSegs")c=i;h=1}else print $c}'; }
drops() { "$bin" lab ls --json | python3 -c 'import json,sys; s=[l for l in json.load(sys.stdin) if l["name"]=="'$name'"][0]["stats"]["a_to_b"]; print(s["loss_drops"]+s["queue_drops"]+s["ring_drops"])'; }

# run TOOL ARGS: prints "Mbit/s relay_cpu% retrans drops"
run() {
	local tool=$1; shift
	local pid c0 r0 d0 t0 out
	sleep 1.2 # let the relay publish fresh counters
	pid=$(relay_pid); c0=$(relay_cpu "$pid"); r0=$(retrans); d0=$(drops); t0=$(date +%s.%N)
	if [ "$tool" = tcptune ]; then
		out=$("$bin" lab exec $name a -- "$bin" bench -c 10.201.1.2 -J "$@")
	else
		out=$("$bin" lab exec $name a -- iperf3 -c 10.201.1.2 -p 5202 -J "$@")
	fi
	sleep 1.2
	local c1 r1 d1 t1
	c1=$(relay_cpu "$pid"); r1=$(retrans); d1=$(drops); t1=$(date +%s.%N)
	echo "$out" | python3 -c '
import json,sys
d=json.load(sys.stdin); bps=d["end"]["sum_received"]["bits_per_second"]
cpu=('"$c1"'-'"$c0"')/'"$hz"'/('"$t1"'-'"$t0"')*100
print(f"{bps/1e6:.1f} {cpu:.0f} {'"$r1"'-'"$r0"'} {'"$d1"'-'"$d0"'}")'
}

echo "== relay capacity (rate 40gbit, queue 16 MB, tcp_[rw]mem max 128 MiB, CUBIC, 8 s, 2 s omitted)"
for rtt in 0ms 50ms; do
	up 40gbit $rtt; "$bin" lab down $name >/dev/null; "$bin" lab up $name --rate 40gbit --rtt $rtt --queue 16M >/dev/null
	"$bin" lab exec $name b -- "$bin" serve -i 0 >/dev/null 2>&1 &
	sleep 0.5; bufs 134217728
	read -r mbps cpu _ _ < <(run tcptune -t 8 -O 2 -C cubic)
	echo "RTT $rtt: $mbps Mbit/s, relay CPU $cpu%"
done

echo "== relay capacity at 0 ms with each of the path's features on (as above)"
for feature in "--rate 40gbit --codel 5ms" "--rate 40gbit --police 40gbit --police-burst 64M" "--rate-schedule 40gbit:1s" \
	"--rate 40gbit --jitter 20us" "--rate 40gbit --reorder 0.01%,50us" "--rate 40gbit --loss-gemodel 0.0001%,50%"; do
	cleanup
	# shellcheck disable=SC2086
	"$bin" lab up $name --rtt 0ms --queue 16M $feature >/dev/null
	"$bin" lab exec $name b -- "$bin" serve -i 0 >/dev/null 2>&1 &
	sleep 0.5; bufs 134217728
	read -r mbps cpu _ _ < <(run tcptune -t 8 -O 2 -C cubic)
	echo "$feature: $mbps Mbit/s, relay CPU $cpu%"
done

echo "== RTT accuracy (median of 20 TCP-connect RTTs; target within 0.3 ms + 1%)"
for ms in 1 10 50 200; do
	up 1gbit ${ms}ms
	med=$("$bin" lab exec $name a -- "$bin" ping 10.201.1.2 -p 5201 -c 20 -i 20ms | awk -F'[/ ]' '/^rtt/{print $7}')
	echo "configured $ms ms: measured $med ms (target ≤ $(python3 -c "print($ms+0.3+0.01*$ms)") ms)"
done

echo "== goodput vs rate at 50 ms (target ≥ 97% of rate × MSS/MTU at 1 Gbit/s; relay drops = TcpRetransSegs)"
for rate in 100mbit 1gbit 2.5gbit; do
	up $rate 50ms
	r=$(python3 -c "print({'100mbit':100e6,'1gbit':1e9,'2.5gbit':2.5e9}['$rate'])")
	bufs "$(python3 -c "print(int(4*$r*0.05/8))")"
	for tool in tcptune iperf3; do
		read -r mbps cpu rt dr < <(run $tool -t 10 -O 3 -C cubic)
		echo "$rate $tool: $mbps Mbit/s = $(python3 -c "print(f'{$mbps*1e6/($r*1448/1500)*100:.1f}')")% of goodput; relay CPU $cpu%; relay drops $dr, sender retransmits $rt"
	done
done
