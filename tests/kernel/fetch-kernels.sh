#!/bin/bash
# fetch-kernels.sh - download the pinned Debian kernels (image + headers +
# kbuild) with `apt-get download` and unpack them with `dpkg-deb -x` into
# $MEMTRACE_CACHE/kernel/ROOT/<abi>/ (never installed: no maintainer scripts).
# Prints one "abi root" line per kernel.  Idempotent: a finished unpack leaves
# a .done stamp and is reused.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${MEMTRACE_CACHE:-/var/tmp/memtrace-cache}/kernel
mkdir -p "$cache/deb"
grep -v '^#' "$here/kernels.conf" | while read -r abi kbuild; do
	[ -n "$abi" ] || continue
	root=$cache/root/$abi
	if [ ! -e "$root/.done" ]; then
		pkgs="linux-image-$abi-amd64-unsigned linux-headers-$abi-amd64 linux-headers-$abi-common $kbuild"
		(cd "$cache/deb" && for p in $pkgs; do
			ls "$p"_*.deb >/dev/null 2>&1 || apt-get download -q "$p" >/dev/null 2>&1 ||
				{ apt-get update -qq >/dev/null 2>&1; apt-get download -q "$p" >/dev/null; }
		done)
		rm -rf "$root"; mkdir -p "$root"
		for p in $pkgs; do dpkg-deb -x "$(ls "$cache/deb/$p"_*.deb | tail -1)" "$root"; done
		# the headers' Makefile includes the -common tree by absolute path
		sed -i "s|^include /usr/src/|include $root/usr/src/|" \
			"$root/usr/src/linux-headers-$abi-amd64/Makefile"
		touch "$root/.done"
	fi
	echo "$abi $root"
done
