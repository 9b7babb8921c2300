#!/bin/bash
# status -p PID: what each source sees of a process, per kind of mapping,
# checked against what the workloads know they hold: hintsets re-reads its
# set A (4096 private pages) from two threads, so hint faults must see
# re-accesses on (nearly) those pages and no more of its private memory than
# A and its stacks; a PostgreSQL-like python workload (a 32 MiB shared
# anonymous segment that two forked children re-read) must show 8192
# resident shared anonymous pages.  Bad input: one-line errors.
. "$(dirname "$0")/lib.sh"
NB=/proc/sys/kernel/numa_balancing
[ -w $NB ] || skip numa-balancing "no writable $NB (root and CONFIG_NUMA_BALANCING)"
before=$(cat $NB)

"$WL/hintsets" -n 4096 -t 2 -s 40 >"$TMP/hs.out" 2>&1 &
hs=$!
sleep 1
"$MT" status -p $hs -d 6 >"$TMP/hs.txt" 2>"$TMP/hs.err" || fail "status -p hintsets failed: $(cat "$TMP/hs.err")"
kill $hs
[ "$(cat $NB)" = "$before" ] || fail "numa_balancing is $(cat $NB) after status -p, was $before"
line=$(grep -A4 '^hint-faults' "$TMP/hs.txt" | grep '^  private anonymous') ||
	fail "no hint-faults line for private memory: $(cat "$TMP/hs.txt")"
seen=$(echo "$line" | sed -n 's/.*re-accesses seen on \([0-9]*\) of.*/\1/p')
[ -n "$seen" ] && [ "$seen" -ge 3686 ] && [ "$seen" -le 4196 ] ||
	fail "hint faults saw re-accesses on '$seen' private pages, set A has 4096: $line"

$PY - <<'PY' >"$TMP/pg.out" &
import mmap, os, time
N = 8192
shm = mmap.mmap(-1, N * 4096, flags=mmap.MAP_SHARED)
for i in range(N):
    shm[i * 4096] = 1
for k in range(2):
    if os.fork() == 0:
        end = time.time() + 40
        while time.time() < end:
            for i in range(2048):
                shm[i * 4096]
            time.sleep(0.1)
        os._exit(0)
print("ready", flush=True)
time.sleep(40)
PY
pg=$!
for _ in $(seq 100); do grep -q ready "$TMP/pg.out" && break; sleep 0.05; done
"$MT" status -p $pg -d 2 >"$TMP/pg.txt" 2>"$TMP/pg.err" || fail "status -p of the shared workload failed: $(cat "$TMP/pg.err")"
pkill -P $pg; kill $pg
grep -Eq '^  shared anonymous +1 +32 MiB$' "$TMP/pg.txt" || fail "the 32 MiB shared segment is not listed: $(cat "$TMP/pg.txt")"
grep -q '^page-faults' "$TMP/pg.txt" && grep -q '^hint-faults' "$TMP/pg.txt" ||
	fail "a source is missing from status -p: $(cat "$TMP/pg.txt")"

expect_error "status -p 999999999" "$MT" status -p 999999999
"$MT" status -p 1 -d 0 >/dev/null 2>"$TMP/d0.err"; rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$TMP/d0.err")" = 1 ] || fail "status -d 0: exit $rc, $(cat "$TMP/d0.err")"
echo "hint faults saw re-accesses on $seen of set A's 4096 pages; the shared segment listed"
exit 0
