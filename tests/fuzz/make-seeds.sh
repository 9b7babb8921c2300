#!/bin/bash
# make-seeds.sh MKSEEDS OUTDIR - the seed corpora of the harnesses:
# OUTDIR/NAME/ for NAME in trace, report, lackey, import, maps, parse, elf,
# keys, spans, procs, sites, agg (every trace mkseeds writes), compare
# (pairs of traces, concatenated) and heatmap (mkseeds' parameter + pair files).
# Traces come from mkseeds (the library's writer), lackey logs from
# tests/fuzz/seeds/lackey (plus xz and zstd copies for import), maps from
# tests/fuzz/seeds/maps and this machine's /proc/self/maps, ELF files from
# tests/fuzz/seeds/elf/tiny.c (with DWARF, and stripped).
set -eu
mk=$1 out=$2
src=$(cd "$(dirname "$0")" && pwd)/seeds
rm -rf "$out"
mkdir -p "$out"/{trace,report,lackey,import,maps,parse,elf,keys,spans,procs,sites,agg,compare}
"$mk" "$out/trace"
mv "$out/trace/heatmap" "$out/heatmap"
for d in report keys spans procs sites agg; do
	cp "$out"/trace/* "$out/$d/"
done
t=$out/trace
cat "$t/spans.mtrace" "$t/spans-b.mtrace" >"$out/compare/spans-ab"
cat "$t/ns.mtrace" "$t/spans.mtrace" >"$out/compare/ns-spans"
cat "$t/pids.mtrace" "$t/allocs.mtrace" >"$out/compare/pids-allocs"
cp "$t/spans.mtrace" "$out/compare/spans-alone"
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
