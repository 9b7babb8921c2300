#!/bin/bash
# deb_smoke.sh - `make deb` (lintian tags as in debian/lintian-expected.txt),
# then the packages installed onto this machine with apt (which pulls their
# Depends), a smoke test through the installed commands from a scratch
# directory, the module built by DKMS from the installed /usr/src/memtrace-*
# for Debian's 6.12 kernel and booted (tests/kernel/dkms-check.sh, when the
# kernel cache of tests/suites.d/50-kernel.sh is there), and a purge that
# must leave nothing behind.  Refuses to run where memtrace is installed
# already (it would be replaced and purged).  Needs root.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/memtrace-deb.XXXXXX)
installed=0
die() { echo "FAIL: $*" >&2; exit 1; }
purge() {
	DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=300 memtrace memtrace-dkms >"$tmp/purge.log" 2>&1
}
cleanup() { [ $installed = 1 ] && purge; rm -rf "$tmp"; }
trap cleanup EXIT

[ "$(id -u)" = 0 ] || die "needs root (apt-get install)"
for p in memtrace memtrace-dkms; do
	dpkg-query -W -f '${Status}' $p 2>/dev/null | grep -q 'ok installed' &&
		die "$p is installed on this machine already; not replacing it"
done
start=$(date +%s)
make -s -C "$top" deb >"$tmp/deb.log" 2>&1 || die "make deb: $(tail -4 "$tmp/deb.log" | tr '\n' ' ')"
echo "make deb: $(( $(date +%s) - start )) s, lintian tags as expected"
debs=$(ls "$top"/build/deb/memtrace_*.deb "$top"/build/deb/memtrace-dkms_*_all.deb)
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends $debs \
	>"$tmp/apt.log" 2>&1 || die "apt-get install: $(tail -3 "$tmp/apt.log" | tr '\n' ' ')"

cd "$tmp"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin MPLBACKEND=Agg
[ "$(command -v memtracectl)" = /usr/bin/memtracectl ] || die "memtracectl not in /usr/bin"
memtracectl --version | grep -q '^memtracectl 0.1' || die "memtracectl --version"
memtracectl status >status.txt || die "memtracectl status"
cp "$top/build/workloads/pageramp" ./pageramp
memtracectl record -o q.mtrace -- ./pageramp -n 64 -c 4 >/dev/null 2>rec.err ||
	die "record: $(tail -1 rec.err)"
memtracectl report q.mtrace --json >q.json || die "report"
# pageramp faults the 32 even pages of its region once per cycle
/usr/bin/python3 -c 'import json,sys; j=json.load(open("q.json")); sys.exit(j["samples"] < 128)' ||
	die "report: fewer than 4 x 32 page faults"
memtrace-analyze report q.mtrace -o rep/ >/dev/null 2>rep.err || die "memtrace-analyze: $(tail -1 rep.err)"
[ -s rep/index.html ] && [ -s rep/wss.png ] || die "memtrace-analyze wrote no report"
lib=$(/usr/bin/python3 -c 'from memtrace_analyze import lib; print(lib.library_path())')
[ "$lib" = "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libmemtrace.so.1" ] ||
	die "memtrace_analyze loads $lib"
man -w memtracectl | grep -q '^/usr/share/man/man1/memtracectl.1' || die "man -w memtracectl"
man -w memtrace-analyze >/dev/null || die "man -w memtrace-analyze"
[ "$(pkg-config --modversion memtrace)" = 0.1 ] || die "pkg-config memtrace"
dkms status memtrace 2>/dev/null | grep -q '^memtrace/0.1' || die "dkms does not know memtrace/0.1"
echo "installed commands: ok (record, report, memtrace-analyze, man, pkg-config, dkms status)"

cache=${MEMTRACE_CACHE:-/var/tmp/memtrace-cache/kernel}
abi=$(ls "$cache/root" 2>/dev/null | grep '^6\.12' | head -1 || true)
if [ -n "$abi" ]; then
	make -s -C "$top" static kernel-tests >"$tmp/kt.log" 2>&1 || die "make kernel-tests"
	MEMTRACE_DKMS_SRC=/usr/src/memtrace-0.1 "$top/tests/kernel/dkms-check.sh" "$abi" \
		"$cache/root/$abi" "$top/build/deb-dkms/$abi" >dkms.out 2>&1 ||
		die "dkms from the package: $(grep FAIL dkms.out | head -3 | tr '\n' ' ')"
	sed 's/^/  /' dkms.out
else
	echo "skip [kernel-cache]: dkms build from the package: no Debian 6.12 kernel in $cache (50-kernel downloads it; it runs later)"
fi

purge || die "apt-get purge: $(tail -3 "$tmp/purge.log" | tr '\n' ' ')"
installed=0
for f in /usr/bin/memtracectl /usr/bin/memtrace-analyze /usr/src/memtrace-0.1 \
	 /usr/lib/python3/dist-packages/memtrace_analyze /usr/share/man/man1/memtracectl.1.gz; do
	[ ! -e "$f" ] || die "purge left $f"
done
dkms status memtrace 2>/dev/null | grep -q memtrace && die "purge left memtrace in dkms"
echo "purge: nothing left"
