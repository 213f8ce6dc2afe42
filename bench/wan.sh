#!/usr/bin/env bash
# tcptune against iperf3 3.12 (Debian's) and 3.22 (scripts/iperf3-newest.sh)
# on emulated wide-area paths, in both roles. Needs root (lab namespaces).
#
# Role "client": tcptune bench, iperf3 3.12 and iperf3 3.22 as clients of
# the same server (iperf3 3.12 -s), sending.
# Role "server": tcptune serve, iperf3 3.12 -s and iperf3 3.22 -s as
# servers of the same client (iperf3 3.22), forward (the server receives)
# and -R (the server sends).
#
# Paths (one lab link each, cubic unless named, Linux defaults unless named:
# tcp_wmem max 4 MiB, tcp_rmem max 32 MiB):
#   sndbuf   1 Gbit/s × 60 ms: the send buffer holds the flow
#   rwnd     1 Gbit/s × 60 ms, tcp_rmem max 4 MiB and tcp_wmem max 32 MiB
#            at both ends: the receiver's window holds it
#   full     1 Gbit/s × 30 ms, both maxima 32 MiB: the link holds it
#   full-bbr the same with bbr
#   p4       1 Gbit/s × 60 ms, defaults, -P 4
#   loss     200 Mbit/s × 30 ms, 0.1% random loss, both maxima 32 MiB
#
# Runs alternate between the tools; each figure is the median of RUNS
# runs of DURATION seconds after an omitted OMIT seconds (iperf3's -O:
# slow start is not the steady state under test). Prints every run's
# receiver throughput and retransmits, the medians, tcptune's median over
# each iperf3's, and whether the targets hold: tcptune ≥ 98% of each
# iperf3's median, retransmits ≤ 1.5 × iperf3's median + 100 (both after
# the omitted start). Where the client sends, the retransmits over the
# whole test, slow start included, are shown too.
#
#   sudo bench/wan.sh [RUNS] [DURATION] [OMIT]     (defaults: 5 runs, 6 s, 2 s)
#   sudo PATHS="sndbuf p4" ROLES=client bench/wan.sh 3
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dur=${2:-6}
omit=${3:-2}
paths=${PATHS:-sndbuf rwnd full full-bbr p4 loss}
roles=${ROLES:-client server}
bin=$PWD/bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
command -v iperf3 >/dev/null || { echo "iperf3 is not installed (make deps)" >&2; exit 1; }
new=$(scripts/iperf3-newest.sh) || { echo "iperf3 3.22 is not available (scripts/iperf3-newest.sh)" >&2; exit 1; }
lab=bwan
a=tcptune-$lab-a
b=tcptune-$lab-b
tmp=$(mktemp -d)
srv=()
stop_servers() {
	[ ${#srv[@]} -eq 0 ] || { kill "${srv[@]}" 2>/dev/null || true; wait "${srv[@]}" 2>/dev/null || true; }
	srv=()
}
cleanup() { stop_servers; "$bin" lab down $lab >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# up PATH: the lab link and the namespaces' settings for PATH; sets cc, par, peer.
up() {
	local link wmem=4194304 rmem=33554432
	cc=cubic par=1
	case $1 in
	sndbuf) link="--rate 1gbit --rtt 60ms" ;;
	rwnd) link="--rate 1gbit --rtt 60ms" rmem=4194304 wmem=33554432 ;;
	full) link="--rate 1gbit --rtt 30ms" wmem=33554432 ;;
	full-bbr) link="--rate 1gbit --rtt 30ms" wmem=33554432 cc=bbr ;;
	p4) link="--rate 1gbit --rtt 60ms" par=4 ;;
	loss) link="--rate 200mbit --rtt 30ms --loss 0.1%" wmem=33554432 ;;
	*) echo "unknown path $1 (sndbuf rwnd full full-bbr p4 loss)" >&2; exit 2 ;;
	esac
	"$bin" lab down $lab >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	"$bin" lab up $lab $link >/dev/null
	for ns in $a $b; do
		ip netns exec $ns sysctl -qw net.ipv4.tcp_wmem="4096 16384 $wmem" net.ipv4.tcp_rmem="4096 131072 $rmem"
	done
	peer=$("$bin" lab ls --json | python3 -c 'import json,sys; print(next(l["addr_b"] for l in json.load(sys.stdin) if l["name"]=="'$lab'"))')
}

# serve NS PORT CMD…: starts a server in NS and waits until it listens.
serve() {
	local ns=$1 port=$2
	shift 2
	ip netns exec "$ns" "$@" >/dev/null 2>&1 &
	srv+=($!)
	for _ in $(seq 100); do
		ip netns exec "$ns" ss -Hltn "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	echo "server $* did not listen on $port" >&2
	exit 1
}

