#!/usr/bin/env bash
# A fleet on one machine for the Ansible collection (tests and make
# fleet-demo): a star of lab links (hub "fleet") whose b ends are hosts
# h1 (1 Gbit/s, 50 ms to the hub), h2 (100 Mbit/s, 10 ms), h3 (300 Mbit/s,
# 10 ms) and ref (2.5 Gbit/s, no delay), each running its own sshd in a
# private mount namespace with its own /etc/sysctl.d, /var/lib, /run and
# /usr/local/bin (tmpfs or a directory under DIR), and /usr, /etc and
# dpkg's database as overlays (a .deb installs into the host's own), so
# that nothing on the real host changes. The Ansible controller runs in the hub.
#
#   scripts/fleet-lab.sh up DIR     build it; writes DIR/inventory.yml and DIR/env
#   scripts/fleet-lab.sh run DIR CMD...   run CMD in the hub with DIR/env
#   scripts/fleet-lab.sh down DIR   remove it
#   scripts/fleet-lab.sh demo DIR   up, tune.yml (h1 against ref), mesh.yml
#                                   (h1, h2, h3), the matrix; then down
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${TCPTUNE_BIN:-$root/bin/tcptune}
venv=$root/.cache/ansible
# FLEET_HOSTS overrides the hosts: NAME:RATE:RTT[:PATH_GROUP] each, with
# one named ref (bench/fleet.sh and e2e/fleet build eight this way).
# Every host but ref is in the inventory's group "fleet"; those named in
# FLEET_MESH (default: all of them) are in "mesh" too.
hosts=${FLEET_HOSTS:-"h1:1gbit:50ms h2:100mbit:10ms h3:300mbit:10ms ref:2.5gbit:0ms"}
# Each host's start, whatever this machine's own settings (a namespace
# copies them when it is made): h1, h2 and h3 as a fresh distribution
# installs them (the kernel's default buffers), ref as a tuned reference
# host (32 MiB buffers), all with the congestion control FLEET_CC (a
# namespace can only default to one of tcp_allowed_congestion_control).
fleet_cc=${FLEET_CC:-bbr}
host_sysctls="net.ipv4.tcp_wmem=4096 16384 4194304|net.ipv4.tcp_rmem=4096 131072 6291456"
ref_sysctls="net.ipv4.tcp_wmem=4096 16384 33554432|net.ipv4.tcp_rmem=4096 131072 33554432"

ansible_venv() { # ansible-core from PyPI, pinned, in the build cache
	[ -x "$venv/bin/ansible-playbook" ] && return
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q 'ansible-core==2.19.14'
}

