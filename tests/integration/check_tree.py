"""check_tree.py DUMP.csv WORKLOAD_OUT... [--absent KIND,...] [--pids P,...]

Every worker line of the workload outputs (mttree/mtfork format) whose kind
is not listed in --absent: its own thread faulted every page of its region,
each once (at most 2 retried faults, as the kernel may count a retried fault
twice).  Kinds in --absent: no sample at all from that process.  --pids:
the set of pids with samples must be exactly these (plus workers checked).
"""
import csv
import re
import sys

args = sys.argv[1:]
absent, outs, only_pids = set(), [], None
while args:
    a = args.pop(0)
    if a == "--absent":
        absent = set(args.pop(0).split(","))
    elif a == "--pids":
        only_pids = {int(p) for p in args.pop(0).split(",")}
    else:
        outs.append(a)
rows = list(csv.DictReader(open(outs[0])))
workers = []
for path in outs[1:]:
    workers += [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(path) if l.startswith("worker=")]
assert workers, "no worker lines"
seen_pids = {int(r["pid"]) for r in rows}
checked = 0
for w in workers:
    base, pages, pid, tid = int(w["base"], 16), int(w["pages"]), int(w["pid"]), int(w["tid"])
    if w["kind"] in absent:
        assert pid not in seen_pids, f"{w['worker']} ({w['kind']}, pid {pid}) has samples"
        continue
    got = [r for r in rows if int(r["pid"]) == pid and int(r["tid"]) == tid and
           base <= int(r["addr"], 16) < base + pages * 4096]
    pg = sorted((int(r["addr"], 16) - base) // 4096 for r in got)
    assert sorted(set(pg)) == list(range(pages)), f"worker {w['worker']} ({w['kind']} {pid}): pages {pg}"
    assert len(pg) - pages <= 2, f"worker {w['worker']}: {len(pg) - pages} repeated faults (duplicates?)"
    checked += 1
if only_pids is not None:
    assert seen_pids <= only_pids, f"samples of other pids: {sorted(seen_pids - only_pids)}"
print(f"checked {checked} workers")
