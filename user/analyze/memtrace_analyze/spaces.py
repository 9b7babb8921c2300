"""Which address axis a figure of several processes draws.

The library keys every sample by address space (include/memtrace/resolve.h):
the primary process (the target, or --pid) at its addresses, every other
one tagged in bits 48..62, a shared page once.  Heatmaps and hot's
by-address panel lay those keys out side by side, one process after
another, which reads well for a few processes and not for thousands (a
PostgreSQL server forking a backend per connection): 3000 processes of 3
ranges each do not fit 1024 rows, the bucket grows until the ranges merge,
and at 1 PiB a bucket spans hundreds of processes.

So, without --pid:
  - "addr":    one process (or --pid): addresses as it sees them;
  - "keys":    up to OVERLAY_PROCESSES processes, with MAPS: side by side;
  - "overlay": more, or a trace without MAPS (its keys' tags would be the
               only names): every process at its own addresses, on one
               axis, counts added; the figure says so (note()).
"""

import re

import numpy as np

from . import lib
from .select import SPACE_SHIFT

OVERLAY_PROCESSES = 64
ADDR_MASK = np.uint64((1 << SPACE_SHIFT) - 1)
KERNEL_BIT = np.uint64(1 << 63)
PID_PREFIX = re.compile(r"^pid \d+ ")   # how the key layout names another process's ranges


def mode(has_maps, nprocs, pid=None, primary=True):
    """'addr', 'keys' or 'overlay' for a selection of nprocs processes;
    primary: the one process (nprocs 1) is the primary, whose keys are its
    addresses (another one's carry its tag: keys, or overlay without MAPS)."""
    if pid or (nprocs <= 1 and primary):
        return "addr"
    if has_maps and nprocs <= OVERLAY_PROCESSES:
        return "keys"
    return "overlay"


def key_spaces(keys):
    """(how many address spaces the keys hold, whether the primary's is the
    only one); kernel addresses not counted."""
    k = np.asarray(keys, dtype=np.uint64)
    spaces = np.unique(k[(k & KERNEL_BIT) == 0] >> np.uint64(SPACE_SHIFT))
    return int(spaces.size), bool(spaces.size <= 1 and not spaces.any())


def overlay_addresses(keys):
    """Keys as addresses in their process (tags dropped; kernel addresses
    as they are)."""
    k = np.asarray(keys, dtype=np.uint64)
    return np.where((k & KERNEL_BIT) != 0, k, k & ADDR_MASK)


def overlay_layout(key_layout):
    """The layout of every process on one axis: key ranges with their tags
    dropped and their names without the process ('pid 1234 [heap]' ->
    '[heap]'), sorted; where two overlap the lower start keeps its name (the
    rest of the later one goes on from the first one's end)."""
    mask = (1 << SPACE_SHIFT) - 1
    ranges = set()
    for s, e, name, perms in key_layout:
        a = s if s >> 63 else s & mask
        ranges.add((a, a + (e - s), PID_PREFIX.sub("", name), perms))
    ranges = sorted(ranges, key=lambda r: (r[0], -r[1]))
    out, end = [], 0
    for s, e, name, perms in ranges:
        s = max(s, end)
        if s < e:
            out.append((s, e, name, perms))
            end = e
    return out


def layout(tr, sel, m):
    """The layout naming the axis of mode m."""
    if not tr.info.maps:
        return []
    r = lib.Resolver(tr.path, labels=sel.labels)
    try:
        if m == "addr":
            return r.layout(sel.pid)
        keyed = r.layout(lib.LAYOUT_KEYS)
        return keyed if m == "keys" else overlay_layout(keyed)
    finally:
        r.close()


def note(m, nprocs):
    """What a figure of mode m says of its processes ('' for one)."""
    if m != "overlay" or nprocs <= 1:
        return ""
    return "%d processes overlaid, each at its own addresses (--pid for one)" % nprocs


def with_note(what, m, nprocs):
    """what (the selection, for a figure's title) and note(m, nprocs)."""
    n = note(m, nprocs)
    return "; ".join(x for x in (what, n) if x)
