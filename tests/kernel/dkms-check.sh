#!/bin/bash
# dkms-check.sh ABI ROOT OUT - `dkms add`, `dkms install`, `dkms remove` of
# this tree's dkms.conf for the unpacked Debian kernel in ROOT
# (fetch-kernels.sh), then a boot of that kernel with the module DKMS
# installed (run-guest.sh, the "pages" test).  Prints one ok/FAIL line per
# step; exits non-zero on failure.
#
# DKMS installs into /lib/modules/ABI-amd64: for a kernel this machine does
# not run, that directory is created for the test as a symlink to a scratch
# directory (with build -> the unpacked headers) and removed afterwards.
# Source and DKMS trees are scratch directories too (--sourcetree,
# --dkmstree): the machine's /usr/src and /var/lib/dkms/<module> are not
# touched (dkms does create its module-signing key /var/lib/dkms/mok.key on
# first use for kernels that sign modules, as on any Debian machine).
# MEMTRACE_DKMS_SRC=DIR takes the DKMS source from DIR (the memtrace-dkms
# package's /usr/src/memtrace-VERSION, tests/install/deb_smoke.sh) instead
# of this tree.
# If /lib/modules/ABI-amd64 already exists (the kernel is installed), the
# check is skipped rather than installing into a real kernel.
set -u
abi=$1 root=$2 out=$3
kver=$abi-amd64
tag="[${abi%%+*}]"
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
fail=0
ok() { echo "ok   $tag $*"; }
bad() { echo "FAIL $tag $*"; fail=1; }

if ! command -v dkms >/dev/null; then
	bad "dkms: dkms is not installed (tools/deps/kernel.txt; make deps)"
	exit 1
fi
if [ -e "/lib/modules/$kver" ]; then
	echo "skip $tag dkms: /lib/modules/$kver exists (installed kernel), not installing into it"
	exit 0
fi
dkms_src=${MEMTRACE_DKMS_SRC:-$top}
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$dkms_src/dkms.conf")
src=$out/src tree=$out/dkms mods=$out/modules
rm -rf "$src" "$tree" "$mods"
mkdir -p "$src/memtrace-$version" "$tree" "$mods/$kver"
# what `cp -r . /usr/src/memtrace-VERSION` gives DKMS, less build outputs
(cd "$dkms_src" && tar -c --exclude=build --exclude=.git --exclude=demo-out . ) |
	tar -x -C "$src/memtrace-$version"
ln -s "$root/usr/src/linux-headers-$kver" "$mods/$kver/build"
made_dir=0
[ -d /lib/modules ] || { mkdir -p /lib/modules && made_dir=1; }
ln -s "$mods/$kver" "/lib/modules/$kver"
# The scratch source and DKMS trees go too (keeping make.log): a copy of
# the source tree under build/ confuses the top Makefile's search for .d
# files (tests/suites.d).
cleanup() {
	cp "$tree/memtrace/$version/$kver/x86_64/log/make.log" "$out/" 2>/dev/null
	rm -rf "$src" "$tree"
	rm -f "/lib/modules/$kver"
	[ $made_dir = 1 ] && rmdir /lib/modules 2>/dev/null
}
trap cleanup EXIT
D=(--sourcetree "$src" --dkmstree "$tree")
log=$out/dkms.log

if dkms add "${D[@]}" "memtrace/$version" >"$log" 2>&1 &&
   dkms install "${D[@]}" "memtrace/$version" -k "$kver" >>"$log" 2>&1; then
	ko=$mods/$kver/updates/dkms/memtrace.ko
	vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null)
	status=$(dkms status "${D[@]}" "memtrace/$version" -k "$kver" 2>&1)
	if [ -f "$ko" ] && grep -q '^updates/dkms/memtrace.ko:' "$mods/$kver/modules.dep" &&
	   [ "${vermagic%% *}" = "$kver" ] && echo "$status" | grep -q ': installed$'; then
		ok "dkms install: memtrace/$version -> /lib/modules/$kver/updates/dkms, vermagic $kver, in modules.dep"
	else
		bad "dkms install: ko=$(ls "$ko" 2>&1) vermagic='$vermagic' status='$status'"
	fi
else
	bad "dkms add/install: $(grep -iE 'error|warning' "$log" | head -3 | tr '\n' ' ')"
	exit 1
fi
mlog=$tree/memtrace/$version/$kver/x86_64/log/make.log
if [ ! -s "$mlog" ]; then
	bad "dkms build: no make.log at $mlog"
elif grep -E '(warning|error):' "$mlog" | head -3 | grep .; then
	bad "dkms build: compiler warnings (above, $mlog)"
else
	ok "dkms build: no warnings ($(grep -c '  CC \[M\]' "$mlog") objects)"
fi

# the module DKMS installed, booted
MEMTRACE_KO=$ko GUEST_TIMEOUT=${GUEST_TIMEOUT:-300} \
	"$top/tests/kernel/run-guest.sh" "$abi" "$root" "$out/guest" pages >"$out/guest.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "^ok .* insmod:" "$out/guest.out" && grep -q "^ok .* pages" "$out/guest.out" &&
   grep -q "^ok .* rmmod" "$out/guest.out"; then
	ok "dkms boot: the DKMS-installed module loads, passes 'pages', unloads"
else
	bad "dkms boot: $(grep -E '^FAIL' "$out/guest.out" | head -3 | tr '\n' ' ')"
fi

if dkms remove "${D[@]}" "memtrace/$version" --all >>"$log" 2>&1 &&
   [ ! -e "$mods/$kver/updates/dkms/memtrace.ko" ] && [ ! -e "$tree/memtrace/$version" ]; then
	ok "dkms remove: module and DKMS tree gone"
else
	bad "dkms remove: $(tail -2 "$log" | tr '\n' ' ')"
fi
exit $fail
