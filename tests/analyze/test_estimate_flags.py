"""The estimate's refinements end to end (engine/wss_spatial.h, wss_est.h;
docs/accuracy.md): gap buckets, aliasing and long-tail flags, on synthetic
sampled traces whose answers are built here, not read from the library."""
import numpy as np

from memtrace_analyze import lib
from tracegen import write_trace

BASE = 0x7f0000000000
W = 100000          # window = interval: each window its own rows
EST_ALIASED, EST_TAIL_INSNS, EST_ROUND_PERIOD = 8, 32, 64


def report(path):
    return lib.report(str(path), window=W, interval=W)["data_est"]


def test_gap_buckets_between_seen_pages(tmp_path):
    """Windows 1-4 sample the even pages 0..98 (10 times each), window 5
    the odd ones: in windows 1-4 the 49 odd pages lie in 1-page gaps between
    seen pages and were hit elsewhere in the run; with 500 samples for 50
    seen pages the weight is min(1, 16 * 50 / 500) = 1, and nothing was
    seen once or twice (no Chao part): estimate = 50 + 49."""
    pages = []
    for k in range(5):
        p = np.arange(0, 100, 2) if k < 4 else np.arange(1, 100, 2)
        pages.append(np.tile(p, 10))
    pages = np.concatenate(pages)
    n = pages.size
    time = np.arange(n, dtype=np.uint64) * (5 * W // n) + 1
    path = write_trace(tmp_path / "g.mtrace", time, BASE + pages.astype(np.uint64) * 4096,
                       ip=np.full(n, 0x401000, np.uint64) + (np.arange(n, dtype=np.uint64) % 7) * 4,
                       sample_period=100, meta={"random_period": 1})
    e = report(path)
    assert e["est"].size >= 4
    for i in range(4):
        assert e["est"][i] == 99.0, (i, e["est"][:5])
        assert e["lo"][i] == 50.0 and e["hi"][i] >= 99.0 * 1.9


def test_fixed_period_aliasing_and_round_period(tmp_path):
    """A fixed period whose samples all come from one instruction: every
    window flagged ALIASED; the same samples marked as random periods are
    not; a fixed round period (1000) is flagged ROUND_PERIOD, a prime (997)
    is not."""
    rng = np.random.default_rng(5)
    n = 4000
    time = np.arange(n, dtype=np.uint64) * 100 + 1
    addr = BASE + rng.integers(0, 40, n).astype(np.uint64) * 4096
    one_ip = np.full(n, 0x401000, np.uint64)
    many_ip = 0x401000 + rng.integers(0, 30, n).astype(np.uint64) * 4
    cases = [("fixed-one", 997, 0, one_ip, EST_ALIASED, True),
             ("random-one", 997, 1, one_ip, EST_ALIASED, False),
             ("fixed-many", 997, 0, many_ip, EST_ALIASED, False),
             ("round", 1000, 0, many_ip, EST_ROUND_PERIOD, True),
             ("prime", 997, 0, many_ip, EST_ROUND_PERIOD, False)]
    for name, period, random_period, ip, bit, want in cases:
        path = write_trace(tmp_path / (name + ".mtrace"), time, addr, ip=ip, sample_period=period,
                           meta={"random_period": random_period})
        f = report(path)["flags"]
        assert f.size == 4, name
        assert all(((x & bit) != 0) == want for x in f), (name, f)


def test_tail_instruction(tmp_path):
    """One instruction in ten finds a new page at every sample (over the
    whole run: 300 buckets, all singletons), the others cycle over 20 hot
    pages: every window takes 10 % of its samples from a tail instruction
    (> 5 %) and is flagged TAIL_INSNS; without it, none is."""
    n = 3000
    i = np.arange(n)
    time = (i * 100 + 1).astype(np.uint64)
    tail = i % 10 == 0
    page = np.where(tail, 1000 + i, i % 20).astype(np.uint64)
    ip = np.where(tail, 0x402000, 0x401000 + (i % 8) * 4).astype(np.uint64)
    f = report(write_trace(tmp_path / "t.mtrace", time, BASE + page * 4096, ip=ip, sample_period=100,
                           meta={"random_period": 1}))["flags"]
    assert f.size == 3 and all(x & EST_TAIL_INSNS for x in f), f
    keep = ~tail
    f = report(write_trace(tmp_path / "h.mtrace", time[keep], BASE + page[keep] * 4096, ip=ip[keep],
                           sample_period=100, meta={"random_period": 1}))["flags"]
    assert f.size == 3 and not any(x & EST_TAIL_INSNS for x in f), f
