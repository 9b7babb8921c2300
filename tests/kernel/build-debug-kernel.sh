#!/bin/bash
# build-debug-kernel.sh - builds a small Debian 6.12 kernel with KASAN,
# lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP and KCOV for the guest tests:
# tinyconfig + tests/kernel/debug-kernel.config, from the source of the
# pinned linux-source package (apt-get download, never installed), with
# kernel/perf-pebs-hook.patch applied (the PEBS sink hook: memtrace.ko finds
# it with symbol_get(), tests/kernel/guest-init.sh's pebs-boot test).
# Cached in $MEMTRACE_CACHE/kernel/debug/<version>-<key>/ and reused while
# the version, the fragment, the patch and $recipe are unchanged (older builds are
# removed once a new one is done).
# Prints one "abi root" line laid out like tests/kernel/fetch-kernels.sh:
#   ROOT/boot/vmlinuz-ABI-amd64, ROOT/usr/src/linux-headers-ABI-amd64 (the
#   kernel build tree, for building memtrace.ko).
# The build log is ROOT/../build.log; the build runs under nice -n 10
# (MEMTRACE_NICE=N to change).
set -eu
pkg=linux-source-6.12
ver=6.12.117-1~deb12u1
abi=6.12.117-memtrace-debug
recipe=2	# bump when the build steps below change what gets built
here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug-kernel.config
patchfile=$here/../../kernel/perf-pebs-hook.patch
cache=${MEMTRACE_CACHE:-/var/tmp/memtrace-cache}/kernel
key=$(printf '%s %s\n' "$ver" "$recipe" | cat - "$frag" "$patchfile" | sha256sum | cut -c1-12)
dir=$cache/debug/$ver-$key
root=$dir/root
mkdir -p "$cache/deb" "$cache/debug"

exec 9>"$cache/debug/.lock"
flock 9
if [ -e "$dir/.done" ]; then
	echo "$abi $root"
	exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
log=$dir/build.log
start=$(date +%s)
deb=$cache/deb/${pkg}_${ver}_all.deb
if [ ! -e "$deb" ]; then
	(cd "$cache/deb" && { apt-get download -q "$pkg=$ver" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1; apt-get download -q "$pkg=$ver" >/dev/null; }; })
fi
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$pkg.tar.xz" | tar -xJ -C "$dir"
src=$dir/$pkg
obj=$dir/build
if ! patch -d "$src" -p1 -F0 -N -s <"$patchfile" >"$log" 2>&1; then
	echo "build-debug-kernel: kernel/perf-pebs-hook.patch does not apply to $pkg $ver:" >&2
	tail -5 "$log" >&2
	exit 1
fi
mk() { nice -n "${MEMTRACE_NICE:-10}" make -C "$src" O="$obj" "$@" >>"$log" 2>&1; }
mk tinyconfig
args=()
while IFS='=' read -r name val; do
	case $val in
	y) args+=(--enable "$name") ;;
	n) args+=(--disable "$name") ;;
	*) args+=(--set-val "$name" "$val") ;;
	esac
done < <(grep -E '^[A-Z0-9_]+=' "$frag")
"$src/scripts/config" --file "$obj/.config" "${args[@]}"
mk olddefconfig
# the same again: options whose dependencies came in with the first pass
"$src/scripts/config" --file "$obj/.config" "${args[@]}"
mk olddefconfig
bad=""
while IFS='=' read -r name val; do
	got=$(grep -E "^CONFIG_$name=" "$obj/.config" | cut -d= -f2- || true)
	[ "$val" = n ] && [ -z "$got" ] && continue
	[ "$got" = "$val" ] || bad="$bad $name=${got:-unset}(want $val)"
done < <(grep -E '^[A-Z0-9_]+=' "$frag")
if [ -n "$bad" ]; then
	echo "build-debug-kernel: Kconfig did not keep:$bad" >&2
	exit 1
fi
if ! mk -j"$(nproc)" LOCALVERSION= EXTRAVERSION=-memtrace-debug all; then
	tail -30 "$log" >&2
	exit 1
fi
got=$(cat "$obj/include/config/kernel.release")
if [ "$got" != "$abi" ]; then
	echo "build-debug-kernel: built $got, expected $abi" >&2
	exit 1
fi
# external modules need the build tree, not the object files
find "$obj" -name '*.o' ! -path '*/scripts/*' ! -path '*/tools/*' -delete
mkdir -p "$root/boot" "$root/usr/src"
cp "$obj/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$abi-amd64"
ln -s ../../../build "$root/usr/src/linux-headers-$abi-amd64"	# relative: the cache may move
echo "built $abi in $(($(date +%s) - start)) s on $(nproc) cpus" >>"$log"
tail -1 "$log" >&2
touch "$dir/.done"
for d in "$cache"/debug/*; do
	[ "$d" = "$dir" ] || [ -L "$d" ] || [ ! -d "$d" ] || rm -rf "$d"
done
echo "$abi $root"
