import pickle, numpy as np
from collections import defaultdict, Counter
rows = pickle.load(open("/tmp/est-feat.pkl","rb")) + pickle.load(open("/tmp/est-feat2.pkl","rb"))
g = defaultdict(list)
for r in rows: g[(r["fixture"], r["period"], r["mode"], r["seed"])].append(r)
def D(ip):
    if ip.size < 3: return 0
    succ = defaultdict(Counter)
    for a, b in zip(ip[:-1].tolist(), ip[1:].tolist()): succ[a][b] += 1
    return sum(max(c.values()) for c in succ.values()) / (ip.size - 1)
for key in sorted(g):
    if key[3] != 1 or key[1] == 4000: continue
    rs = g[key]
    d = [D(r["ip"]) for r in rs]
    print("%-9s %5d %-6s D p10 %.2f med %.2f p90 %.2f   seen/exact %.2f" % (key[0], key[1], key[2], *np.percentile(d, [10,50,90]), np.median([len(np.unique(r["b"]))/r["exact"] for r in rs if r["exact"]])))
