#!/bin/bash
# memtrace-record@.service on PostgreSQL across a restart.  Without systemd
# as PID 1 the test is the service manager: it expands the unit's
# ExecStartPre/ExecStart lines as systemd does (Environment= defaults, the
# EnvironmentFile's KEY=value lines, %i, ${VAR} one word, $VAR split) and
# runs them, with @BINDIR@ the build's memtracectl, as root with only the
# unit's CapabilityBoundingSet (setpriv; NoNewPrivileges); `systemd-analyze
# verify` checks the unit itself.  The recorder starts before the server (it waits
# for postmaster.pid), pgbench runs, the server restarts (a new postmaster
# pid), pgbench runs again, SIGTERM stops the recorder.
#
# Checked against what the test saw itself (pids from postmaster.pid,
# CLOCK_MONOTONIC around the restart, the trace's own chunks):
#   - exit status 0, rotated files (--switch-output 4s) each readable by
#     report, the last one ended by the signal;
#   - both postmasters in the trace (MAPS of each, the second's after the
#     gap began; each named postgres in THREADS) and samples of both trees,
#     the new one's after the restart;
#   - one gap (GAPS rows, merged across files) without a target: it begins
#     after the test began the restart and ends once the new postmaster was
#     up (within a second: the pid file is read every 200 ms), no sample of
#     the old tree after its start, none inside it but in its last 200 ms
#     (the new tree's events run a moment before the attach ends it), and
#     the report of the file says "gaps:" and "blind:".
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
command -v systemd-analyze >/dev/null || fail "no systemd-analyze (package systemd, tools/deps/postgres.txt)"
UNIT="$TOP/tools/systemd/memtrace-record@.service"
rec=
trap 'pg_stop; [ -n "$rec" ] && kill $rec 2>/dev/null; rm -rf "$TMP"' EXIT
mono() { $PY -c 'import time; print(time.monotonic_ns())'; }

# the unit as systemd reads it: no warning but the man page this machine
# may lack
mkdir "$TMP/unit"
sed "s|@BINDIR@|$TOP/build|" "$UNIT" >"$TMP/unit/memtrace-record@.service"
systemd-analyze verify "$TMP/unit/memtrace-record@pgtest.service" >"$TMP/verify" 2>&1
grep -v "Command 'man memtracectl(1)' failed" "$TMP/verify" | grep . &&
	fail "systemd-analyze verify: $(cat "$TMP/verify")"

cat >"$TMP/record-pgtest.conf" <<EOF
# as /etc/memtrace/record-pgtest.conf would be
MEMTRACE_PIDFILE=$DB/data/postmaster.pid
MEMTRACE_EVENT=page-faults
MEMTRACE_DIR=$TMP/out
MEMTRACE_SWITCH=4s
MEMTRACE_MAX_FILES=100
EOF
# ExecStartPre and ExecStart of the unit, NUL-separated words, one file each
$PY - "$UNIT" "$TMP/record-pgtest.conf" pgtest "$TOP/build" "$TMP/pre" "$TMP/start" "$TMP/caps" <<'PY' ||
import re, shlex, sys
unit, conf, inst, bindir, pre_out, start_out, caps_out = sys.argv[1:]
spec = lambda s: s.replace("%i", inst).replace("%%", "%").replace("@BINDIR@", bindir)
env, lines = {}, {}
for line in open(unit):
    line = line.strip()
    if not line or line[0] in "#;[" or "=" not in line:
        continue
    key, val = line.split("=", 1)
    if key == "Environment":
        for w in shlex.split(spec(val)):
            k, v = w.split("=", 1)
            env[k] = v
    elif key == "EnvironmentFile":
        assert spec(val) == f"/etc/memtrace/record-{inst}.conf", val
    else:
        assert key not in lines, f"{key} twice"
        lines[key] = val
for line in open(conf):
    line = line.strip()
    if line and not line.startswith("#"):
        k, v = line.split("=", 1)
        env[k] = " ".join(shlex.split(v))
def words(cmd):	# systemd: "$VAR" alone splits at whitespace, ${VAR} is substituted
    out = []
    for w in shlex.split(spec(cmd)):
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
        if m:
            out += env.get(m.group(1), "").split()
        else:
            out.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: env.get(m.group(1), ""), w))
    return out
for key, path in (("ExecStartPre", pre_out), ("ExecStart", start_out)):
    open(path, "wb").write(b"\0".join(w.encode() for w in words(lines[key])) + b"\0")
for key, want in (("Type", "simple"), ("KillSignal", "SIGTERM"), ("Restart", "on-failure"),
                  ("NoNewPrivileges", "yes")):
    assert lines.get(key) == want, f"{key}={lines.get(key)}, not {want}"
# setpriv's names of the capabilities the unit leaves (CAP_PERFMON -> perfmon)
caps = lines["CapabilityBoundingSet"].split()
assert caps == lines["AmbientCapabilities"].split(), "bounding and ambient sets differ"
open(caps_out, "w").write(",".join("+" + c.lower().removeprefix("cap_") for c in caps))
PY
	fail "cannot read the unit's ExecStart"
mapfile -d '' pre <"$TMP/pre"
mapfile -d '' start <"$TMP/start"
[ "${start[0]}" = "$TOP/build/memtracectl" ] || fail "ExecStart runs ${start[0]}"
"${pre[@]}" || fail "ExecStartPre ${pre[*]} failed"
# as the unit runs it: root with only its CapabilityBoundingSet, no new privileges
setpriv --bounding-set "-all,$(cat "$TMP/caps")" --no-new-privs "${start[@]}" 2>"$TMP/rec.err" &
rec=$!

