#!/bin/bash
# Bad input: one clear line on stderr and a non-zero exit, for every verb.
. "$(dirname "$0")/lib.sh"
expect_error "cannot open" "$MT" report "$TMP/missing.mtrace"
printf 'garbage that is no trace at all\n' >"$TMP/garbage"
expect_error "not a memtrace trace" "$MT" report "$TMP/garbage"
: >"$TMP/empty"
expect_error "empty file" "$MT" report "$TMP/empty"
"$MT" record -c 1 -o "$TMP/ok.mtrace" -- /bin/true 2>/dev/null || fail "record of /bin/true failed"
head -c 20 "$TMP/ok.mtrace" >"$TMP/cut"
expect_error "truncated" "$MT" report "$TMP/cut"
# a flipped byte inside a chunk
cp "$TMP/ok.mtrace" "$TMP/flip"
printf '\xff' | dd of="$TMP/flip" bs=1 seek=60 conv=notrunc 2>/dev/null
expect_error "corrupt\|checksum" "$MT" report "$TMP/flip"
expect_error "unknown event" "$MT" record -e no-such-event -o "$TMP/x.mtrace" -- /bin/true
expect_error "needs a hardware PMU\|not available" "$MT" record -e loads -o "$TMP/x.mtrace" -- /bin/true
expect_error "no process with pid" "$MT" record -p 999999 -o "$TMP/x.mtrace"
expect_error "invalid pid" "$MT" record -p abc -o "$TMP/x.mtrace"
expect_error "exactly one target" "$MT" record -o "$TMP/x.mtrace"
expect_error "exactly one target" "$MT" record --pidfile "$TMP/x.pid" -p $$ -o "$TMP/x.mtrace"
expect_error "not with --allocs" "$MT" record --pidfile "$TMP/x.pid" --allocs -o "$TMP/x.mtrace"
expect_error "not with --no-children" "$MT" record --pidfile "$TMP/x.pid" --no-children -o "$TMP/x.mtrace"
expect_error "needs the perf or bpf backend (the valgrind backend" "$MT" record --pidfile "$TMP/x.pid" \
	--backend valgrind -o "$TMP/x.mtrace"
expect_error "needs the perf or bpf backend (the damon backend" "$MT" record --pidfile "$TMP/x.pid" \
	-e damon -o "$TMP/x.mtrace"
expect_error "unknown backend" "$MT" record --backend nope -o "$TMP/x.mtrace" -- /bin/true
expect_error "invalid period" "$MT" record -c 0 -o "$TMP/x.mtrace" -- /bin/true
expect_error "invalid bucket" "$MT" report --bucket 3000 "$TMP/ok.mtrace"
expect_error "invalid window" "$MT" report --window 10parsecs "$TMP/ok.mtrace"
expect_error "cannot create" "$MT" record -o /nonexistent/dir/x.mtrace -- /bin/true
expect_error "unknown verb" "$MT" frobnicate
# no permission: an unprivileged user may not trace a root process
if command -v setpriv >/dev/null; then
	sleep 30 &
	victim=$!
	expect_error "not permitted\|permission" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MT" record -p $victim -o /tmp/memtrace-nobody.mtrace
	kill $victim
	# and a file it may not read
	"$MT" record -c 1 -o "$TMP/priv.mtrace" -- /bin/true 2>/dev/null
	chmod 600 "$TMP/priv.mtrace"
	chmod 755 "$TMP"
	expect_error "cannot open" setpriv --reuid=65534 --regid=65534 --clear-groups "$MT" report "$TMP/priv.mtrace"
fi
# nothing recorded is lost: the original trace still reads fine
"$MT" report "$TMP/ok.mtrace" >/dev/null || fail "good trace no longer reads"
