#!/usr/bin/python3
import pickle, sys
import numpy as np
from collections import defaultdict

rows = pickle.load(open(sys.argv[1], "rb"))
STRIDE = 10


def counts(b):
    if b.size == 0:
        return 0, 0, 0, 0
    _, c = np.unique(b, return_counts=True)
    return c.size, b.size, int((c == 1).sum()), int((c == 2).sum())


def chao(S, f1, f2, F1, F2, N):
    fin = 1.0 / (N - 1)
    D = 2 * (F2 + 1) + F1 * fin
    r = (F1 - 1) / D if F1 > 1 else 0
    return S + f1 * r


def fill(bs, g):
    u = np.unique(bs)
    if u.size < 2:
        return 0
    d = np.diff(u) - 1
    return int(d[(d > 0) & (d <= g)].sum())


groups = defaultdict(list)
for r in rows:
    groups[(r["fixture"], r["period"], r["mode"], r["seed"])].append(r)

EST = {}
def est(name):
    def deco(f):
        EST[name] = f
        return f
    return deco

res = defaultdict(lambda: defaultdict(list))
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
