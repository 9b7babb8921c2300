"""Checks an accessed-bit recording (-e accessed) of the pglike workload.

usage: check_accessed.py DUMP_CSV ORACLE [--pass-ms MS] [--report-only] [--min-windows N]

ORACLE is pglike's own output: the shared segment (every 4th page hot, the
others written once before the recording), each child's private pages (the
first HOT hot, COLD written once) and the parent's 2 MiB region (hot).
The records are grouped into 1-pass windows (t0 = the first page record
minus a third of a pass, windows of one pass period).  A window is complete
when every process of the oracle has a pass (records with one scan time) in
it; its set is the shared hot pages counted once (by address: the children
map the segment at the same address) plus each process's private hot pages.
Checks: no cold page in any record; the shared pages carry the shmem kind,
the private ones the anonymous kind; every complete window holds exactly the
hot pages (--report-only: print how many, check nothing about them: the run
without TLB flushes).  Windows where a process had no pass are blind, and
counted.
"""
import sys

PAGE = 4096
KIND_ANON, KIND_SHMEM, KIND_MASK, KIND_THP = 1, 2, 0xF, 0x10


def parse_oracle(path):
    shared, priv, thp = None, {}, {}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        f = dict(x.split("=", 1) for x in w[1:] if "=" in x)
        if w[0] == "shared":
            shared = (int(f["start"], 16), int(f["pages"]), int(f["hot_every"]))
        elif w[0] == "private":
            priv[int(f["pid"])] = (int(f["start"], 16), int(f["hot"]), int(f["cold"]))
        elif w[0] == "thp":
            thp[int(f["pid"])] = (int(f["start"], 16), int(f["pages"]))
    if shared is None or not priv or not thp:
        sys.exit("oracle incomplete: %s" % path)
    return shared, priv, thp


def main():
    args = sys.argv[1:]
    report_only = "--report-only" in args
    pass_ns = 1000 * 1000000
    min_windows = 3
    if "--pass-ms" in args:
        pass_ns = int(args[args.index("--pass-ms") + 1]) * 1000000
    if "--min-windows" in args:
        min_windows = int(args[args.index("--min-windows") + 1])
    csv_path, oracle = args[0], args[1]
    (s0, sn, every), priv, thp = parse_oracle(oracle)
    procs = set(priv) | set(thp)
    hot_shared = {s0 + i * PAGE for i in range(0, sn, every)}
    want = len(hot_shared) + sum(h for _s, h, _c in priv.values()) + sum(n for _s, n in thp.values())
    errs = []
    cold = {"shared": 0, "private": 0}
    badkind = 0
    other = 0
    passes = {}     # (pid, time) -> set of keys
    with open(csv_path) as fh:
        next(fh)
        for row in fh:
            t, pid, _tid, _cpu, addr, _ip, _w, src = row.split(",")
            t, pid, addr, src = int(t), int(pid), int(addr, 16), int(src, 16)
            kind = src & KIND_MASK
            key = None
            if s0 <= addr < s0 + sn * PAGE:
                if (addr - s0) // PAGE % every:
                    cold["shared"] += 1
                    continue
                if kind != KIND_SHMEM:
                    badkind += 1
                key = ("s", addr)
            elif pid in priv and priv[pid][0] <= addr < priv[pid][0] + (priv[pid][1] + priv[pid][2]) * PAGE:
                if (addr - priv[pid][0]) // PAGE >= priv[pid][1]:
                    cold["private"] += 1
                    continue
                if kind != KIND_ANON:
                    badkind += 1
                key = ("p", pid, addr)
            elif pid in thp and thp[pid][0] <= addr < thp[pid][0] + thp[pid][1] * PAGE:
                if kind & KIND_MASK != KIND_ANON:
                    badkind += 1
                key = ("p", pid, addr)
            else:
                other += 1
            if pid in procs:
                passes.setdefault((pid, t), set())
                if key:
                    passes[(pid, t)].add(key)
    if cold["shared"] or cold["private"]:
        errs.append("cold pages found accessed: %d shared, %d private" % (cold["shared"], cold["private"]))
    if badkind:
        errs.append("%d records with the wrong mapping kind" % badkind)
    if not passes:
        sys.exit("no page record of the workload's processes")
    t0 = min(t for _p, t in passes) - pass_ns // 3
    t_end = max(t for _p, t in passes)
    nwin = (t_end - t0) // pass_ns + 1
    windows = [dict() for _ in range(nwin)]
    for (pid, t), keys in passes.items():
        windows[(t - t0) // pass_ns].setdefault(pid, set()).update(keys)
    complete, exact, blind, sizes = 0, 0, 0, []
    for k, w in enumerate(windows):
        if set(w) != procs:
            blind += 1
            continue
        complete += 1
        seen = set().union(*w.values())
        sizes.append(len(seen))
        if len(seen) == want:
            exact += 1
        elif not report_only:
            miss = want - len(seen)
            errs.append("window %d: %d pages, want %d (%d hot pages missed)" % (k, len(seen), want, miss))
    sizes.sort()
    med = sizes[len(sizes) // 2] if sizes else 0
    print("%d windows of %d ms: %d complete (%d exactly the %d hot pages; median %d = %.1f %%), "
          "%d blind (a process without a pass); %d records outside the oracle's ranges"
          % (nwin, pass_ns // 1000000, complete, exact, want, med, 100.0 * med / want, blind, other))
    if complete < min_windows:
        errs.append("only %d complete windows (want >= %d)" % (complete, min_windows))
    if errs:
        sys.exit("; ".join(errs[:6]))


main()
