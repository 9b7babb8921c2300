#!/bin/bash
# bpf backend: `memtracectl status` says whether it can run and why not, one
# line each; without privileges record --backend bpf fails with one line
# naming what is missing, and auto falls back to another backend; -a
# records other processes, with no kernel address unless --kernel.
. "$(dirname "$0")/lib.sh"
"$MT" status >"$TMP/st.txt" 2>&1 || fail "status failed"
grep -q '^  bpf: BTF: /sys/kernel/btf/vmlinux present' "$TMP/st.txt" || fail "no BTF line: $(cat "$TMP/st.txt")"
grep -q '^  bpf: privileges: CAP_BPF yes, CAP_PERFMON yes' "$TMP/st.txt" || fail "no privileges line"
grep -q '^  bpf: kernel.unprivileged_bpf_disabled=' "$TMP/st.txt" || fail "no unprivileged_bpf_disabled line"
grep -q '^  bpf: page-faults: available' "$TMP/st.txt" || fail "bpf not available: $(grep bpf: "$TMP/st.txt")"
grep -qx '  bpf: fault source: tp_btf/page_fault_user (page faults without --kernel, hint faults)' \
	"$TMP/st.txt" || fail "no fault source line: $(grep bpf: "$TMP/st.txt")"

# without capabilities (nobody, empty capability sets)
drop="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all"
chmod 755 "$TMP"
$drop "$MT" status >"$TMP/st2.txt" 2>&1 || fail "status as nobody failed"
grep -q '^  bpf: page-faults: unavailable - needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)' \
	"$TMP/st2.txt" || fail "no reason as nobody: $(grep bpf: "$TMP/st2.txt")"
grep -q '^  bpf: privileges: CAP_BPF no, CAP_PERFMON no, CAP_SYS_ADMIN no' "$TMP/st2.txt" ||
	fail "privileges line as nobody: $(grep bpf: "$TMP/st2.txt")"
( cd "$TMP" && expect_error "backend bpf: needs CAP_BPF and CAP_PERFMON" \
	$drop "$MT" record --backend bpf -o "$TMP/n.mtrace" -- /bin/true )

# -a: other processes' faults, user addresses only (the filter drops kernel ones)
"$MT" record --backend bpf -a -d 1 -c 1 -o "$TMP/a.mtrace" 2>"$TMP/a.err" &
rec=$!
wait_file "$TMP/a.mtrace" 100 || fail "record -a did not start: $(cat "$TMP/a.err")"
"$WL/pageramp" -n 256 -c 1 >"$TMP/wl.out"
wait $rec || fail "record -a failed: $(cat "$TMP/a.err")"
"$MT" dump "$TMP/a.mtrace" >"$TMP/a.csv" || fail "dump failed"
$PY - "$TMP/a.csv" "$TMP/wl.out" <<'PY' || exit 1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = re.search(r"base=(0x[0-9a-f]+) .* tid=(\d+)", open(sys.argv[2]).read())
base, tid = int(m.group(1), 16), int(m.group(2))
region = sorted((int(r["addr"], 16) - base) // 4096 for r in rows
                if int(r["tid"]) == tid and base <= int(r["addr"], 16) < base + 256 * 4096)
assert region == list(range(0, 256, 2)), region
assert all(int(r["addr"], 16) < 1 << 63 for r in rows), "a kernel address without --kernel"
PY
exit 0