# one FILE PORT CLIENT…: one run; appends "bps retransmits whole" to FILE:
# the retransmits after the omitted start, and over the whole test where
# the client sent (its intervals carry them, the omitted ones included;
# -1 otherwise).
one() {
	local file=$1 port=$2
	shift 2
	local out=$tmp/out.json
	if ! ip netns exec $a "$@" -c "$peer" -p "$port" -t "$dur" -O "$omit" -P "$par" -C "$cc" -J >"$out" 2>/dev/null; then
		echo "failed: $*" >&2
		return 0
	fi
	python3 - "$out" >>"$file" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["end"]
whole = [iv["sum"].get("retransmits") for iv in d.get("intervals", [])]
whole = sum(whole) if whole and None not in whole else -1
print(e["sum_received"]["bits_per_second"], e["sum_sent"].get("retransmits", 0), whole)
PY
}

for path in $paths; do
	up "$path"
	stop_servers
	serve $b 5201 iperf3 -s -p 5201
	serve $b 5202 "$new" -s -p 5202
	serve $b 5203 "$bin" serve -p 5203 -i 0
	for i in $(seq "$runs"); do
		for role in $roles; do
			case $role in
			client)
				one "$tmp/$path client fwd tcptune" 5201 "$bin" bench
				one "$tmp/$path client fwd iperf3-3.12" 5201 iperf3
				one "$tmp/$path client fwd iperf3-3.22" 5201 "$new"
				;;
			server)
				for dir in fwd rev; do
					r=()
					[ $dir = rev ] && r=(-R)
					one "$tmp/$path server $dir tcptune" 5203 "$new" "${r[@]}"
					one "$tmp/$path server $dir iperf3-3.12" 5201 "$new" "${r[@]}"
					one "$tmp/$path server $dir iperf3-3.22" 5202 "$new" "${r[@]}"
				done
				;;
			esac
		done
	done
	stop_servers
done

python3 - "$tmp" "$runs" "$dur" "$omit" "$paths" "$roles" <<'PY'
import os, statistics, sys
tmp, runs, dur, omit, paths, roles = sys.argv[1:7]
print(f"WAN paths (lab), {runs} alternating runs per tool, -t {dur} -O {omit}; receiver Mbit/s (retransmits)")
print(f"{'path':9} {'role':7} {'dir':4} {'tcptune':>16} {'iperf3 3.12':>16} {'iperf3 3.22':>16} {'×3.12':>6} {'×3.22':>6}  targets")
bad = 0
for path in paths.split():
    for role in roles.split():
        for d in (("fwd",) if role == "client" else ("fwd", "rev")):
            med = {}
            for tool in ("tcptune", "iperf3-3.12", "iperf3-3.22"):
                f = os.path.join(tmp, f"{path} {role} {d} {tool}")
                rows = [list(map(float, l.split())) for l in open(f)] if os.path.exists(f) else []
                if rows:
                    med[tool] = (statistics.median(r[0] for r in rows) / 1e6, statistics.median(r[1] for r in rows), rows)
            if "tcptune" not in med:
                print(f"{path:9} {role:7} {d:4} no runs"); bad += 1; continue
            t = med["tcptune"]
            cells, ratios, why = [], [], []
            for tool in ("tcptune", "iperf3-3.12", "iperf3-3.22"):
                m = med.get(tool)
                cells.append(f"{m[0]:8.1f} ({m[1]:5.0f})" if m else f"{'-':>16}")
            for tool in ("iperf3-3.12", "iperf3-3.22"):
                m = med.get(tool)
                if not m:
                    ratios.append(f"{'-':>6}"); continue
                ratios.append(f"{t[0] / m[0]:6.3f}")
                if t[0] < 0.98 * m[0]:
                    why.append(f"rate < 98% of {tool}")
                if t[1] > 1.5 * m[1] + 100:
                    why.append(f"retransmits > 1.5 × {tool}'s + 100")
            bad += bool(why)
            print(f"{path:9} {role:7} {d:4} {' '.join(cells)} {' '.join(ratios)}  {'; '.join(why) or 'hold'}")
            for tool in ("tcptune", "iperf3-3.12", "iperf3-3.22"):
                if tool in med:
                    rows = med[tool][2]
                    line = " ".join(f"{r[0] / 1e6:.1f}({r[1]:.0f})" for r in rows)
                    if all(len(r) > 2 and r[2] >= 0 for r in rows):
                        line += f"   whole test: median {statistics.median(r[2] for r in rows):.0f} retransmits"
                    print(f"{'':22} {tool:12} " + line)
print("all targets hold" if not bad else f"{bad} case(s) short of the targets")
PY