up() {
	local dir=$1
	command -v /usr/sbin/sshd >/dev/null || { echo "fleet-lab: needs openssh-server (make deps)" >&2; exit 1; }
	ansible_venv
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	ssh-keygen -q -t ed25519 -N '' -f "$dir/hostkey" <<<y >/dev/null
	ssh-keygen -q -t ed25519 -N '' -f "$dir/id_ed25519" <<<y >/dev/null
	cp "$dir/id_ed25519.pub" "$dir/authorized_keys"
	local inv_mesh="" inv_fleet="" inv_ref=""
	# Each host's link queues a BDP of the longest path through it (its
	# RTT and the longest other's), as a router sized for the star's
	# paths: a queue of its own RTT's BDP is a sixth of what a 60 ms
	# path across the hub needs, and a flow's slow start then overflows
	# it into timeouts, whatever the hosts' settings.
	local rtts own r l skipped
	rtts=$(for spec in $hosts; do IFS=: read -r _ _ rtt _ <<<"$spec"; echo "${rtt%ms}"; done)
	for spec in $hosts; do
		IFS=: read -r name rate rtt group <<<"$spec"
		own=${rtt%ms} l=0 skipped=0
		for r in $rtts; do # the longest other host's RTT
			if [ "$r" = "$own" ] && [ $skipped = 0 ]; then skipped=1; continue; fi
			awk -v a="$r" -v b="$l" 'BEGIN { exit !(a > b) }' && l=$r
		done
		local queue=()
		[ "$own" != 0 ] && queue=(--queue "$(awk -v r="$own" -v l="$l" 'BEGIN { printf "%.2fbdp", (r + l) / r }')")
		"$bin" lab up "f$name" --hub fleet --rate "$rate" --rtt "$rtt" "${queue[@]}" >/dev/null
		local ns=tcptune-f$name-b
		local kv sysctls=$host_sysctls
		[ "$name" = ref ] && sysctls=$ref_sysctls
		IFS='|' read -ra kvs <<<"net.ipv4.tcp_congestion_control=$fleet_cc|$sysctls"
		for kv in "${kvs[@]}"; do
			ip netns exec "$ns" sysctl -q -w "$kv" >/dev/null || { echo "fleet-lab: $name: cannot set $kv" >&2; exit 1; }
		done
		local addr
		addr=$("$bin" lab ls --json | python3 -c "import json,sys; print([l['addr_b'] for l in json.load(sys.stdin) if l['name']=='f$name'][0])")
		mkdir -p "$dir/$name/sysctl.d"
		cat >"$dir/$name/sshd_config" <<EOC
ListenAddress $addr
Port 22
HostKey $dir/hostkey
PidFile /run/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
EOC
		# /usr, /etc and dpkg's database are overlays whose writes land
		# in DIR/NAME (a .deb installs there, as on a host of its own);
		# /var/lib, /var/cache, /var/log, /run and /usr/local/bin are
		# empty tmpfs; /etc/sysctl.d is DIR/NAME/sysctl.d.
		local o=$dir/$name/overlay
		mkdir -p "$o/dpkg-lower" "$o/usr/up" "$o/usr/work" "$o/etc/up" "$o/etc/work" "$o/dpkg/up" "$o/dpkg/work"
		ip netns exec "$ns" unshare --mount --propagation private sh -c "
			mount --bind /var/lib/dpkg '$o/dpkg-lower' &&
			mount -t overlay overlay -o lowerdir=/usr,upperdir='$o/usr/up',workdir='$o/usr/work' /usr &&
			mount -t overlay overlay -o lowerdir=/etc,upperdir='$o/etc/up',workdir='$o/etc/work' /etc &&
			mount --bind '$dir/$name/sysctl.d' /etc/sysctl.d &&
			mount -t tmpfs -o mode=0755 tmpfs /var/lib && mkdir -p /var/lib/tcptune /var/lib/dpkg /var/lib/apt/lists/partial &&
			mount -t overlay overlay -o lowerdir='$o/dpkg-lower',upperdir='$o/dpkg/up',workdir='$o/dpkg/work' /var/lib/dpkg &&
			mount -t tmpfs -o mode=0755 tmpfs /var/cache && mkdir -p /var/cache/apt/archives/partial &&
			mount -t tmpfs -o mode=0755 tmpfs /var/log &&
			mount -t tmpfs -o mode=0755 tmpfs /run && mkdir -p /run/sshd &&
			mount -t tmpfs -o mode=0755 tmpfs /usr/local/bin &&
			exec /usr/sbin/sshd -D -e -f '$dir/$name/sshd_config'" >"$dir/$name/sshd.log" 2>&1 &
		if [ "$name" = ref ]; then
			inv_ref="        ref: {ansible_host: $addr}"
		else
			inv_fleet+="        $name: {ansible_host: $addr${group:+, path_group: $group}}"$'\n'
			if [ -z "${FLEET_MESH:-}" ] || [[ " $FLEET_MESH " == *" $name "* ]]; then
				inv_mesh+="        $name: {}"$'\n'
			fi
		fi
		echo "$name $addr" >>"$dir/hosts"
	done
	cat >"$dir/inventory.yml" <<EOI
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: $dir/id_ed25519
    ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=10
    ansible_python_interpreter: /usr/bin/python3
    tcptune_binary_src: $bin
    tcptune_controller_bin: $bin
    # Every host shares this machine's CPU and the hub: rollout.yml
    # measures them one at a time.
    path_group: fleet
  children:
    fleet:
      hosts:
$inv_fleet    mesh:
      hosts:
$inv_mesh    tune:
      hosts:
        h1: {}
    reference:
      hosts:
$inv_ref
EOI
	# The environment of every command in the hub (env -i, one word a
	# variable, no comments). ANSIBLE_PIPELINING: modules piped over the
	# SSH connection, no temporary files (a quarter of e2e/fleet's time);
	# ANSIBLE_FORKS: all hosts at once.
	cat >"$dir/env" <<EOE
ANSIBLE_COLLECTIONS_PATH=$root/ansible
ANSIBLE_HOME=$dir/ansible-home
ANSIBLE_LOCAL_TEMP=$dir/ansible-home/tmp
ANSIBLE_REMOTE_TMP=/tmp/.ansible-fleet
ANSIBLE_SSH_CONTROL_PATH_DIR=$dir/ansible-home/cp
ANSIBLE_HOST_KEY_CHECKING=False
ANSIBLE_NOCOLOR=1
ANSIBLE_RETRY_FILES_ENABLED=False
ANSIBLE_INVENTORY=$dir/inventory.yml
ANSIBLE_PIPELINING=True
ANSIBLE_FORKS=10
PATH=$venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EOE
	# Wait for every sshd, from the hub.
	while read -r name addr; do
		for _ in $(seq 100); do
			ip netns exec tcptune-hub-fleet bash -c "exec 3<>/dev/tcp/$addr/22" 2>/dev/null && break
			sleep 0.1
		done
	done <"$dir/hosts"
}

run() {
	local dir=$1; shift
	dir=$(cd "$dir" && pwd)
	ip netns exec tcptune-hub-fleet env -i HOME="$dir/ansible-home" $(cat "$dir/env") "$@"
}

down() {
	for spec in $hosts; do
		"$bin" lab down "f${spec%%:*}" >/dev/null 2>&1 || true
	done
}

demo() {
	local dir=$1
	trap down EXIT
	echo "building the fleet: h1 (1 Gbit/s × 50 ms), h2 (100 Mbit/s × 10 ms), h3 (300 Mbit/s × 10 ms), ref (2.5 Gbit/s) around a hub ..."
	up "$dir"
	dir=$(cd "$dir" && pwd)
	local ref
	ref=$(awk '$1 == "ref" {print $2}' "$dir/hosts")
	echo "tune.yml: h1 tunes against ref ($ref) ..."
	run "$dir" ansible-playbook tcptune.tcptune.tune -e reference_server="$ref" -e tcptune_tune_time=2 -e tcptune_tune_direction=forward |
		grep -E '"msg"|PLAY RECAP|^h1 |^ref ' || true
	echo "mesh.yml: every pair of h1, h2, h3 ..."
	run "$dir" ansible-playbook tcptune.tcptune.mesh -e mesh_results="$dir/mesh" -e mesh_time=3 -e mesh_repeat=2 >"$dir/mesh.log"
	"$bin" report mesh "$dir"/mesh/*_to_*.json
	echo
	echo "HTML matrix: $dir/mesh/mesh.html (the playbook output: $dir/mesh.log)"
}

case "${1:-}" in
up) up "$2" ;;
demo) demo "${2:-fleet-demo}" ;;
run) shift; run "$@" ;;
down) down ;;
*) echo "usage: $0 up DIR | run DIR CMD... | down | demo [DIR]" >&2; exit 2 ;;
esac
