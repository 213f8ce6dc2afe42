#!/usr/bin/env bash
# tcptune tune in the lab, measured against a brute-force sweep. Needs
# root and jq. Each scenario runs "tcptune tune" with
# the defaults (3 trials × 5 s per direction for the baseline and the
# verification, one per direction to screen; both directions) from the
# namespaces' inherited settings, then sweeps a grid on a link of the
# same kind: tcp_rmem and tcp_wmem max at 0.5, 1, 1.5, 2, 3 and 4 × BDP
# (both alike), crossed with the congestion controls in $SWEEP_CCS,
# $SWEEP_TRIALS full trials per point and direction (tcptune bench -J,
# counted as tune counts: the payload the sender's kernel delivered, or
# the receiver's count where a stock iperf3 sends; the same omitted
# start as tune's), and keeps the best median per direction.
#
# Printed per scenario and direction: the baseline and tuned medians
# ("tuned" is the verification of the choice when it was kept, else the
# baseline), the tuned median as a share of the link's goodput at its
# MSS (rate × MSS ÷ MTU: 1448/1500 at MTU 1500, 8948/9000 with jumbo
# frames, 1460/1500 without timestamps; the lab's truth, not tune's
# estimate) for the directions
# tune controls, the sweep's best (its point and congestion control),
# tune ÷ the sweep's best, the largest changed tcp_rmem/tcp_wmem maximum
# ÷ BDP of a kept choice, its memory (rmem + wmem max) ÷ that of the
# sweep's best point (each maximum floored at the host's own, which tune
# never lowers), the highest figure of any trial ÷ the goodput at that
# trial's MSS (plus, behind a policer, its bucket spread over the
# trial: a full bucket passes on top of the rate), the wall time, and
# what was kept; in the lab, "relay behind X ms" where its relay added
# more to the RTT than the lab's accuracy (0.3 ms + 1%): that run's
# figures are partly this machine's.
#
# Scenarios: "lab" runs tune --lab (both ends change); "peer-serve",
# "peer-3.22" and "peer-3.12" run tune --peer in end a of a link with
# tcptune serve, iperf3 3.22 (scripts/iperf3-newest.sh) or Debian's
# iperf3 in end b (only end a changes; the sweep changes end a only).
# "-C cubic" stands for hosts whose default is cubic: this machine's
# namespaces inherit bbr and can default only to the host's allowed
# controls. tune's trials and the sweep's (--cc-from-start, at both
# ends in the lab) set the control before connecting, so that a cubic
# flow does not keep the pacing a connection begun under BBR has. "cross" runs a constant 200 Mbit/s UDP flow from a to b
# during tune and the sweep. "txqueuelen 8" gives the hosts a transmit
# ring too short for cubic's bursts: no buffer helps there, so
# its sweep stays low and tune ÷ sweep says what the queue lever is worth.
# "path carries 9000" gives hosts at MTU 1500 a path that carries jumbo
# frames: the sweep's settings are all at 1500, so tune ÷
# sweep says whether the kept MTU beats every 1500-byte setting.
#
# The path's features: "jitter + reordered" (normal jitter, packets
# keeping their order, and a share held back for others to overtake),
# "bursty loss" (Gilbert-Elliott), "policed" (a token bucket below the
# link's rate: its rate is the path's goodput here) and "asymmetric"
# (forward 200 Mbit/s, reverse 20; tune --lab takes symmetric links, so
# tune --peer against tcptune serve; each direction's goodput is its
# own rate's).
#
# Targets: ≥ 95% of the sweep's best in every direction tune
# controls; changed maxima ≤ 4 × BDP; memory ≤ 1.5 × the sweep's best
# point's; ≤ 3 min (≤ 4 min at RTT ≥ 500 ms); no figure above 100% of
# goodput.
#
#   sudo bench/tune.sh [SCENARIO-NAME ...]     (default: all; SWEEP=0 skips the sweeps;
#                                               TUNE=0 runs only the sweeps, printing their best
#                                               per direction; TUNE_FLAGS="--time 1" adds tune
#                                               flags, for a quick check)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/bin/tcptune
[ -x "$bin" ] || go build -o "$bin" ./cmd/tcptune
command -v jq >/dev/null || { echo "bench/tune.sh needs jq (apt-get install jq)" >&2; exit 1; }
SWEEP=${SWEEP:-1}
TUNE=${TUNE:-1}
SWEEP_TRIALS=${SWEEP_TRIALS:-2}
SWEEP_TIME=${SWEEP_TIME:-5}
SWEEP_CCS=${SWEEP_CCS:-cubic bbr}
out=$(mktemp -d)
bg=()
cleanup() {
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$out"
	for l in bt bs; do "$bin" lab down "$l" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# name | mode | link flags | tune flags | b's tcp_wmem max (peer modes; "" = inherited) | cross
scenarios=(
	"1g×50ms bbr|lab|--rate 1gbit --rtt 50ms|||"
	"100m×200ms|lab|--rate 100mbit --rtt 200ms|||"
	"2.5g×20ms|lab|--rate 2.5gbit --rtt 20ms|||"
	"300m×150ms loss 0.1%|lab|--rate 300mbit --rtt 150ms --loss 0.1%|||"
	"peer serve, b wmem 1M|peer-serve|--rate 1gbit --rtt 50ms||1048576|"
	"cubic 1g×40ms q 0.2bdp|lab|--rate 1gbit --rtt 40ms --queue 0.2bdp|-C cubic||"
	"satellite 100m×600ms|lab|--rate 100mbit --rtt 600ms|||"
	"peer iperf3 3.22 1g×50ms|peer-3.22|--rate 1gbit --rtt 50ms|||"
	"peer iperf3 3.12 cubic q 0.3bdp|peer-3.12|--rate 1gbit --rtt 40ms --queue 0.3bdp|-C cubic||"
	"peer serve + 200M UDP cross|peer-serve|--rate 1gbit --rtt 50ms|||cross"
	"cubic 1g×20ms, hosts' txqueuelen 8|lab|--rate 1gbit --rtt 20ms --txqueuelen 8|-C cubic||"
	"2.5g×20ms, path carries 9000|lab|--rate 2.5gbit --rtt 20ms --path-mtu 9000|||"
	"peer iperf3 3.12 cubic 2g×25ms q 0.5bdp|peer-3.12|--rate 2gbit --rtt 25ms --queue 0.5bdp|-C cubic||"
	"peer iperf3 3.22 cubic 2g×25ms q 0.5bdp|peer-3.22|--rate 2gbit --rtt 25ms --queue 0.5bdp|-C cubic||"
	"jitter 2ms + 0.5% reordered 1g×40ms|lab|--rate 1gbit --rtt 40ms --jitter 2ms,normal --reorder 0.5%,3ms --seed 5|||"
	"bursty loss 300m×60ms|lab|--rate 300mbit --rtt 60ms --loss-gemodel 0.01%,30% --seed 5|||"
	"policed at 200m, 1g×30ms|lab|--rate 1gbit --rtt 30ms --police 200mbit --police-burst 1M|||"
	"peer serve, asymmetric 200m/20m×30ms|peer-serve|--rate 200mbit/20mbit --rtt 30ms|||"
)

server_argv() { # mode → the server command in end b, on port 5201
	case $1 in
	lab) echo "$bin serve -p 5201 --cc-from-start" ;; # as tune --lab's own server
	peer-serve) echo "$bin serve -p 5201" ;;
	peer-3.22) echo "$(scripts/iperf3-newest.sh) -s -p 5201" ;;
	peer-3.12) echo "iperf3 -s -p 5201" ;;
	esac
}

