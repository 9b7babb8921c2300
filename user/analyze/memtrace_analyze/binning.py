"""Binning of samples: compacted address axis, time bins, 2-D counts.

The address space of a process is sparse (binary and heap near 0x400000 or
0x55..., mappings and stack near 0x7f...).  The compacted axis keeps only the
occupied address ranges: occupied granules (64 KiB or the bucket, whichever
is larger) separated by more than `gap` bytes start a new range.  Within a
range addresses are linear at one bucket size for the whole figure; ranges
are stacked with their gaps cut out (and marked on the plot).  Every sample
falls into exactly one row by construction.

Every per-sample step (distinct granules, rows, time bins, counts) runs in
libmemtrace (include/memtrace/heatmap.h) on the decoded columns; this file
builds the axis from the few occupied granules and holds what the figure
needs.
"""

import ctypes as C

import numpy as np

from . import lib

_U64 = np.uint64
GRANULE_SHIFT = 16


def log2_exact(n, what="bucket size"):
    if n <= 0 or n & (n - 1):
        raise ValueError("%s must be a power of two, not %d" % (what, n))
    return n.bit_length() - 1


def _u64(a):
    return np.ascontiguousarray(a, dtype=np.uint64)


def _p(a, ctype):
    return a.ctypes.data_as(C.POINTER(ctype))


def occupied_granules(addr, shift):
    """Sorted unique values of addr >> shift, exact (memtrace_bin_granules:
    a hash set that runs of equal granules pass with one compare)."""
    addr = _u64(addr)
    out = np.empty(max(addr.size, 1), dtype=_U64)
    k = lib.fn("memtrace_bin_granules")(_p(addr, C.c_uint64), addr.size, int(shift), _p(out, C.c_uint64))
    return out[:k].copy()


class AddressAxis:
    """ranges: list of [lo, hi) byte ranges, aligned to the bucket; shift:
    log2 of the bucket size; row0: first row of each range."""

    def __init__(self, ranges, shift, requested_shift=None):
        self.ranges = ranges
        self.shift = shift
        self.requested_shift = shift if requested_shift is None else requested_shift
        rows = [(hi - lo) >> shift for lo, hi in ranges]
        self.row0 = np.concatenate([[0], np.cumsum(rows)]).astype(np.int64) if ranges else np.zeros(1, np.int64)
        self.nrows = int(self.row0[-1])
        self._lo = np.array([lo for lo, _ in ranges], dtype=_U64)

    @property
    def bucket(self):
        return 1 << self.shift

    def cstruct(self):
        """struct memtrace_bin_axis over this axis (keeps the arrays alive)."""
        self._keep = (_u64(self._lo), np.ascontiguousarray(self.row0, dtype=np.int64))
        return lib.BinAxis(_p(self._keep[0], C.c_uint64), _p(self._keep[1], C.c_int64), len(self.ranges),
                           self.shift)

    def rows(self, addr, check=True):
        """Row of every address (addresses outside every range: -1).
        check=False skips the outside test for addresses the axis was built
        from (inside by construction)."""
        addr = _u64(addr)
        row = np.empty(addr.shape, dtype=np.int64)
        ax = self.cstruct()
        lib.fn("memtrace_bin_rows")(C.byref(ax), _p(addr, C.c_uint64), addr.size, int(bool(check)),
                                    _p(row, C.c_int64))
        return row

    def addr_of_row(self, row):
        i = int(np.searchsorted(self.row0, row, side="right")) - 1
        return self.ranges[i][0] + ((row - int(self.row0[i])) << self.shift)


