import pickle, sys, numpy as np
from collections import defaultdict
rows = pickle.load(open("/tmp/est-feat.pkl","rb")) + pickle.load(open("/tmp/est-feat2.pkl","rb"))
g = defaultdict(list)
for r in rows: g[(r["fixture"], r["period"], r["mode"], r["seed"])].append(r)
def chao(d, f1, f2, N):
    return d + (f1*(f1-1)/(2*(f2+1)) if f1 > 1 else 0)
NN = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
TH = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
SH = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
for key in sorted(g):
    if key[3] != 1 or key[1] != NN: continue
    rs = g[key]
    # run samples: every STRIDE-th row's window = non-overlapping
    b = np.concatenate([r["b"] for r in rs[::10]]); ip = np.concatenate([r["ip"] for r in rs[::10]])
    pairs = defaultdict(lambda: defaultdict(int))
    for x, y in zip(ip.tolist(), b.tolist()): pairs[x][y] += 1
    tail = set()
    for x, d in pairs.items():
        c = np.array(list(d.values())); n = c.sum()
        if n >= 10 and chao(len(c), (c==1).sum(), (c==2).sum(), key[1]) > TH * len(c): tail.add(x)
    sh = [np.mean([i in tail for i in r["ip"].tolist()]) if r["ip"].size else 0 for r in rs]
    print(key[:3], "tail ips", len(tail), "of", len(pairs), "windows with share > %.2f: %.0f%%" % (SH, 100*np.mean(np.array(sh) > SH)), "median share %.3f" % np.median(sh))
