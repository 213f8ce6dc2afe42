#!/bin/sh
# iperf3-newest.sh: fetch Debian sid's iperf3 (3.22) with the libc it
# was built against, unpack both into a cache directory, and print the
# path of a wrapper that runs it through sid's own loader. Nothing is
# installed system-wide: apt runs with a private configuration.
#
#   scripts/iperf3-newest.sh            # prints e.g. .cache/iperf3-sid/iperf3
#   IPERF3_NEWEST_DIR=/some/dir scripts/iperf3-newest.sh
#
# Exit status 0 with the wrapper's path on stdout, non-zero with one line
# on stderr when the packages cannot be fetched (no network, no mirror).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${IPERF3_NEWEST_DIR:-$root/.cache/iperf3-sid}
wrapper=$dir/iperf3

if [ -x "$wrapper" ] && "$wrapper" --version >/dev/null 2>&1; then
	echo "$wrapper"
	exit 0
fi

# The mirror this machine already uses (first URIs: line or deb line).
mirror=$(sed -n 's/^URIs:[[:space:]]*\(http[^[:space:]]*\/debian\)[[:space:]]*$/\1/p' \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\+\(http[^[:space:]]*\/debian\)[[:space:]].*/\1/p' \
	/etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

apt=$dir/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/etc/sources.list.d" "$apt/etc/preferences.d" "$dir/root"
: >"$apt/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" >"$apt/etc/sources.list"
opts="-o Dir::Etc=$apt/etc -o Dir::Etc::sourcelist=$apt/etc/sources.list \
 -o Dir::Etc::sourceparts=$apt/etc/sources.list.d -o Dir::Etc::preferencesparts=$apt/etc/preferences.d \
 -o Dir::State=$apt -o Dir::State::Lists=$apt/lists -o Dir::State::status=$apt/status \
 -o Dir::Cache=$apt -o Dir::Cache::archives=$apt/archives -o APT::Architecture=amd64 \
 -o Acquire::Languages=none -o Debug::NoLocking=1"

# shellcheck disable=SC2086
if ! apt-get $opts -qq update >"$dir/apt.log" 2>&1; then
	echo "iperf3-newest: apt-get update of sid from $mirror failed (see $dir/apt.log)" >&2
	exit 1
fi
cd "$dir"
rm -f ./*.deb
# shellcheck disable=SC2086
if ! apt-get $opts -qq download iperf3 libiperf0 libc6 libssl3t64 libsctp1 >>"$dir/apt.log" 2>&1; then
	echo "iperf3-newest: apt-get download from sid failed (see $dir/apt.log)" >&2
	exit 1
fi
for deb in ./*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done

r=$dir/root
cat >"$wrapper.tmp" <<WRAP
#!/bin/sh
# iperf3 from Debian sid, run through sid's loader (see scripts/iperf3-newest.sh).
exec "$r/usr/lib64/ld-linux-x86-64.so.2" --library-path "$r/usr/lib/x86_64-linux-gnu" "$r/usr/bin/iperf3" "\$@"
WRAP
chmod +x "$wrapper.tmp"
mv "$wrapper.tmp" "$wrapper"
if ! "$wrapper" --version >/dev/null 2>&1; then
	echo "iperf3-newest: the unpacked iperf3 does not run (see $dir)" >&2
	exit 1
fi
echo "$wrapper"
