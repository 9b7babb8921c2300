import pickle, numpy as np, itertools
w = pickle.load(open("/tmp/est-win.pkl","rb"))
w = [x for x in w if x["ex"] > 0]
for x in w:
    x["gt"] = 1 - x["f1"] / max(x["n"], 1); x["ratio"] = x["est"] / max(x["S"], 1); x["err"] = abs(x["est"]/x["ex"]-1)
    x["alias"] = x["mode"] == "fixed" and x["nip"] <= 3
train = [x for x in w if x["seed"] in (1, 2) and x["fx"] in ("pageramp","dbquery","sort","sqlite3")]
def rel(x, R, G): return x["n"] >= 100 and x["ratio"] <= R and x["gt"] >= G and not x["alias"]
best = []
for R in (1.1,1.2,1.3,1.4,1.5,1.6,1.8,2.0):
    for G in (0.5,0.6,0.7,0.8,0.85,0.9,0.93,0.95,0.97):
        ok = True; frac = []; meds = []
        for fx in ("pageramp","dbquery","sort","sqlite3"):
          for N in (100,1000,4000):
            s = [x for x in train if x["fx"]==fx and x["N"]==N and x["mode"]=="random"]
            r = [x["err"] for x in s if rel(x,R,G)]
            frac.append(len(r)/len(s)); 
            if len(r) >= 5: meds.append(np.median(r))
        allr = [x["err"] for x in train if rel(x,R,G)]
        best.append((max(meds) if meds else 9, R, G, np.mean(frac), np.median(allr) if allr else 9, np.percentile(allr,75) if allr else 9))
for b in sorted(best, key=lambda b: -b[3]):
    print("max-median %.3f R %.1f G %.2f mean-reliable %.2f pooled med %.3f p75 %.3f" % b)
