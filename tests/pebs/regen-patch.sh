#!/bin/bash
# regen-patch.sh - rewrite kernel/perf-pebs-hook.patch after a change.
#
#   tests/pebs/regen-patch.sh              take arch/x86/events/Kconfig, ds.c
#                                          and asm/perf_event.h as the patch
#                                          has them, the extractor from
#                                          kernel/pebs-hook/pebs_extract.h
#   tests/pebs/regen-patch.sh --from TREE  take those three files from TREE
#                                          (a kernel tree you edited)
#
# The commit message (everything before the first "diff ") is kept.  Needs
# the pristine tree that tests/pebs/kbuild-check.sh unpacks (run it once).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/pebs/kernel-pin.sh"
cache=${MEMTRACE_CACHE:-/var/tmp/memtrace-cache}/pebs
pristine=$cache/src-$PIN_DEB_VERSION
patchfile=$top/kernel/perf-pebs-hook.patch
from=
if [ "${1:-}" = --from ]; then from=$2; fi
[ -f "$pristine/.memtrace-pristine" ] ||
	{ echo "regen-patch: no pristine tree at $pristine; run tests/pebs/kbuild-check.sh source" >&2; exit 1; }

files="arch/x86/events/Kconfig arch/x86/events/intel/ds.c arch/x86/include/asm/perf_event.h"
new=arch/x86/events/intel/pebs_extract.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in $files; do
	mkdir -p "$tmp/a/$(dirname "$f")" "$tmp/b/$(dirname "$f")"
	cp "$pristine/$f" "$tmp/a/$f"
	if [ -n "$from" ]; then cp "$from/$f" "$tmp/b/$f"; else cp "$pristine/$f" "$tmp/b/$f"; fi
done
if [ -z "$from" ]; then
	(cd "$tmp/b" && patch -p1 -F0 -N -s <"$patchfile")
fi
mkdir -p "$tmp/b/$(dirname "$new")"
cp "$top/kernel/pebs-hook/pebs_extract.h" "$tmp/b/$new"

{
	sed '/^diff /,$d' "$patchfile"
	(cd "$tmp" && diff -uprN a b) |
		sed -E 's/^(--- [^\t]+)\t.*/\1/; s/^(\+\+\+ [^\t]+)\t.*/\1/' |
		sed "s#^--- a/$new\$#--- /dev/null#"
} >"$tmp/out" || true
mv "$tmp/out" "$patchfile"
echo "regen-patch: wrote $patchfile"
