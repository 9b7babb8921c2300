"""common.py - helpers of the estimator comparison (ev.py): the per-window
sample counts, the pooled Chao1 the estimators start from, the 1..g-bucket
gaps between seen buckets, and the windows of one fixture x N x period kind
x seed."""
import pickle
from collections import defaultdict

import numpy as np

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


def load_groups(path):
    """The pickled windows of feat.py, grouped by (fixture, period, mode, seed)."""
    groups = defaultdict(list)
    for r in pickle.load(open(path, "rb")):
        groups[(r["fixture"], r["period"], r["mode"], r["seed"])].append(r)
    return groups
