#!/bin/bash
# kbuild-check.sh - check kernel/perf-pebs-hook.patch against the pinned
# kernel source and compile what it touches.
#
#   tests/pebs/kbuild-check.sh [STEP...]
#
# Steps (all by default, in this order):
#   source   fetch Debian's linux-source-6.12 (pinned) and unpack it once
#   apply    the patch applies to the pristine tree with no fuzz/offset
#   tree     keep a patched copy of the tree (hard links, patched files own)
#   build    x86_64_defconfig + PERF_X86_PEBS_SINK_SELFTEST (the patch's
#            test entry) + prepare, then compile the touched objects
#            (arch/x86/events/intel/ds.o, arch/x86/events/core.o,
#            arch/x86/events/intel/core.o) and require no warning
#   hook     compile kernel/pebs_hook.c as an external-module object against
#            the patched tree and against the stock tree, no warning
#
# Prints one line per step: "ok  pebs-kbuild-STEP (N s)" or
# "FAIL pebs-kbuild-STEP: why".  Exits non-zero if a step failed.
#
# Everything downloaded or built lives under $MEMTRACE_CACHE/pebs
# (default /var/tmp/memtrace-cache/pebs), so a second run only recompiles.
# PEBS_KBUILD_JOBS sets make -j (default: nproc).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pebs/kernel-pin.sh"

cache=${MEMTRACE_CACHE:-/var/tmp/memtrace-cache}/pebs
jobs=${PEBS_KBUILD_JOBS:-$(nproc)}
patchfile=$top/kernel/perf-pebs-hook.patch
deb=$cache/linux-source-${PIN_SERIES}_${PIN_DEB_VERSION}_all.deb
pristine=$cache/src-$PIN_DEB_VERSION
patched=$cache/patched-$PIN_DEB_VERSION
objdir=$cache/obj-$PIN_DEB_VERSION
stockobj=$cache/obj-stock-$PIN_DEB_VERSION
logdir=$cache/logs
mkdir -p "$cache" "$logdir"

fails=0
step_t0=0
ok()   { echo "ok   pebs-kbuild-$1 ($(( $(date +%s) - step_t0 )) s)"; }
fail() { echo "FAIL pebs-kbuild-$1: $2"; fails=$((fails + 1)); }

# The objects the patch touches (and core.o, which uses the PEBS code).
OBJS="arch/x86/events/intel/ds.o arch/x86/events/core.o arch/x86/events/intel/core.o"

step_source() {
	if [ ! -f "$pristine/.memtrace-pristine" ]; then
		if [ ! -f "$deb" ]; then
			# Retry once after refreshing the package lists (a fresh
			# machine may have none, or stale ones).
			if ! (cd "$cache" && apt-get download -q \
				"linux-source-$PIN_SERIES=$PIN_DEB_VERSION") \
				>"$logdir/download.log" 2>&1; then
				apt-get update -qq >>"$logdir/download.log" 2>&1
				(cd "$cache" && apt-get download -q \
					"linux-source-$PIN_SERIES=$PIN_DEB_VERSION") \
					>>"$logdir/download.log" 2>&1 ||
					{ fail source "apt-get download linux-source-$PIN_SERIES=$PIN_DEB_VERSION failed (see $logdir/download.log)"; return 1; }
			fi
		fi
		rm -rf "$pristine" "$pristine.tmp"
		mkdir -p "$pristine.tmp"
		# The .deb holds usr/src/linux-source-6.12.tar.xz; check its hash.
		local tarball=$cache/linux-source-$PIN_SERIES.tar.xz
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/linux-source-$PIN_SERIES.tar.xz" >"$tarball" ||
			{ fail source "cannot unpack $deb"; return 1; }
		local sum
		sum=$(sha256sum "$tarball" | cut -d' ' -f1)
		if [ "$sum" != "$PIN_TARBALL_SHA256" ]; then
			fail source "tarball sha256 $sum, pinned $PIN_TARBALL_SHA256"
			return 1
		fi
		tar -xJf "$tarball" -C "$pristine.tmp" --strip-components=1 ||
			{ fail source "cannot unpack $tarball"; return 1; }
		rm -f "$tarball"
		touch "$pristine.tmp/.memtrace-pristine"
		mv "$pristine.tmp" "$pristine"
	fi
	local sub
	sub=$(sed -n 's/^SUBLEVEL = //p' "$pristine/Makefile")
	if [ "6.12.$sub" != "$PIN_UPSTREAM" ]; then
		fail source "tree is 6.12.$sub, pinned $PIN_UPSTREAM"
		return 1
	fi
	ok source
}

