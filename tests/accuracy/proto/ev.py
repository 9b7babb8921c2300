#!/usr/bin/python3
import os
import sys
import numpy as np
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import STRIDE, chao, counts, fill, load_groups  # noqa: E402,F401

groups = load_groups(sys.argv[1])

EST = {}
def est(name):
    def deco(f):
        EST[name] = f
        return f
    return deco

res = defaultdict(lambda: defaultdict(list))
RUN = {}
for key, rs in groups.items():
    RUN[key] = set(np.unique(np.concatenate([r["b"] for r in rs])).tolist())
for key, rs in groups.items():
    N = key[1]
    c = [counts(r["b"]) for r in rs]
    for i, r in enumerate(rs):
        S, n, f1, f2 = c[i]
        F1 = sum(c[j][2] for j in range(i, -1, -STRIDE)[:5])
        F2 = sum(c[j][3] for j in range(i, -1, -STRIDE)[:5])
        ex = r["exact"]
        seenset = set(np.unique(r["b"]).tolist())
        prev, nxt = set(np.unique(r["bprev"]).tolist()), set(np.unique(r["bnext"]).tolist())
        br = len((prev & nxt) - seenset)
        e = {}
        e["seen"] = S
        e["chao_pool"] = chao(S, f1, f2, F1, F2, N)
        e["chao_w"] = chao(S, f1, f2, f1, f2, N)
        if S:
            _, cc = np.unique(r["b"], return_counts=True)
            e["ht"] = float((1 / (1 - np.exp(-cc.astype(float)))).sum())
        else:
            e["ht"] = 0
        e["bracket"] = S + br
        e["chao+br"] = e["chao_pool"] + br
        e["fill2"] = S + fill(r["b"], 2)
        e["fill2+br"] = S + br + fill(r["b"], 2)
        e["chao+fill2"] = e["chao_pool"] + fill(r["b"], 2)
        runset = RUN[key]
        def fillset(bs, g, ok=None):
            u = np.unique(bs)
            tot = 0
            for a, b in zip(u[:-1], u[1:]):
                if 1 < b - a <= g + 1:
                    for x in range(a + 1, b):
                        if ok is None or x in ok:
                            tot += 1
            return tot
        for g in (1, 2, 4):
            e["chao+fillrun%d" % g] = e["chao_pool"] + fillset(r["b"], g, runset)
        e["chao+fill1"] = e["chao_pool"] + fill(r["b"], 1)
        allb = np.concatenate([r["b"], np.array(list((prev & nxt) - seenset), dtype=np.int64)])
        e["br+fill2"] = len(seenset) + br + fill(allb, 2) if allb.size else 0
        for k, v in e.items():
            res[key[:3]][k].append((v, ex))

names = sys.argv[2].split(",") if len(sys.argv) > 2 else None
for key in sorted(res):
    if names and key[0] not in names:
        continue
    line = "%-9s %5d %-6s" % key
    for k, v in res[key].items():
        a = np.array(v, float)
        m = a[:, 1] > 0
        rat = a[m, 0] / a[m, 1]
        line += " %s %.2f/%2.0f" % (k, np.median(rat), 100 * np.median(np.abs(rat - 1)))
    print(line)
