#!/bin/bash
# Unit tests: every tests/unit/STAGE/test_*.c, built normally and with ASan+UBSan.
cd "$(dirname "$0")/../.." || exit 1
pass=0 fail=0
for bin in build/tests/*/test_* build/asan/tests/*/test_*; do
	case $bin in */pebs/*|*.d) continue ;; esac
	[ -x "$bin" ] || continue
	name=${bin#build/}
	out=$(timeout 300 "$bin" 2>&1)
	rc=$?
	line=$(echo "$out" | tail -1)
	p=$(echo "$line" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p')
	f=$(echo "$line" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p')
	if [ -z "$p" ]; then
		echo "FAIL $name: no summary (exit $rc)"
		echo "$out" | tail -20 | sed 's/^/    /'
		fail=$((fail + 1))
		continue
	fi
	echo "$out" | grep -E '^FAIL' | sed "s|^FAIL |FAIL $name: |"
	[ "$rc" != 0 ] && [ "$f" = 0 ] && { echo "FAIL $name: exit $rc"; echo "$out" | tail -20 | sed 's/^/    /'; f=1; }
	echo "ok   $name ($p tests)"
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