# Files the patch changes or creates, from its +++ lines.
patch_files() { sed -n 's#^+++ b/\([^\t ]*\).*#\1#p' "$patchfile"; }

step_apply() {
	local out
	out=$(cd "$pristine" && patch -p1 -F0 --dry-run -N <"$patchfile" 2>&1)
	local rc=$?
	if [ $rc != 0 ]; then
		fail apply "patch --dry-run failed: $(echo "$out" | tr '\n' ' ')"
		return 1
	fi
	if echo "$out" | grep -qiE 'offset|fuzz|reversed|hunk'; then
		fail apply "not clean: $(echo "$out" | grep -iE 'offset|fuzz|reversed|hunk' | head -3 | tr '\n' ' ')"
		return 1
	fi
	ok apply
}

step_tree() {
	local sum stamp
	sum=$(sha256sum "$patchfile" | cut -d' ' -f1)
	stamp=$patched/.memtrace-patch
	if [ -f "$stamp" ] && [ "$(head -1 "$stamp")" = "$sum" ]; then
		ok tree
		return 0
	fi
	local keep=$cache/tree-keep
	rm -rf "$keep"
	if [ ! -f "$stamp" ]; then
		rm -rf "$patched"
		cp -al "$pristine" "$patched" || { fail tree "cp -al failed"; return 1; }
	else
		# Undo the previous patch: restore or remove the files it touched,
		# keeping a copy to give unchanged files their old mtime back.
		local f
		tail -n +2 "$stamp" | while read -r f; do
			mkdir -p "$keep/$(dirname "$f")"
			cp -p "$patched/$f" "$keep/$f" 2>/dev/null
			rm -f "$patched/$f"
			[ -f "$pristine/$f" ] && cp -p "$pristine/$f" "$patched/$f"
		done
	fi
	rm -f "$stamp"
	# Patched files get their own inode: never write through a hard link.
	local f
	for f in $(patch_files); do
		if [ -f "$patched/$f" ]; then
			cp -p --remove-destination "$pristine/$f" "$patched/$f"
		fi
	done
	if ! (cd "$patched" && patch -p1 -F0 -N -s <"$patchfile") \
		>"$logdir/patch.log" 2>&1; then
		fail tree "patch failed (see $logdir/patch.log)"
		return 1
	fi
	# A file the new patch leaves as the old one did keeps its mtime, so
	# that nothing is recompiled for it (e.g. after a commit message edit).
	for f in $(patch_files); do
		if [ -f "$keep/$f" ] && cmp -s "$keep/$f" "$patched/$f"; then
			touch -r "$keep/$f" "$patched/$f"
		fi
	done
	rm -rf "$keep"
	{ echo "$sum"; patch_files; } >"$stamp"
	ok tree
}

# kbuild_prepare SRC OBJ: defconfig once, then prepare (quick when done).
kbuild_prepare() {
	local src=$1 obj=$2 log=$3
	mkdir -p "$obj"
	if [ ! -f "$obj/.config" ]; then
		make -s -C "$src" O="$obj" x86_64_defconfig >"$log" 2>&1 || return 1
	fi
	make -s -C "$src" O="$obj" -j"$jobs" prepare >>"$log" 2>&1
}

kbuild_olddefconfig() {
	make -s -C "$1" O="$2" olddefconfig >>"$3" 2>&1 &&
		make -s -C "$1" O="$2" -j"$jobs" prepare >>"$3" 2>&1
}

