#!/usr/bin/python3
import pickle, sys
import numpy as np
from collections import defaultdict
rows = pickle.load(open(sys.argv[1], "rb"))
STRIDE = 10
def chao(S, f1, f2, F1, F2, N):
    D = 2 * (F2 + 1) + F1 / (N - 1)
    return S + f1 * ((F1 - 1) / D if F1 > 1 else 0)
groups = defaultdict(list)
for r in rows:
    groups[(r["fixture"], r["period"], r["mode"], r["seed"])].append(r)
out = []
for key, rs in groups.items():
    N = key[1]
    run = set(np.unique(np.concatenate([r["b"] for r in rs])).tolist())
    c = []
    for r in rs:
        if r["b"].size:
            u, cc = np.unique(r["b"], return_counts=True)
            c.append((u.size, r["b"].size, int((cc == 1).sum()), int((cc == 2).sum()), u))
        else:
            c.append((0, 0, 0, 0, np.zeros(0, np.int64)))
    for i, r in enumerate(rs):
        S, n, f1, f2, u = c[i]
        js = list(range(i, -1, -STRIDE))[:5]
        F1 = sum(c[j][2] for j in js); F2 = sum(c[j][3] for j in js)
        ch = chao(S, f1, f2, F1, F2, N)
        g = 0
        for a, b in zip(u[:-1], u[1:]):
            if 1 < b - a <= 3:
                g += sum(1 for x in range(a + 1, b) if x in run)
        nip = len(np.unique(r["ip"])) if r["ip"].size else 0
        topip = (np.unique(r["ip"], return_counts=True)[1].max() / n) if n else 0
        topb = (np.unique(r["b"], return_counts=True)[1].max() / n) if n else 0
        out.append(dict(fx=key[0], N=N, mode=key[2], seed=key[3], ex=r["exact"], S=S, n=n, f1=f1, f2=f2,
                        chao=ch, fill=g, est=ch + g, nip=nip, topip=topip, topb=topb))
pickle.dump(out, open(sys.argv[2], "wb"))
