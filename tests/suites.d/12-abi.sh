#!/bin/bash
# 12-abi.sh - build/libmemtrace.so is the public API and nothing else:
#   map      user/api/libmemtrace.map names exactly the functions that
#            include/memtrace/*.h declare (a declaration without a map line,
#            or a map line without a declaration, fails)
#   exports  nm -D --defined-only lists exactly the map's functions (an
#            internal function leaking, or a public one hidden, fails)
#   deps     ldd lists neither libbpf nor libpfm (reading a trace needs no
#            recording backend)
#   python   every function the ctypes binding (user/analyze, tests/analyze)
#            looks up is exported (lib.py skips missing ones silently)
#   umbrella memtrace/memtrace.h includes every public header
# Needs `make lib`.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
so=build/libmemtrace.so
map=user/api/libmemtrace.map
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
tmp=$(mktemp -d /tmp/memtrace-abi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ ! -e "$so" ]; then
	echo "FAIL abi-lib: $so is missing (make lib)"
	echo "0 passed, 1 failed"
	exit 1
fi

# Declared: memtrace_NAME( in the headers with their comments stripped by cpp.
for h in include/memtrace/*.h; do
	cc -E -P -fpreprocessed -dD "$h" 2>/dev/null
done | grep -oE '\bmemtrace_[a-z0-9_]+[[:space:]]*\(' | tr -d ' (' | sort -u >"$tmp/declared"
grep -oE '^[[:space:]]+memtrace_[a-z0-9_]+;' "$map" | tr -d ' \t;' | sort -u >"$tmp/map"
nm -D --defined-only "$so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/exported"
nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/all"

if [ ! -s "$tmp/declared" ]; then
	bad "map: no declaration found in include/memtrace/*.h"
elif d=$(diff "$tmp/declared" "$tmp/map"); then
	ok "map ($(wc -l <"$tmp/map") functions declared and listed)"
else
	bad "map: header declarations (<) and $map (>) differ: $(echo "$d" | grep '^[<>]' | tr '\n' ' ')"
fi
if d=$(diff "$tmp/map" "$tmp/all"); then
	ok "exports ($(wc -l <"$tmp/all") symbols, all functions of the map)"
else
	bad "exports: $map (<) and nm -D $so (>) differ: $(echo "$d" | grep '^[<>]' | head -20 | tr '\n' ' ')"
fi
if libs=$(ldd "$so" 2>&1) && ! echo "$libs" | grep -qE 'libbpf|libpfm'; then
	ok "deps ($(echo "$libs" | grep -c '=>') libraries, no libbpf/libpfm)"
else
	bad "deps: $(echo "$libs" | grep -E 'libbpf|libpfm|not' | tr '\n' ' ')"
fi
# the binding's names: _PROTOS keys and fn("NAME") calls
# (struct names in @cstruct("memtrace_X") and test_abi_sizes.py are not functions)
grep -rhE '"memtrace_[a-z0-9_]+"' user/analyze/memtrace_analyze tests/analyze --include=*.py \
	--exclude=test_abi_sizes.py | grep -v 'cstruct("' | grep -oE '"memtrace_[a-z0-9_]+"' |
	tr -d '"' | sort -u >"$tmp/python"
if [ ! -s "$tmp/python" ]; then
	bad "python: no memtrace_* name found in user/analyze"
elif missing=$(comm -23 "$tmp/python" "$tmp/exported") && [ -z "$missing" ]; then
	ok "python ($(wc -l <"$tmp/python") functions the binding uses, all exported)"
else
	bad "python: the binding uses what $so does not export: $(echo "$missing" | tr '\n' ' ')"
fi
missing=""
for h in include/memtrace/*.h; do
	n=$(basename "$h")
	[ "$n" = memtrace.h ] && continue
	grep -q "^#include \"$n\"" include/memtrace/memtrace.h || missing="$missing $n"
done
if [ -z "$missing" ]; then
	ok "umbrella (memtrace.h includes every public header)"
else
	bad "umbrella: memtrace/memtrace.h lacks$missing"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
