#!/bin/bash
# Address spaces: two processes share a memfd mapped at different addresses
# and have private pages at the same address.  With the page-fault source
# (every fault, -c 1) each shared page is one bucket with one fault per
# process, each private page one bucket per process; --pid keeps one
# process's own addresses; --per-process splits the counts.
. "$(dirname "$0")/lib.sh"
K=8 P=4
"$MT" record -e page-faults -c 1 -o "$TMP/t.mtrace" -- "$WL/shmpair" -k $K -p $P \
	>"$TMP/wl.out" 2>"$TMP/rec.err" || fail "record failed: $(cat "$TMP/rec.err")"
"$MT" report "$TMP/t.mtrace" --json -n 100000 --per-process >"$TMP/all.json" ||
	fail "report failed"
child=$(sed -nE 's/^role=child pid=([0-9]+).*/\1/p' "$TMP/wl.out")
"$MT" report "$TMP/t.mtrace" --json -n 100000 --pid "$child" >"$TMP/child.json" ||
	fail "report --pid failed"
$PY - "$TMP/all.json" "$TMP/child.json" "$TMP/wl.out" $K $P <<'PY' || exit 1
import json, re, sys
allr, child, k, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[4]), int(sys.argv[5])
wl = {m["role"]: m for m in (dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(sys.argv[3]))}
par, chi = wl["parent"], wl["child"]
pg, mask = 4096, (1 << 48) - 1
assert allr["target_pid"] == par["pid"], (allr["target_pid"], par)
priv = int(par["private"], 16)
assert priv == int(chi["private"], 16) and par["shared"] != chi["shared"], wl
hot = allr["hot_data"]
assert len(hot) == allr["wss_data"]["total"], "top N did not list every bucket"

def check_retries(counts, want, what):
    # a retried fault counts twice (the kernel's page-fault event): at most 2 per process
    assert all(c >= want for c in counts), f"{what}: {counts}"
    assert sum(counts) - want * len(counts) <= 4, f"{what}: {counts}"

# shared: one bucket per page of the memfd, at the parent's (the target's) addresses
shared = [h for h in hot if h["location"].startswith("memfd:shmpair+")]
assert sorted(h["address"] for h in shared) == [int(par["shared"], 16) + i * pg for i in range(k)], shared
assert all(h["location"] == "memfd:shmpair+0x%x (shared by 2 processes)" % (h["address"] - int(par["shared"], 16))
           for h in shared), shared
check_retries([h["count"] for h in shared], 2, "shared pages")
# private: the same addresses, one bucket per page in each process; "address" is the
# address in the process ("pid" says which), "key" the bucket (the child's tagged)
assert all(h["address"] >> 48 == 0 for h in hot), "a tagged address printed"
assert all(h["pid"] == int(par["pid"]) for h in shared), shared
private = [h for h in hot if priv <= h["address"] < priv + p * pg]
mine = sorted(h["address"] for h in private if h["pid"] == int(par["pid"]))
theirs = sorted(h["address"] for h in private if h["pid"] == int(chi["pid"]))
assert mine == [priv + i * pg for i in range(p)], private
assert theirs == [priv + i * pg for i in range(p)], private
assert all(h["key"] == h["address"] for h in private if h["pid"] == int(par["pid"])), private
tags = {h["key"] >> 48 for h in private if h["pid"] == int(chi["pid"])}
assert len(tags) == 1 and 0 not in tags, private
assert all(h["key"] & mask == h["address"] for h in private), private
assert all(h["location"] == "[anon]+0x%x" % (h["address"] - priv) for h in private if h["pid"] == int(par["pid"])), private
assert all(h["location"] == "pid %s [anon]+0x%x" % (chi["pid"], h["address"] - priv)
           for h in private if h["pid"] == int(chi["pid"])), private
check_retries([h["count"] for h in private], 1, "private pages")
# distinct buckets of the workload's pages: K + 2P
assert len(shared) + len(private) == k + 2 * p
# per process: both processes, the shared pages counted in each and once in all
procs = {str(x["pid"]): x for x in allr["processes"]}
assert sorted(procs) == sorted([par["pid"], chi["pid"]]), procs.keys()
assert allr["shared_buckets"] == k, allr["shared_buckets"]
assert procs[par["pid"]]["shared_buckets"] == k and procs[chi["pid"]]["shared_buckets"] == k, procs
assert allr["processes"][0]["pid"] == int(par["pid"]), "the target comes first"
assert sum(x["samples"] for x in allr["processes"]) == allr["samples"]
# --pid CHILD: the child's own addresses are the keys, one fault per page
ch = child["hot_data"]
cs = sorted(h["address"] for h in ch if h["location"].startswith("memfd:shmpair+"))
assert cs == [int(chi["shared"], 16) + i * pg for i in range(k)], cs
cp = sorted(h["address"] for h in ch if priv <= h["address"] < priv + p * pg)
assert cp == [priv + i * pg for i in range(p)], cp
assert child["samples"] == procs[chi["pid"]]["samples"], (child["samples"], procs[chi["pid"]])
assert all(h["address"] >> 48 == 0 for h in ch), "tagged keys in a one-process report"
PY
