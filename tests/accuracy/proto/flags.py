#!/usr/bin/python3
"""flags.py - the fit of the reliability flags (docs/accuracy.md, "The
reliability flags"): per window of the library's own report (estimate,
seen S, samples n, f1, f2, interval, flags) on sampled traces cut from the
fixtures' exact traces, every candidate rule

    reliable = no other flag, n >= K, n >= A x estimate, estimate <= R x S,
               and not (estimate > 1.5 S and n > M x S)

is scored on the training fixtures and seeds (every fixture x N with >= 5
reliable windows must keep a median |err| <= 15 % and coverage >= 90 %;
among those, the most reliable windows), then the kept one and the old one
on the held-out seeds and fixtures.  The estimate is the library's: run
`collect` with each build to compare estimators (docs/accuracy.md).

    flags.py collect OUT.pkl      # ~1 min on 2 cores, exact traces cached
    flags.py fit OUT.pkl
"""
import itertools
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import accuracy as A  # noqa: E402
from memtrace_analyze import lib  # noqa: E402

TRAIN = ("pageramp", "dbquery", "sort", "sqlite3")
HELD = ("dbquery-30k", "dbquery-60k", "dbquery-100k", "dbquery-clustered", "btree", "kvstore", "scan", "uniform", "zipf")
PROGRAMS = TRAIN + ("dbquery-30k", "dbquery-60k", "dbquery-100k", "dbquery-clustered")
NS = (10, 100, 300, 500, 997, 1000, 2000, 4000, 10000)


def collect(path):
    out = []
    for name in TRAIN + HELD:
        exact = A.exact_trace(name)
        tr = lib.Trace(exact)
        cols = tr.read(("time", "addr", "pid", "tid", "cpu", "ip"))
        tr.close()
        ex = lib.report(exact, window=A.WINDOW, interval=A.INTERVAL, top=1)
        for N, seed in itertools.product(NS, (1, 2, 3, 4, 5)):
            p = A.sampled_trace(exact, cols, name, N, "random", seed)
            rep = lib.report(p, window=A.WINDOW, interval=A.INTERVAL, top=1)
            os.unlink(p)
            e = rep["data_est"]
            at = {int(t): i for i, t in enumerate(rep["data"]["time"])}
            rows = []
            for k, t in enumerate(ex["data"]["time"]):
                x, i = int(ex["data"]["wss"][k]), at.get(int(t))
                if i is None:
                    rows.append(dict(ex=x, S=0, n=0, f1=0, f2=0, est=0.0, lo=0.0, hi=0.0, flags=1))
                else:
                    rows.append(dict(ex=x, S=int(rep["data"]["wss"][i]), n=int(e["samples"][i]),
                                     f1=int(e["f1"][i]), f2=int(e["f2"][i]), est=float(e["est"][i]),
                                     lo=float(e["lo"][i]), hi=float(e["hi"][i]), flags=int(e["flags"][i])))
            for r in rows:
                r.update(fx=name, N=N, seed=seed)
            out += [r for r in rows if r["ex"] > 0]
    pickle.dump(out, open(path, "wb"))
    print("%d windows" % len(out))


def reliable(x, K, A_, M, R):
    e = x["est"]
    if (x["flags"] & ~3) or x["S"] == 0 or x["n"] < K or x["n"] < A_ * e or e > R * x["S"]:
        return False
    return not (e > 1.5 * x["S"] and x["n"] > M * x["S"])


def score(w, rule, fixtures, seeds):
    by = {}
    for x in w:
        if x["seed"] in seeds and x["fx"] in fixtures:
            by.setdefault((x["fx"], x["N"]), []).append(x)
    out = {}
    for k, xs in by.items():
        r = [x for x in xs if reliable(x, *rule)]
        if len(r) >= 5:
            med = float(np.median([abs(x["est"] / x["ex"] - 1) for x in r]))
            cov = float(np.mean([x["lo"] <= x["ex"] <= x["hi"] for x in r]))
        else:
            med = cov = None
        out[k] = (len(r) / len(xs), med, cov)
    return out


def fit(path):
    w = pickle.load(open(path, "rb"))
    res = []
    for K, A_, M, R in itertools.product((100, 150, 200, 250, 300), (0.0, 1.0, 1.5), (10, 1e9),
                                         (1.5, 2.0, 3.0)):
        o = score(w, (K, A_, M, R), TRAIN, (1, 2))
        meds = [t[1] for t in o.values() if t[1] is not None]
        covs = [t[2] for t in o.values() if t[2] is not None]
        res.append((max(meds), min(covs), float(np.mean([t[0] for t in o.values()])), K, A_, M, R))
    print("admissible rules on the training fixtures, seeds 1-2 (worst median, worst coverage, mean reliable):")
    for r in sorted(res, key=lambda r: -r[2])[:400]:
        if r[0] <= 0.15 and r[1] >= 0.90:
            print("  %.3f %.2f %.3f  K %d A %.1f M %g R %.1f" % r)
    for name, rule in (("old", (100, 0.0, 1e9, 1.5)), ("kept", (200, 1.0, 10, 3.0))):
        for what, fixtures, seeds in (("training seeds 1-2", TRAIN, (1, 2)), ("held-out seeds 3-5", TRAIN + HELD, (3, 4, 5))):
            o = score(w, rule, fixtures, seeds)
            bad = ["%s/%d %.0f%% reliable, %.0f%% off, coverage %.0f%%" % (k[0], k[1], 100 * t[0], 100 * t[1], 100 * t[2])
                   for k, t in sorted(o.items()) if t[1] is not None and (t[1] > 0.15 or t[2] < 0.90)]
            share = np.mean([t[0] for k, t in o.items() if k[0] in PROGRAMS])
            print("%s rule, %s: mean reliable (programs) %.3f; over 15 %% or under 90 %%: %s"
                  % (name, what, share, "; ".join(bad) or "none"))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("collect", "fit"):
        sys.exit("usage: flags.py collect|fit OUT.pkl")
    (collect if sys.argv[1] == "collect" else fit)(sys.argv[2])