def build_axis(addr, bucket=4096, max_rows=1024, gap=None, clip=None):
    """Compacted address axis for the addresses given.

    bucket: requested bucket size (bytes, power of two); coarsened by powers
    of two until the occupied ranges fit max_rows rows.  gap: smallest
    unoccupied stretch that is cut out (default max(1 MiB, 64 buckets)).
    clip: optional (lo, hi) byte range the axis must stay within.
    """
    req = log2_exact(int(bucket))
    if addr.size == 0:
        return AddressAxis([], req, req)
    gshift = max(GRANULE_SHIFT, req)
    # candidate ranges as [lo, hi] with an inclusive hi (the top of the
    # address space, 2^64 - 1, fits in a uint64)
    if clip is not None:
        # A zoomed view: the axis covers exactly the requested range.
        lo, hi = clip
        cand_lo, cand_hi = np.array([lo], dtype=_U64), np.array([hi - 1], dtype=_U64)
    else:
        g = occupied_granules(addr, gshift)
        gap = max(1 << 20, 64 << req) if gap is None else gap
        gap_g = max(1, gap >> gshift)
        cut = np.nonzero(np.diff(g) > _U64(gap_g))[0]
        cand_lo = g[np.concatenate([[0], cut + 1])] << _U64(gshift)
        cand_hi = (g[np.concatenate([cut, [g.size - 1]])] << _U64(gshift)) | _U64((1 << gshift) - 1)
    # the smallest shift >= req whose aligned ranges fit max_rows rows (or
    # 63): the rows never grow with the shift (each bucket of 2b holds the
    # buckets of b it was made of), so a binary search finds it in ~6 passes
    # over the ranges where a walk up from req took up to 40 (30 000 ranges:
    # 0.4 s); each pass is array arithmetic (30 000 ranges in Python: 25 ms)
    def fits(shift):
        lo, hi = _align(cand_lo, cand_hi, shift)
        rows = np.minimum((hi - lo) >> _U64(shift), _U64(max_rows)).astype(np.int64) + 1
        return int(rows.sum()) <= max_rows or shift >= 63

    lo_s, hi_s = req, max(req, 63)
    while lo_s < hi_s:
        mid = (lo_s + hi_s) // 2
        if fits(mid):
            hi_s = mid
        else:
            lo_s = mid + 1
    lo, hi = _align(cand_lo, cand_hi, lo_s)
    return AddressAxis([(int(a), int(b) + 1) for a, b in zip(lo, hi)], lo_s, req)


def _align(cand_lo, cand_hi, shift):
    """The ranges [lo, hi] (inclusive hi, sorted, disjoint) widened to
    whole buckets of 1 << shift, those that then touch or overlap merged:
    (lo, hi) arrays, inclusive hi."""
    m = _U64((1 << shift) - 1)
    lo, hi = cand_lo & ~m, cand_hi | m
    if lo.size == 0:
        return lo, hi
    # a range starts a new one unless it begins at or before the bucket
    # after the previous one's end (lo - 1 <= previous hi; lo = 0 never starts one)
    new = np.concatenate([[True], (lo[1:] > 0) & (lo[1:] - _U64(1) > hi[:-1])])
    first = np.nonzero(new)[0]
    return lo[first], np.maximum.reduceat(hi, first)


def time_bins(time, t0, t1, ncols):
    """Column of every sample for ncols equal bins over [t0, t1]; samples
    outside get -1.  Exact integer arithmetic (memtrace_bin_times)."""
    time = _u64(time)
    col = np.empty(time.shape, dtype=np.int64)
    lib.fn("memtrace_bin_times")(_p(time, C.c_uint64), time.size, int(t0), int(t1), int(ncols), _p(col, C.c_int64))
    return col


def count2d(rows, cols, nrows, ncols):
    """Samples per (row, col); entries with -1 are dropped."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    counts = np.zeros(nrows * ncols, dtype=np.int64)
    lib.fn("memtrace_bin_count2d")(_p(rows, C.c_int64), _p(cols, C.c_int64), rows.size, nrows, ncols,
                                   _p(counts, C.c_int64))
    return counts.reshape(nrows, ncols)


def heatmap_counts(axis, addr, time, t0, t1, ncols, check=True):
    """count2d(axis.rows(addr, check), time_bins(time, t0, t1, ncols)) in one
    pass without the row and column arrays (memtrace_bin_heatmap)."""
    addr, time = _u64(addr), _u64(time)
    counts = np.zeros(axis.nrows * ncols, dtype=np.int64)
    if axis.ranges and ncols:
        ax = axis.cstruct()
        lib.fn("memtrace_bin_heatmap")(C.byref(ax), _p(addr, C.c_uint64), _p(time, C.c_uint64), addr.size,
                                       int(bool(check)), int(t0), int(t1), int(ncols), _p(counts, C.c_int64))
    return counts.reshape(axis.nrows, ncols)
