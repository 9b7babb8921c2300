#!/bin/bash
# Output files are never lost or clobbered (docs/memtracectl.md, "Output
# file"): an existing -o FILE becomes FILE.old (or --force), a link is never
# followed, an early failure leaves FILE as it was and no temporary file,
# kill -9 leaves a readable trace up to the last second, a write error
# (disk full) stops the recording like SIGINT; record -- CMD exits with
# CMD's status.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
trap 'mountpoint -q "$TMP/small" && umount "$TMP/small"; rm -rf "$TMP"' EXIT

no_temp() {	# no .NAME.XXXXXX left next to FILE
	local left
	left=$(find "$(dirname "$1")" -maxdepth 1 -name ".$(basename "$1").*" | head -1)
	[ -z "$left" ] || fail "temporary file left behind: $left"
}

# exit status of the command, as perf record and time give it
"$MT" record -e page-faults -o t.mtrace -- sh -c 'exit 7' 2>/dev/null
rc=$?; [ $rc = 7 ] || fail "record -- sh -c 'exit 7' exited $rc, not 7"
"$MT" record -e page-faults -o t.mtrace --force -- /bin/false 2>/dev/null
rc=$?; [ $rc = 1 ] || fail "record -- /bin/false exited $rc, not 1"
"$MT" record -e page-faults -o t.mtrace --force -- sh -c 'kill -9 $$' 2>/dev/null
rc=$?; [ $rc = 137 ] || fail "record of a SIGKILLed command exited $rc, not 137"
"$MT" record -e page-faults -o t.mtrace --force -- true 2>/dev/null
rc=$?; [ $rc = 0 ] || fail "record -- true exited $rc"
"$MT" dump t.mtrace >/dev/null 2>&1 || fail "record -- true left no readable trace"

# an existing file becomes FILE.old, byte for byte; FILE is the new trace
head -c 5000 /dev/urandom >old.bin
cp old.bin r.mtrace
rm -f r.mtrace.old
"$MT" record -e page-faults -o r.mtrace -- true 2>/dev/null || fail "record over an existing file failed"
cmp -s old.bin r.mtrace.old || fail "r.mtrace.old is not the former r.mtrace"
"$MT" dump --meta r.mtrace 2>/dev/null | grep -q '^end_reason=target-exited' || fail "r.mtrace is not the new trace"
no_temp r.mtrace
# a second run: the trace of the first becomes .old
cp r.mtrace first.bin
"$MT" record -e page-faults -o r.mtrace -- true 2>/dev/null || fail "second record failed"
cmp -s first.bin r.mtrace.old || fail "second run: r.mtrace.old is not the first trace"
# --force overwrites and keeps no .old
cp old.bin f.mtrace
"$MT" record --force -o f.mtrace -- true 2>/dev/null || fail "record --force failed"
[ ! -e f.mtrace.old ] || fail "--force made f.mtrace.old"
cmp -s old.bin f.mtrace && fail "--force left f.mtrace unchanged"
"$MT" dump f.mtrace >/dev/null 2>&1 || fail "--force trace unreadable"
# import follows the same rules
printf 'I  04001d80,3\n L 7ff000a58,8\n S 7ff000a60,8\nI  04001d83,3\n' >log.txt
cp old.bin i.mtrace
"$MT" import -o i.mtrace log.txt 2>/dev/null || fail "import over an existing file failed"
cmp -s old.bin i.mtrace.old || fail "import: i.mtrace.old is not the former i.mtrace"
[ "$("$MT" dump i.mtrace 2>/dev/null | wc -l)" = 3 ] || fail "import: i.mtrace lacks its 2 samples (and the CSV heading)"
"$MT" import --force -o i.mtrace log.txt 2>/dev/null || fail "import --force failed"
cmp -s old.bin i.mtrace.old || fail "import --force touched i.mtrace.old"

# a symbolic link as -o is replaced (renamed to .old), never written through
cp old.bin victim
ln -s "$TMP/victim" link.mtrace
"$MT" record -e page-faults -o link.mtrace -- true 2>/dev/null || fail "record -o LINK failed"
cmp -s old.bin victim || fail "record wrote through the link onto its target"
[ -L link.mtrace.old ] && [ "$(readlink link.mtrace.old)" = "$TMP/victim" ] || fail "the link is not link.mtrace.old"
[ -f link.mtrace ] && [ ! -L link.mtrace ] || fail "link.mtrace is not a new regular file"
ln -s "$TMP/victim" link2.mtrace
"$MT" record --force -o link2.mtrace -- true 2>/dev/null || fail "record --force -o LINK failed"
cmp -s old.bin victim || fail "record --force wrote through the link onto its target"
[ ! -L link2.mtrace ] || fail "--force: link2.mtrace is still a link"

# early failures (the command cannot be executed) leave FILE and no temp
cp old.bin e.mtrace
printf '#!/nonexistent/interp\necho hi\n' >bad.sh
chmod +x bad.sh
"$MT" record -e page-faults -o e.mtrace -- ./bad.sh >/dev/null 2>err.txt
rc=$?; [ $rc = 127 ] || fail "missing interpreter: exit $rc, not 127"
grep -qx 'memtracectl: cannot execute ./bad.sh: bad interpreter /nonexistent/interp: No such file or directory' err.txt ||
	fail "missing interpreter: $(cat err.txt)"
