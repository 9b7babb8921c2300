#!/bin/bash
# make install puts memtrace-hwcheck in BINDIR and hwload and the analyzer in
# LIBEXECDIR; the installed script runs from another directory without the
# source tree (no-PMU path: exit 0, both software checks pass), and make
# uninstall removes all three.
set -u
# PREFIX as in tests/install/readme_commands.sh: build/install/memtrace.pc
# is made for one PREFIX and not remade when it changes
cd "$(dirname "$0")/../.." || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
make -s install DESTDIR="$dir/root" PREFIX=/usr/local > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
for f in bin/memtrace-hwcheck libexec/memtrace/hwload libexec/memtrace/memtrace-hwcheck-analyze; do
	[ -x "$dir/root/usr/local/$f" ] || { echo "$f not installed"; exit 1; }
done
mkdir "$dir/nopmu" "$dir/run"
(cd "$dir/run" && MEMTRACE_HWCHECK_PMUS="$dir/nopmu" "$dir/root/usr/local/bin/memtrace-hwcheck" \
	--rounds 1 --backends perf > out 2> err) || { cat "$dir/run/err"; exit 1; }
[ "$(cat "$dir/run/out")" = "memtrace-hwcheck: hardware checks skipped" ] || exit 1
grep -q '^- PASS pages: ' "$dir/run/hwcheck-report.md" || { cat "$dir/run/hwcheck-report.md"; exit 1; }
grep -q "^| memtracectl | memtracectl " "$dir/run/hwcheck-report.md" || exit 1
make -s uninstall DESTDIR="$dir/root" PREFIX=/usr/local > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
[ ! -e "$dir/root/usr/local/bin/memtrace-hwcheck" ] && [ ! -e "$dir/root/usr/local/libexec/memtrace" ] ||
	{ echo "uninstall left files"; find "$dir/root"; exit 1; }