pg_init
grep -q "waiting for $DB/data/postmaster.pid" "$TMP/rec.err" ||
	fail "the recorder does not wait for the pid file: $(cat "$TMP/rec.err")"
pg_start -c shared_buffers=16MB
pid1=$postmaster
pg_sort_bench 1
bench() { as_pg $PGBIN/pgbench -h "$DB" -U postgres -n -c 2 -j 2 -T 3 -f "$DB/sort.sql" postgres \
	>>"$TMP/bench.log" 2>&1 || fail "pgbench failed: $(tail -3 "$TMP/bench.log")"; }
bench
t_restart=$(mono)
pg_restart -c shared_buffers=16MB
t_up=$(mono)
pid2=$postmaster
[ "$pid2" != "$pid1" ] || fail "the restarted postmaster has the same pid $pid1"
bench
kill -TERM $rec
wait $rec
rc=$?
rec=
[ $rc = 0 ] || fail "the recorder exited $rc: $(cat "$TMP/rec.err")"
for p in $pid1 $pid2; do
	grep -q "recording pid $p (postgres)" "$TMP/rec.err" || fail "postmaster $p not attached: $(cat "$TMP/rec.err")"
done
grep -q "pid $pid1 exited; waiting for" "$TMP/rec.err" || fail "no wait after $pid1: $(cat "$TMP/rec.err")"

files=("$TMP/out"/pgtest.mtrace.*)
[ ${#files[@]} -ge 2 ] || fail "--switch-output 4s over > 8 s wrote ${#files[@]} file(s)"
: >"$TMP/all.csv"
for f in "${files[@]}"; do
	"$MT" report "$f" >"$f.txt" 2>"$TMP/report.err" || fail "report $f: $(cat "$TMP/report.err")"
	"$MT" dump "$f" | tail -n +2 >>"$TMP/all.csv" || fail "dump $f failed"
done
grep -q "ended: signal" "${files[-1]}.txt" || fail "the last file: $(grep ended "${files[-1]}.txt")"
grep -l "^gaps: " "${files[@]/%/.txt}" >/dev/null || fail "no report says the gap"
grep -l "^blind: .*overlap a gap" "${files[@]/%/.txt}" >/dev/null || fail "no report flags the gap's windows"

$PY - "$TMP/all.csv" $pid1 $pid2 $t_restart $t_up "$TOP" "${files[@]}" <<'PY' || exit 1
import csv, struct, sys
csvp, pid1, pid2, t_restart, t_up = sys.argv[1], *map(int, sys.argv[2:6])
top, files = sys.argv[6], sys.argv[7:]
gaps = []
for path in files:	# the GAPS chunks (type 16, stored), by the chunk headers
    data, pos = open(path, "rb").read(), 16
    while pos + 32 <= len(data):
        magic, typ, codec, stored, raw, count = struct.unpack_from("<IHHIII", data, pos)
        assert magic == 0x4B43544D, f"{path}: bad chunk at {pos}"
        if typ == 16:
            assert codec == 0 and stored == count * 24, (codec, stored, count)
            for i in range(count):
                gaps.append(struct.unpack_from("<QQII", data, pos + 32 + 24 * i))
        pos += 32 + stored
gaps.sort()
merged = []	# a gap split by a file's end continues at the next file's start
for g in gaps:
    if merged and merged[-1][1] == g[0] and merged[-1][2] == g[2]:
        merged[-1][1] = g[1]
    else:
        merged.append(list(g))
assert len(merged) == 1, f"gaps: {merged}"
frm, to, gpid, what = merged[0]
assert gpid == pid1 and what == 1, merged
assert t_restart <= frm < to, (t_restart, frm, to)
assert to <= t_up + 1_000_000_000, f"the gap ends {(to - t_up) / 1e9:.3f} s after the server was up"
rows = [(int(r[0]), int(r[1])) for r in csv.reader(open(csvp))]
old = {p for t, p in rows if t < t_restart}
new = {p for t, p in rows if t > t_up}
assert old and new and not (new & old), f"after the restart: {sorted(new)}, before: {sorted(old)}"
sys.path.insert(0, top + "/user/analyze")
from memtrace_analyze.lib import Trace
maps = [m for f in files for m in Trace(f).maps()]	# each postmaster's, once attached
for pid, after_t in ((pid1, 0), (pid2, frm)):
    assert any(p == pid and t >= after_t and "/postgres" in text for t, p, text in maps), \
        f"no MAPS of postmaster {pid} (of {sorted({p for _, p, _ in maps})})"
threads = {(p, tid, comm) for f in files for _, p, tid, comm in Trace(f).threads()}
for pid in pid1, pid2:	# named in the trace (report --per-process)
    assert (pid, pid, "postgres") in threads, f"postmaster {pid} has no name in THREADS"
late_old = [t for t, p in rows if p in old and t > frm]
assert not late_old, f"{len(late_old)} samples of the old tree after the gap began"
# the new tree's events run a moment before the attach returns and the gap ends
inside = [t for t, p in rows if frm < t < to - 200_000_000]
assert not inside, f"{len(inside)} samples inside the gap, the first {(inside[0] - frm) / 1e9:.3f} s in"
after = sum(1 for t, p in rows if t > t_up)
assert after >= 100, f"{after} samples after the restart"
print(f"own samples {sum(1 for t, p in rows if p == pid1)}, {sum(1 for t, p in rows if p == pid2)}; pids {pid1} -> {pid2}; gap {(to - frm) / 1e9:.3f} s ({(frm - t_restart) / 1e9:.3f} s "
      f"after the restart began, {(to - t_up) / 1e9:+.3f} s from the server up); "
      f"{len(rows)} samples, {after} after the restart, {len(files)} files")
PY
exit 0
