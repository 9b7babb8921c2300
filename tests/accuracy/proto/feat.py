#!/usr/bin/python3
"""Per-window sample features + exact WSS, for estimator prototyping (pickle)."""
import os, sys, pickle
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import accuracy as A
from memtrace_analyze import lib

W, T = A.WINDOW, A.INTERVAL


def idx_for(n, period, mode, seed):
    if mode == "fixed":
        return np.arange(period - 1, n, period)
    rng = np.random.default_rng(seed)
    lo, hi = period - period // 2, period + period // 2
    gaps = rng.integers(lo, hi + 1, size=n // max(lo, 1) + 2)
    idx = np.cumsum(gaps) - 1
    return idx[idx < n]


def features(name, periods, modes, seeds):
    exact = A.exact_trace(name)
    tr = lib.Trace(exact)
    cols = tr.read(("time", "addr", "ip"))
    tr.close()
    ex = lib.report(exact, window=W, interval=T, top=1)
    tk = np.asarray(ex["data"]["time"], dtype=np.int64)
    exw = np.asarray(ex["data"]["wss"], dtype=np.int64)
    t = cols["time"].astype(np.int64); b = (cols["addr"] >> 12).astype(np.int64); ip = cols["ip"].astype(np.int64)
    out = []
    for period in periods:
        for mode in modes:
            for seed in seeds:
                if mode == "fixed" and seed != seeds[0]:
                    continue
                ix = idx_for(t.size, period, mode, seed)
                st, sb, sip = t[ix], b[ix], ip[ix]
                for r, tend in enumerate(tk):
                    a, z = np.searchsorted(st, tend - W, "right"), np.searchsorted(st, tend, "right")
                    # neighbours: previous/next non-overlapping windows
                    ap = np.searchsorted(st, tend - 2 * W, "right")
                    zn = np.searchsorted(st, tend + W, "right")
                    out.append(dict(fixture=name, period=period, mode=mode, seed=seed, row=r, t=int(tend),
                                    exact=int(exw[r]), b=sb[a:z], ip=sip[a:z], bprev=sb[ap:a], bnext=sb[z:zn],
                                    n=int(z - a)))
    return out


if __name__ == "__main__":
    names = sys.argv[1].split(",")
    periods = [int(x) for x in sys.argv[2].split(",")]
    seeds = [int(x) for x in sys.argv[3].split(",")]
    res = []
    for nm in names:
        res += features(nm, periods, ["fixed", "random"], seeds)
    pickle.dump(res, open(sys.argv[4], "wb"))
    print(len(res))