# link NAME MODE LINKFLAGS BWMEM CROSS: a link with a server in end b
link() {
	"$bin" lab down "$1" >/dev/null 2>&1 || true
	"$bin" lab up "$1" $3 >/dev/null
	[ -n "$4" ] && ip netns exec "tcptune-$1-b" sysctl -qw net.ipv4.tcp_wmem="4096 16384 $4"
	"$bin" lab exec "$1" b -- $(server_argv "$2") >/dev/null 2>&1 &
	bg+=($!)
	if [ -n "$5" ]; then
		"$bin" lab exec "$1" b -- "$bin" serve -p 5301 >/dev/null 2>&1 &
		bg+=($!)
	fi
	for _ in $(seq 100); do # wait until end b listens
		ip netns exec "tcptune-$1-b" ss -Hltn 'sport = :5201' | grep -q . && break
		sleep 0.1
	done
	if [ -n "$5" ]; then
		sleep 0.5
		"$bin" lab exec "$1" a -- sh -c 'exec "$0" bench -c "$TCPTUNE_PEER" -p 5301 -u -b 200M -t 3600' "$bin" >/dev/null 2>&1 &
		bg+=($!)
	fi
}

peer_of() { jq -r .addr_b "/run/tcptune/lab/$1/state.json"; }

# sweep LINK MODE RATE RTT_S OMIT TUNEFLAGS → "dir best_bps point cc mem" lines
sweep() {
	local l=$1 mode=$2 rate=$3 rtt=$4 omit=$5 peer ns m v cc d t r
	peer=$(peer_of "$l")
	local bdp
	bdp=$(jq -n --argjson r "$rate" --argjson t "$rtt" '$r * $t / 8 | floor')
	ns="tcptune-$l-a"
	[ "$mode" = lab ] && ns="tcptune-$l-a tcptune-$l-b"
	: >"$out/sweep.tsv"
	# the host's maxima before the sweep: tune never lowers them, so a
	# point's memory is floored at them (a 0.5 × BDP point costs what
	# the host keeps anyway)
	local r0 w0
	r0=$(ip netns exec "tcptune-$l-a" cat /proc/sys/net/ipv4/tcp_rmem | awk '{print $3}')
	w0=$(ip netns exec "tcptune-$l-a" cat /proc/sys/net/ipv4/tcp_wmem | awk '{print $3}')
	for m in 0.5 1 1.5 2 3 4; do
		v=$(jq -n --argjson b "$bdp" --argjson m "$m" '($b * $m / 65536 | ceil) * 65536')
		for n in $ns; do
			ip netns exec "$n" sysctl -qw net.ipv4.tcp_rmem="4096 131072 $v" net.ipv4.tcp_wmem="4096 16384 $v"
		done
		for cc in $SWEEP_CCS; do
			for d in forward reverse; do
				local rs=()
				for t in $(seq "$SWEEP_TRIALS"); do
					local flag=""
					[ "$d" = reverse ] && flag=-R
					r=$(ip netns exec "tcptune-$l-a" "$bin" bench -c "$peer" -p 5201 -t "$SWEEP_TIME" -O "$omit" -C "$cc" --cc-from-start $flag -J 2>/dev/null |
						jq '[.tcptune.streams[]?, .tcptune.peer.streams[]? | select(.delivered_bytes > 0) | .delivered_bytes * 8 / .seconds] as $s
							| if ($s | length) > 0 then ($s | add) else .end.sum_received.bits_per_second // 0 end' 2>/dev/null || echo 0)
					rs+=("$r")
				done
				printf '%s\t%s\t%s\t%s\t%s\n' "$d" "$(printf '%s\n' "${rs[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" "$m" "$cc" "$(( (v > r0 ? v : r0) + (v > w0 ? v : w0) ))" >>"$out/sweep.tsv"
			done
		done
	done
	# the best median per direction
	sort -t$'\t' -k1,1 -k2,2gr "$out/sweep.tsv" | awk -F'\t' '!seen[$1]++'
}

report() { # scenario rate_bps rtt_s wall json sweepfile reverse_rate_bps
	jq -r --arg sc "$1" --argjson rate "$2" --argjson rtt "$3" --arg wall "$4" --rawfile sw "$6" --argjson rrev "$7" '
		($rate * $rtt / 8) as $bdp
		| ($sw | split("\n") | map(select(length > 0) | split("\t") | {key: .[0], value: {bps: (.[1] | tonumber), m: .[2], cc: .[3], mem: (.[4] | tonumber)}}) | from_entries) as $best
		| (.candidates[] | select(.id == "baseline")) as $b
		| (.candidates[] | select(.id == $ch)) as $c
		| def goodput($m; $d): (if $d == "reverse" then $rrev else $rate end) * $m / ($m + (if ($m + 40) == 1500 or ($m + 40) == 9000 then 40 else 52 end));
		  (.link_burst_bytes // 0) as $burst
		| ([.candidates[].trials[]?, .verify.trials[]? | (if (.mss // 0) > 0 then .mss else 1448 end) as $m
		    | .bits_per_second / (goodput($m; .direction) * (1 + (if .seconds > 0 then $burst * 8 / .seconds / $rate else 0 end)))] | max) as $top
		| (if .kept then [$c.settings[]? | select(.key == "net.ipv4.tcp_rmem" or .key == "net.ipv4.tcp_wmem") | .value | split(" ") | .[2] | tonumber] | max // 0 else 0 end) as $chg
		| (if .kept then $c.memory else $b.memory end) as $mem
		| .controllable as $ctl
		| .options.directions[] as $d
		| ($b.summary[$d].median) as $bm
		| (if .verify and .kept then .verify.summary[$d].median else $bm end) as $tm
		| ((if .verify and .kept then [.verify.trials[] | select(.direction == $d) | .mss // 1448] | max else null end) // 1448) as $mss
		| goodput($mss; $d) as $gd
		| ($best[$d] // null) as $sb
		| [$sc, $d, (($bm/1e6*10|floor)/10|tostring) + "M", (($tm/1e6*10|floor)/10|tostring) + "M",
		   (if ($ctl | index($d)) != null then ((1000*$tm/$gd|floor)/10|tostring) + "%" else "peer-limited" end),
		   (if $sb then ((($sb.bps/1e6*10|floor)/10|tostring) + "M@" + $sb.m + "x," + $sb.cc) else "-" end),
		   (if $sb and $sb.bps > 0 then ((1000*$tm/$sb.bps|floor)/10|tostring) + "%" else "-" end),
		   (if $chg > 0 then (($chg/$bdp*100|floor)/100|tostring) else "-" end),
		   (if $sb and $sb.mem > 0 then ((100*$mem/$sb.mem|floor)/100|tostring) else "-" end),
		   ((1000*$top|floor)/10|tostring) + "%",
		   $wall + " s",
		   (if .already_full then "already full" elif .kept then (if .applied then "kept, applied" else "kept" end) else "nothing kept" end)
		    + (if ([.levers[]? | select(.helped)] | length) > 0 then "; levers: " + ([.levers[] | select(.helped) | .name] | join(", ")) else "" end)
		    + (if .lab_relay and (.lab_relay.faithful | not) then "; relay behind " + ((.lab_relay.behind_us/10|floor)/100|tostring) + " ms" else "" end)]
		| @tsv' --arg ch "$(jq -r .choice "$5")" "$5" |
	awk -F'\t' '{printf "%-32s %-8s %9s %9s %9s %22s %7s %7s %6s %7s %6s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12}'
}

printf '%-32s %-8s %9s %9s %9s %22s %7s %7s %6s %7s %6s  %s\n' scenario dir baseline tuned /goodput "sweep best" /sweep max/BDP mem top wall result
for sc in "${scenarios[@]}"; do
	IFS='|' read -r name mode linkf tunef bwmem cross <<<"$sc"
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$name"; then continue; fi
	rate=$(sed -n 's/.*--rate \([^ ]*\).*/\1/p' <<<"$linkf")
	police=$(sed -n 's/.*--police \([^ ]*\).*/\1/p' <<<"$linkf")
	[ -n "$police" ] && rate=$police # what passes the policer is the path's
	rrev=${rate#*/} rate=${rate%%/*}  # an asymmetric link's reverse rate
	rrev_bps=$(jq -n "$(sed 's/gbit/*1e9/; s/mbit/*1e6/' <<<"$rrev")")
	rtt=$(sed -n 's/.*--rtt \([^ ]*\).*/\1/p' <<<"$linkf")
	rate_bps=$(jq -n "$(sed 's/gbit/*1e9/; s/mbit/*1e6/' <<<"$rate")")
	rtt_s=$(jq -n "$(sed 's/ms/\/1000/' <<<"$rtt")")
	# tune's omitted start, max(1 s, 10 × RTT), rounded up to whole
	# seconds for bench's -O, which takes iperf3's integer seconds
	omit=$(jq -n --argjson t "$rtt_s" '[1, 10 * $t] | max | ceil')
	if [ "$TUNE" = 0 ]; then # the sweep alone: its best median per direction
		if [ "$mode" = lab ]; then link bs "$mode" "$linkf" "" "$cross"; l=bs; else link bt "$mode" "$linkf" "$bwmem" "$cross"; l=bt; fi
		sweep "$l" "$mode" "$rate_bps" "$rtt_s" "$omit" | awk -F'\t' -v sc="$name" '{printf "%-32s %-8s sweep best %.1fM@%sx,%s (rmem+wmem max %d bytes)\n", sc, $1, $2/1e6, $3, $4, $5}'
		"$bin" lab down "$l" >/dev/null
		for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
		bg=()
		cp "$out/sweep.tsv" "${TUNE_BENCH_KEEP:-/tmp}/tune-bench-$(tr -c 'a-z0-9' '_' <<<"$name").sweep.tsv" 2>/dev/null || true
		continue
	fi
	start=$(date +%s)
	if [ "$mode" = lab ]; then
		"$bin" tune --lab $linkf $tunef ${TUNE_FLAGS:-} --json >"$out/r.json" 2>"$out/progress.txt" || { cat "$out/progress.txt" >&2; exit 1; }
	else
		link bt "$mode" "$linkf" "$bwmem" "$cross"
		start=$(date +%s)
		relay0=$("$bin" lab ls --json)
		"$bin" lab exec bt a -- sh -c 'exec "$0" tune --peer "$TCPTUNE_PEER" "$@" --json' "$bin" $tunef ${TUNE_FLAGS:-} >"$out/r.json" 2>"$out/progress.txt" || { cat "$out/progress.txt" >&2; exit 1; }
		# tune --peer does not know its path is the lab's: what the
		# relay added to the RTT over the run, as tune --lab records it.
		jq --argjson a "$relay0" --argjson b "$("$bin" lab ls --json)" '
			def link($l): $l[] | select(.name == "bt");
			def behind($d): ((link($b).stats[$d].late_sum_us // 0) - (link($a).stats[$d].late_sum_us // 0))
				/ ([(link($b).stats[$d].writes // 0) - (link($a).stats[$d].writes // 0), 1] | max);
			(behind("a_to_b") + behind("b_to_a")) as $us
			| . + {lab_relay: {behind_us: ($us|floor), faithful: ($us <= 300 + link($b).rtt_ns / 1e5)}}' "$out/r.json" >"$out/r2.json" && mv "$out/r2.json" "$out/r.json"
	fi
	wall=$(($(date +%s) - start))
	: >"$out/best.tsv"
	if [ "$SWEEP" = 1 ]; then
		if [ "$mode" = lab ]; then
			link bs "$mode" "$linkf" "" "$cross"
			sweep bs "$mode" "$rate_bps" "$rtt_s" "$omit" >"$out/best.tsv"
			"$bin" lab down bs >/dev/null
		else
			sweep bt "$mode" "$rate_bps" "$rtt_s" "$omit" >"$out/best.tsv"
		fi
	fi
	[ "$mode" != lab ] && "$bin" lab down bt >/dev/null
	for p in "${bg[@]}"; do kill "$p" 2>/dev/null || true; done
	bg=()
	report "$name" "$rate_bps" "$rtt_s" "$wall" "$out/r.json" "$out/best.tsv" "$rrev_bps"
	keep="${TUNE_BENCH_KEEP:-/tmp}/tune-bench-$(tr -c 'a-z0-9' '_' <<<"$name")"
	cp "$out/r.json" "$keep.json" 2>/dev/null || true
	cp "$out/sweep.tsv" "$keep.sweep.tsv" 2>/dev/null || true
done