step_build() {
	local log=$logdir/build.log o
	if ! kbuild_prepare "$patched" "$objdir" "$logdir/prepare.log"; then
		fail build "defconfig/prepare failed (see $logdir/prepare.log)"
		return 1
	fi
	# the patch's test entry too (default n): compiled and exported
	if ! grep -q '^CONFIG_PERF_X86_PEBS_SINK_SELFTEST=y' "$objdir/.config"; then
		"$patched/scripts/config" --file "$objdir/.config" -e PERF_X86_PEBS_SINK_SELFTEST
		if ! kbuild_olddefconfig "$patched" "$objdir" "$logdir/prepare.log" ||
		   ! grep -q '^CONFIG_PERF_X86_PEBS_SINK_SELFTEST=y' "$objdir/.config"; then
			fail build "CONFIG_PERF_X86_PEBS_SINK_SELFTEST not kept by olddefconfig (see $logdir/prepare.log)"
			return 1
		fi
	fi
	# Always recompile the objects so that their warnings are seen.
	for o in $OBJS; do rm -f "$objdir/$o"; done
	if ! make -C "$patched" O="$objdir" -j"$jobs" $OBJS >"$log" 2>&1; then
		fail build "compile failed: $(grep -m3 -E 'error' "$log" | tr '\n' ' ')"
		return 1
	fi
	if grep -qE 'warning:' "$log"; then
		fail build "warnings: $(grep -m3 'warning:' "$log" | tr '\n' ' ')"
		return 1
	fi
	for o in $OBJS; do
		[ -s "$objdir/$o" ] || { fail build "$o not built"; return 1; }
	done
	# The API is there and exported GPL (6.12 marks exports with
	# __export_symbol_NAME in the object; older kernels __ksymtab_NAME).
	local sym
	for sym in x86_pebs_sink_attach x86_pebs_sink_detach x86_pebs_sink_selftest_drain; do
		if ! nm "$objdir/arch/x86/events/intel/ds.o" |
			grep -qE "(__export_symbol|__ksymtab)_$sym\$" ||
		   ! grep -q "^EXPORT_SYMBOL_GPL($sym);" \
			"$patched/arch/x86/events/intel/ds.c"; then
			fail build "ds.o does not export $sym (GPL)"
			return 1
		fi
	done
	ok build
}

# Compile kernel/pebs_hook.c as an external-module object against OBJ.
hook_compile() {
	local src=$1 obj=$2 what=$3 m
	# The same layout as the repository: kernel/ next to include/.
	m=$cache/hook-$what
	rm -rf "$m"
	mkdir -p "$m/kernel" "$m/include/uapi"
	cp "$top/kernel/pebs_hook.c" "$top/kernel/pebs_hook.h" "$m/kernel/"
	cp "$top/include/uapi/memtrace.h" "$m/include/uapi/"
	echo 'obj-m := pebs_hook.o' >"$m/kernel/Kbuild"
	echo 'ccflags-y := -Werror' >>"$m/kernel/Kbuild"
	make -C "$obj" M="$m/kernel" pebs_hook.o >"$logdir/hook-$what.log" 2>&1 &&
		! grep -q 'warning:' "$logdir/hook-$what.log"
}

step_hook() {
	if ! kbuild_prepare "$pristine" "$stockobj" "$logdir/prepare-stock.log"; then
		fail hook "stock defconfig/prepare failed (see $logdir/prepare-stock.log)"
		return 1
	fi
	if ! hook_compile "$patched" "$objdir" patched; then
		fail hook "pebs_hook.c against the patched tree (see $logdir/hook-patched.log)"
		return 1
	fi
	if ! hook_compile "$pristine" "$stockobj" stock; then
		fail hook "pebs_hook.c against the stock tree (see $logdir/hook-stock.log)"
		return 1
	fi
	# Patched build uses the kernel API; the stock one must not.
	if ! nm "$cache/hook-patched/kernel/pebs_hook.o" | grep -q ' U __symbol_get$'; then
		fail hook "patched build of pebs_hook.o does not look the hook up"
		return 1
	fi
	if nm "$cache/hook-stock/kernel/pebs_hook.o" | grep -q '__symbol_get\|x86_pebs_sink'; then
		fail hook "stock build of pebs_hook.o refers to the hook"
		return 1
	fi
	ok hook
}

steps=${*:-source apply tree build hook}
for s in $steps; do
	step_t0=$(date +%s)
	if ! "step_$s"; then
		# Later steps need the earlier ones.
		case $s in source|apply|tree) break ;; esac
	fi
done
[ "$fails" = 0 ]
