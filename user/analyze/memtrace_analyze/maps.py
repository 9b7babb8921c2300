"""Mappings from the MAPS chunks (text of /proc/PID/maps) and address lookup.

A trace may hold several snapshots (at start, after mmap/munmap).  They are
overlaid in time order: a later snapshot's mapping wins where two overlap, an
earlier mapping that nothing later covers is kept (memory that was unmapped
before the end of the recording is still labelled).
"""

import os

import numpy as np


class Mapping:
    __slots__ = ("start", "end", "perms", "offset", "name", "pid", "index")

    def __init__(self, start, end, perms="", offset=0, name="", pid=0):
        self.start, self.end, self.perms, self.offset = start, end, perms, offset
        self.name, self.pid, self.index = name, pid, -1

    @property
    def size(self):
        return self.end - self.start

    @property
    def short(self):
        """Name for labels: basename of files, [heap]/[stack]/[anon:x] as is."""
        if not self.name:
            return "[anon]"
        name = self.name
        if name.endswith(" (deleted)"):
            name = name[:-len(" (deleted)")]
        if name.startswith("/memfd:"):
            return name[1:]                  # memfd:orders.o_totalprice
        if name.startswith("/"):
            return os.path.basename(name)
        return name

    @property
    def label(self):
        return "%s %s" % (self.short, self.perms) if self.perms else self.short

    def __repr__(self):
        return "Mapping(%#x-%#x %s %s)" % (self.start, self.end, self.perms, self.name)


def parse_maps_text(text):
    out = []
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 5 or "-" not in parts[0]:
            continue
        try:
            lo, hi = (int(x, 16) for x in parts[0].split("-", 1))
            off = int(parts[2], 16)
        except ValueError:
            continue
        name = parts[5].strip() if len(parts) > 5 else ""
        if hi > lo:
            out.append(Mapping(lo, hi, parts[1], off, name))
    return out


class MapSet:
    """Non-overlapping, address-sorted mappings with vectorised lookup."""

    def __init__(self):
        self.maps = []
        self._starts = None

    def add_snapshot(self, mappings, time=0, pid=0):
        for m in mappings:
            m.pid = pid
        keep = []
        new = sorted(mappings, key=lambda m: m.start)
        starts = [m.start for m in new]
        import bisect
        for old in self.maps:
            i = bisect.bisect_right(starts, old.start) - 1
            overl = False
            for j in (i, i + 1):
                if 0 <= j < len(new) and new[j].start < old.end and old.start < new[j].end:
                    overl = True
            if not overl:
                keep.append(old)
        self.maps = sorted(keep + new, key=lambda m: m.start)
        for i, m in enumerate(self.maps):
            m.index = i
        self._starts = None

    def __len__(self):
        return len(self.maps)

    def _arrays(self):
        if self._starts is None:
            self._starts = np.array([m.start for m in self.maps], dtype=np.uint64)
            self._ends = np.array([m.end for m in self.maps], dtype=np.uint64)
        return self._starts, self._ends

    def lookup(self, addr):
        """Index into self.maps for every address, -1 where unmapped."""
        addr = np.asarray(addr, dtype=np.uint64)
        if not self.maps:
            return np.full(addr.shape, -1, dtype=np.int64)
        starts, ends = self._arrays()
        i = np.searchsorted(starts, addr, side="right").astype(np.int64) - 1
        ok = i >= 0
        ic = np.where(ok, i, 0)
        ok &= addr < ends[ic]
        return np.where(ok, i, -1)

    def find(self, addr):
        i = int(self.lookup(np.array([addr], dtype=np.uint64))[0])
        return self.maps[i] if i >= 0 else None

    def overlapping(self, lo, hi):
        return [m for m in self.maps if m.start < hi and lo < m.end]

    def matching(self, name):
        """Mappings whose name (full or short) contains name."""
        return [m for m in self.maps if name in m.name or name == m.short]


def region_keys(maps):
    """Stable keys for matching regions across two traces (addresses differ
    between runs under ASLR): label plus ordinal among equal labels, counted
    in address order."""
    seen = {}
    keys = []
    for m in maps:
        k = m.label
        n = seen.get(k, 0)
        seen[k] = n + 1
        keys.append(k if n == 0 else "%s #%d" % (k, n + 1))
    return keys
