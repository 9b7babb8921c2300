"""Binning of samples: compacted address axis, time bins, 2-D counts.

The address space of a process is sparse (binary and heap near 0x400000 or
0x55..., mappings and stack near 0x7f...).  The compacted axis keeps only the
occupied address ranges: occupied granules (64 KiB or the bucket, whichever
is larger) separated by more than `gap` bytes start a new range.  Within a
range addresses are linear at one bucket size for the whole figure; ranges
are stacked with their gaps cut out (and marked on the plot).  Every sample
falls into exactly one row by construction.
"""

import numpy as np

_U64 = np.uint64
GRANULE_SHIFT = 16


def log2_exact(n, what="bucket size"):
    if n <= 0 or n & (n - 1):
        raise ValueError("%s must be a power of two, not %d" % (what, n))
    return n.bit_length() - 1


def _unique_runs(g):
    """np.unique of g after collapsing runs of equal values (cheap on traces,
    whose consecutive samples often share a granule)."""
    if g.size > 1:
        keep = np.empty(g.size, dtype=bool)
        keep[0] = True
        np.not_equal(g[1:], g[:-1], out=keep[1:])
        g = g[keep]
    return np.unique(g)


BLOCK_BITS = 12        # granules per block: 4096 (256 MiB of 64 KiB granules)


def occupied_granules(addr, shift):
    """Sorted unique values of addr >> shift, exact.

    Two levels, no sort over all samples: the distinct blocks of 4096
    granules (few: a process touches a handful of areas) come from a unique
    over collapsed runs; within them np.bincount marks the occupied granules.
    Falls back to a plain unique when there are many blocks."""
    if addr.size == 0:
        return np.zeros(0, dtype=_U64)
    hi = addr >> _U64(shift + BLOCK_BITS)
    blocks = _unique_runs(hi)
    if blocks.size > 24:
        return _unique_runs(addr >> _U64(shift))
    if blocks.size == 1:
        r = np.zeros(addr.shape, dtype=np.int64)
    else:
        r = np.searchsorted(blocks, hi).astype(np.int64)
    del hi
    r <<= BLOCK_BITS
    r += ((addr >> _U64(shift)) & _U64((1 << BLOCK_BITS) - 1)).astype(np.int64)
    k = np.nonzero(np.bincount(r, minlength=blocks.size << BLOCK_BITS))[0].astype(_U64)
    return (blocks[k >> _U64(BLOCK_BITS)] << _U64(BLOCK_BITS)) | (k & _U64((1 << BLOCK_BITS) - 1))


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

    def rows(self, addr, check=True):
        """Row of every address (addresses outside every range: -1).
        check=False skips the outside test for addresses the axis was built
        from (inside by construction)."""
        if not self.ranges:
            return np.full(addr.shape, -1, dtype=np.int64)
        sh = _U64(self.shift)
        if len(self.ranges) <= 24:
            # a few compares per sample beat a binary search here
            r = np.zeros(addr.shape, dtype=np.int8)
            for lo in self._lo[1:]:
                r += addr >= lo
        else:
            r = np.searchsorted(self._lo, addr, side="right").astype(np.int64) - 1
            np.maximum(r, 0, out=r)
        # row = bucket - first bucket of the range + first row of the range
        off = self.row0[:-1] - (self._lo >> sh).astype(np.int64)
        row = (addr >> sh).astype(np.int64)
        row += np.take(off, r)
        if check:
            bad = (addr < self._lo[0]) | (row >= np.take(self.row0[1:], r))
            if bad.any():
                row[bad] = -1
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
    if clip is not None:
        # A zoomed view: the axis covers exactly the requested range.
        lo, hi = clip
        cand = [(lo, hi)]
    else:
        g = occupied_granules(addr, gshift)
        gap = max(1 << 20, 64 << req) if gap is None else gap
        gap_g = max(1, gap >> gshift)
        cut = np.nonzero(np.diff(g) > _U64(gap_g))[0]
        starts = np.concatenate([[0], cut + 1])
        ends = np.concatenate([cut, [g.size - 1]])
        cand = [(int(g[a]) << gshift, (int(g[b]) + 1) << gshift) for a, b in zip(starts, ends)]
        if cand and cand[-1][1] > 1 << 64:  # top granule of the address space
            cand[-1] = (cand[-1][0], 1 << 64)
    shift = req
    while True:
        ranges = _align(cand, shift)
        if sum((hi - lo) >> shift for lo, hi in ranges) <= max_rows or shift >= 63:
            break
        shift += 1
    return AddressAxis(ranges, shift, req)


def _align(cand, shift):
    b = 1 << shift
    out = []
    for lo, hi in cand:
        lo = lo // b * b
        hi = min(-(-hi // b) * b, 1 << 64)
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def time_bins(time, t0, t1, ncols):
    """Column of every sample for ncols equal bins over [t0, t1]; samples
    outside get -1.  Integer arithmetic where it cannot overflow (exact)."""
    span = max(int(t1) - int(t0), 1)
    t = time.astype(np.int64) - np.int64(t0) if t0 < 1 << 62 else (time - _U64(t0)).astype(np.int64)
    if span * ncols < 1 << 62:
        col = (t * np.int64(ncols)) // np.int64(span)
    else:
        col = np.floor(t.astype(np.float64) * (ncols / span)).astype(np.int64)
    col = np.where(t == span, ncols - 1, col)     # t == t1 goes into the last bin
    col[(t < 0) | (t > span) | (col >= ncols)] = -1
    return col


def count2d(rows, cols, nrows, ncols):
    """Accesses per (row, col) with np.bincount; entries with -1 are dropped."""
    ok = (rows >= 0) & (cols >= 0)
    if not ok.all():
        rows, cols = rows[ok], cols[ok]
    flat = rows * ncols + cols
    return np.bincount(flat, minlength=nrows * ncols).reshape(nrows, ncols)
