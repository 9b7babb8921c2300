#!/bin/bash
# A page-fault recording says what it holds (issue 9): sample_class in the
# HEADER, "page faults" / "pages first touched" in the status line, the
# report text and JSON, never "working set" or "accesses"; the span is
# start to END; a longer window is refused by both tools; the target is
# named by its own comm (through a launcher, through a symlink).
. "$(dirname "$0")/lib.sh"
meta() { "$MT" dump --meta "$1" | sed -n "s/^# *$2=//p; s/^$2=//p" | tail -1; }

# the status line (a terminal: script(1)), faults early, then 1.2 s idle
script -qec "$MT record -e page-faults -o $TMP/s.mtrace -- sh -c '$WL/pageramp -n 64 -c 1 >/dev/null; sleep 1.2'" \
	/dev/null >"$TMP/tty.out" || fail "record under script failed: $(cat "$TMP/tty.out")"
status=$(tr '\r' '\n' <"$TMP/tty.out" | grep '^.*memtrace: ' | tail -1)
echo "$status" | grep -Eq 'memtrace: [0-9.]+ s  [0-9]+ page faults \([0-9]+/s\)  lost 0  dropped 0  pages first touched [0-9.]+ [KMG]?i?B' ||
	fail "status line: $status"
[ "$(meta "$TMP/s.mtrace" sample_class)" = first-touch ] || fail "no sample_class=first-touch in the HEADER"

# report text: the words and the span (start to END, not the last sample)
"$MT" report "$TMP/s.mtrace" >"$TMP/r.txt" || fail "report failed"
for want in '^measures:  page faults \(first-touch\)$' '^target:    pid [0-9]+ \(sh\) ' \
	'^samples:   [0-9]+ page faults   lost 0' \
	'^span:      1\.[2-9][0-9]{2} s recorded; page faults from [0-9.]+ [mu]s to [0-9.]+ [mu]?s$' \
	'^Data pages first touched avg/peak/total: ' '^Code at page faults avg/peak/total: ' \
	'^Most-faulted data buckets \(top 10 of [0-9]+\):$' \
	'^        faults  address             location  \[faulted by\]$' \
	'^Most-faulted code buckets \(top ' '^Buckets by page-fault count:$' \
	'^   >= faults     buckets          size  share of page faults$' \
	'^Peaks of the data pages first touched \('; do
	grep -Eq "$want" "$TMP/r.txt" || fail "report text lacks /$want/: $(cat "$TMP/r.txt")"
done
# no heading or label says working set, WSS or accesses (the sees: line is the source's own)
if grep -v '^sees:' "$TMP/r.txt" | grep -Eiq 'working.set|wss|access'; then
	fail "report text of page faults: $(grep -v '^sees:' "$TMP/r.txt" | grep -Ei 'working.set|wss|access')"
fi

# JSON: same keys for every class; sample_class and measure say what they count
"$MT" report --json "$TMP/s.mtrace" >"$TMP/r.json" || fail "report --json failed"
$PY - "$TMP/r.json" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["sample_class"] == "first-touch", j["sample_class"]
assert j["measure"] == ("each sample is one page fault (a first touch, a re-fault or a copy-on-write fault), "
                        "not an access; memory already resident is not seen: wss_data counts distinct buckets "
                        "first touched per window (resident-set growth), wss_code the code buckets whose "
                        "instructions faulted, hot_* and hot_wss count page faults"), j["measure"]
assert j["target_comm"] == "sh", j["target_comm"]
assert j["duration"] >= 1_200_000_000 and j["last_sample"] < 600_000_000, (j["duration"], j["last_sample"])
assert 0 < j["first_sample"] <= j["last_sample"]
for k in ("wss_data", "wss_code", "hot_wss", "hot_data", "hot_code"):
    assert k in j, k
PY

# a window longer than the recording: refused by report and memtrace-analyze alike
expect_error "is longer than the recording (1.[2-9][0-9][0-9] s from start to end)" \
	"$MT" report --window 10s "$TMP/s.mtrace"
"$MT" report --window 1s "$TMP/s.mtrace" >/dev/null || fail "a window within the span was refused"
if $PY "$TOP/user/analyze/memtrace-analyze" wss "$TMP/s.mtrace" --window 10s -o "$TMP/w.png" 2>"$TMP/a.err"; then
	fail "memtrace-analyze took a window longer than the recording"
fi
grep -q "window 10.000 s is longer than the recording" "$TMP/a.err" || fail "memtrace-analyze: $(cat "$TMP/a.err")"

# names: what the target became, not its launcher; a symlink's own name
"$MT" record -o "$TMP/e.mtrace" -- env "$WL/pageramp" -n 16 -c 1 >/dev/null 2>&1 || fail "record via env failed"
[ "$(meta "$TMP/e.mtrace" target_comm)" = pageramp ] || fail "env launcher: END target_comm $(meta "$TMP/e.mtrace" target_comm)"
grep -q '^target:    pid [0-9]* (pageramp) ' <("$MT" report "$TMP/e.mtrace") || fail "env launcher: report target line"
if setpriv --reuid=nobody --regid=nogroup --clear-groups -- test -x "$WL/pageramp" 2>/dev/null; then
	"$MT" record -o "$TMP/p.mtrace" -- setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		"$WL/pageramp" -n 16 -c 1 >/dev/null 2>&1 || fail "record via setpriv failed"
	grep -q '^target:    pid [0-9]* (pageramp) ' <("$MT" report "$TMP/p.mtrace") ||
		fail "setpriv launcher: $("$MT" report "$TMP/p.mtrace" | grep '^target')"
else
	echo "note: nobody cannot run $WL/pageramp: setpriv case skipped" >&2
fi
ln -s "$WL/pageramp" "$TMP/linkedramp"
"$MT" record -o "$TMP/l.mtrace" -- "$TMP/linkedramp" -n 16 -c 1 >/dev/null 2>&1 || fail "record via symlink failed"
$PY - "$TMP/l.mtrace" "$TOP" <<'PY' || exit 1
import sys
sys.path.insert(0, sys.argv[2] + "/user/analyze")
from memtrace_analyze.lib import Trace
t = Trace(sys.argv[1])
assert t.target_comm == "linkedramp", t.target_comm      # its comm, not the file's name pageramp
PY
