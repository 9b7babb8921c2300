#!/bin/bash
# make-seeds.sh MKSEEDS OUTDIR - the seed corpora of the harnesses:
# OUTDIR/NAME/ for NAME in trace, report, lackey, import, maps, parse, elf.
# Traces come from mkseeds (the library's writer), lackey logs from
# tests/fuzz/seeds/lackey (plus xz and zstd copies for import), maps from
# tests/fuzz/seeds/maps and this machine's /proc/self/maps, ELF files from
# tests/fuzz/seeds/elf/tiny.c (with DWARF, and stripped).
set -eu
mk=$1 out=$2
src=$(cd "$(dirname "$0")" && pwd)/seeds
rm -rf "$out"
mkdir -p "$out"/{trace,report,lackey,import,maps,parse,elf}
"$mk" "$out/trace"
cp "$out"/trace/* "$out/report/"
for f in "$src"/lackey/*; do
	b=$(basename "$f")
	# the lackey harness reads a 4-byte prefix (period, random, split)
	{ printf '\001\000\045\113'; cat "$f"; } >"$out/lackey/$b"
	cp "$f" "$out/import/$b"
	xz -c "$f" >"$out/import/$b.xz"
	zstd -q -c "$f" >"$out/import/$b.zst"
done
cp "$src"/maps/* "$out/maps/"
cat /proc/self/maps >"$out/maps/self.maps"
cp "$src"/parse/* "$out/parse/"
${CC:-cc} -g -O1 -o "$out/elf/tiny" "$src/elf/tiny.c"
strip -o "$out/elf/tiny-stripped" "$out/elf/tiny"