cmp -s old.bin e.mtrace || fail "a command that cannot exec changed e.mtrace"
[ ! -e e.mtrace.old ] || fail "a command that cannot exec made e.mtrace.old"
no_temp e.mtrace
chmod -x bad.sh
"$MT" record -e page-faults -o e.mtrace -- ./bad.sh >/dev/null 2>err.txt
rc=$?; [ $rc = 126 ] || fail "not executable: exit $rc, not 126"
grep -qx 'memtracectl: cannot execute ./bad.sh: Permission denied' err.txt || fail "not executable: $(cat err.txt)"
"$MT" record -e page-faults -o e.mtrace -- ./nosuch >/dev/null 2>err.txt
rc=$?; [ $rc = 127 ] || fail "missing command: exit $rc, not 127"
grep -qx 'memtracectl: cannot execute ./nosuch: No such file or directory' err.txt || fail "missing command: $(cat err.txt)"
"$MT" record -e page-faults -o e.mtrace -- nosuch-command-xyz >/dev/null 2>err.txt
rc=$?; [ $rc = 127 ] || fail "command not in PATH: exit $rc, not 127"
grep -qx 'memtracectl: cannot execute nosuch-command-xyz: command not found' err.txt || fail "not in PATH: $(cat err.txt)"
expect_error "no process with pid" "$MT" record -e page-faults -o e.mtrace -p 999999999
cmp -s old.bin e.mtrace || fail "early failures changed e.mtrace"
no_temp e.mtrace
# a device is written in place: /dev/full fails at the file header
"$MT" record -e page-faults -o /dev/full -- true >/dev/null 2>err.txt && fail "record -o /dev/full succeeded"
grep -qx 'memtracectl: writing /dev/full: No space left on device' err.txt || fail "/dev/full: $(cat err.txt)"
# stdout still works
"$MT" record -e page-faults -o - -- true 2>/dev/null >out.mtrace || fail "record -o - failed"
[ "$(head -c 8 out.mtrace)" = MEMTRACE ] || fail "record -o - wrote no trace"

# the status line (stderr a terminal: script(1)) says "no samples", not a WSS of 0 B
sleep 30 &
idle=$!
sleep 0.5	# past its start-up (exec, loader): idle from here on
script -qc "$MT record -e page-faults -o idle.mtrace -p $idle --duration 1.2" status.log >/dev/null
kill $idle
last=$(tr '\r' '\n' <status.log | grep '^.*memtrace: ' | tail -1)
echo "$last" | grep -q '0 page faults (0/s)  lost 0  dropped 0  no samples  written ' ||
	fail "status line of an idle target: $last"
script -qc "$MT record -e page-faults -o busy.mtrace -- $WL/pageramp -n 64 -c 50 -g 20" status.log >/dev/null
last=$(tr '\r' '\n' <status.log | grep '^.*memtrace: ' | tail -1)
echo "$last" | grep -q 'no samples' && fail "status line of a busy target: $last"
echo "$last" | grep -Eq 'pages first touched [1-9][0-9.]* [KM]iB' || fail "status line of a busy target: $last"

# kill -9 of the collector: FILE is in place and holds everything but the last second
start=$(date +%s%N)
"$MT" record -e page-faults -o k.mtrace -- "$WL/pageramp" -n 64 -c 1000000 -g 20 >/dev/null 2>&1 &
rec=$!
sleep 3
wl=$(pgrep -P $rec)
{ kill -9 $rec; wait $rec; } 2>/dev/null
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
[ -n "$wl" ] && kill -9 $wl	# the orphaned workload
"$MT" report k.mtrace >k.txt 2>k.err || fail "killed trace unreadable: $(cat k.err)"
grep -q 'incomplete' k.txt || fail "report does not say the killed trace is incomplete"
start_time=$("$MT" dump --meta k.mtrace 2>/dev/null | sed -n 's/^start_time=//p')
last=$("$MT" dump k.mtrace 2>/dev/null | tail -1 | cut -d, -f1)
span=$(( (last - start_time) / 1000000 ))
[ $span -ge $((elapsed - 1500)) ] || fail "kill -9: samples reach ${span} ms of ${elapsed} ms"
rows=$($PY "$TOP/tests/integration/chunks.py" k.mtrace | awk '$1 ~ /^WINDOWS2?$/ { n += $3 } END { print n }')
[ "${rows:-0}" -ge $(((elapsed - 1500) / 100)) ] || fail "kill -9: ${rows:-0} WINDOWS rows after ${elapsed} ms"
no_temp k.mtrace
echo "kill -9 after $elapsed ms: samples to $span ms, $rows WINDOWS rows" >&2

# a full disk stops the recording as SIGINT does: command ended, the file
# readable up to the error, one error line, exit 1
mkdir small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
	out=small/full.mtrace want='No space left on device'
else	# not root: a file size limit (EFBIG) is a write error too
	out=full.mtrace want='File too large'
	trap '' XFSZ
	ulimit -f 64
fi
timeout 60 "$MT" record -e page-faults -o $out -- "$WL/pageramp" -n 256 -c 1000000 -g 5 >/dev/null 2>err.txt
rc=$?
ulimit -f unlimited 2>/dev/null
[ $rc = 1 ] || fail "write error: exit $rc, not 1"
grep -v 'no hardware memory sampling' err.txt >err1.txt
[ "$(wc -l <err1.txt)" = 1 ] && grep -qx "memtracectl: writing $out: $want" err1.txt ||
	fail "write error: $(cat err.txt)"
"$MT" report $out >rep.txt 2>err.txt || fail "trace after a write error unreadable: $(cat err.txt)"
wl=$(sed -n 's/^target: *pid \([0-9]*\) .*/\1/p' rep.txt)
[ -n "$wl" ] || fail "write error: no target pid in the report"
for _ in $(seq 40); do kill -0 "$wl" 2>/dev/null || break; sleep 0.05; done
kill -0 "$wl" 2>/dev/null && fail "write error: the command (pid $wl) still runs"
n=$("$MT" dump $out 2>/dev/null | wc -l)
[ "$n" -gt 1000 ] || fail "write error: only $n samples kept"
exit 0
