#!/bin/bash
# damon: `memtracectl status` has one damon line (available, or why not)
# and -e auto's order in four numbered lines with exactly one picked;
# where DAMON cannot run (this host: no vaddr operations) record -e damon
# fails with that reason in one line and changes nothing; bad --damon-*
# values and targets DAMON cannot watch are refused in one line.  The
# recording itself is tested in the 6.12 guest (tests/kernel/guest-damon.sh).
. "$(dirname "$0")/lib.sh"
"$MT" status >"$TMP/st.txt" 2>&1 || fail "status failed"
n=$(grep -c '^  damon: \(available (\|unavailable - \)' "$TMP/st.txt")
[ "$n" = 1 ] || fail "want one damon line, got $n: $(grep damon "$TMP/st.txt")"
grep -q '^-e auto (first available of, in order):$' "$TMP/st.txt" || fail "no -e auto block"
for step in "1. PMU memory events" "2. module accessed bits" "3. hint-faults" "4. damon" "5. page-faults"; do
	grep -q "^  $step: \(available\|unavailable - .\)" "$TMP/st.txt" || fail "no line '$step'"
done
[ "$(grep -c '^  [1-5]\. .*: available - picked$' "$TMP/st.txt")" = 1 ] || fail "not one picked step: $(grep '^  [1-5]\.' "$TMP/st.txt")"
nk=$(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds 2>/dev/null || echo none)
if why=$(sed -n 's/^  damon: unavailable - //p' "$TMP/st.txt") && [ -n "$why" ]; then
	( cd "$TMP" && expect_error "backend damon: -e damon: ${why:0:40}" \
		"$MT" record -e damon -o "$TMP/d.mtrace" -- /bin/true )
	[ ! -e "$TMP/d.mtrace" ] || fail "a refused recording left a trace"
	grep -q "^  4. damon: unavailable - ${why:0:40}" "$TMP/st.txt" || fail "auto's damon line differs"
fi
[ "$(cat /sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds 2>/dev/null || echo none)" = "$nk" ] ||
	fail "nr_kdamonds changed"
( cd "$TMP" && expect_error "-e damon monitors processes" "$MT" record -e damon -a -d 1 -o "$TMP/a.mtrace" )
( cd "$TMP" && expect_error "invalid --damon-regions '2,10'" "$MT" record -e damon --damon-regions 2,10 -- /bin/true )
( cd "$TMP" && expect_error "invalid --damon-intervals '100ms,5ms'" \
	"$MT" record -e damon --damon-intervals 100ms,5ms -- /bin/true )
( cd "$TMP" && expect_error "invalid --damon-intervals 'x'" "$MT" record -e damon --damon-intervals x -- /bin/true )
echo "damon status: $(grep '^  damon: ' "$TMP/st.txt" | cut -c1-100)"
