"""Data symbols of the traced executable (nm), best effort.

Only for non-PIE executables (ELF type ET_EXEC), whose symbols sit at their
run-time addresses: the binary named in the MAPS chunk, or for traces
without MAPS the one after '--' on the recording's command line.  Other
mappings (heap, mmap, PIE, libraries) get no names.
"""

import shutil
import subprocess

import numpy as np


def elf_type(path):
    try:
        with open(path, "rb") as f:
            h = f.read(18)
    except OSError:
        return None
    if len(h) < 18 or h[:4] != b"\x7fELF":
        return None
    return int.from_bytes(h[16:18], "little")


def executable_of(tr):
    for m in tr.maps.maps:
        if m.name.startswith("/") and elf_type(m.name) == 2:
            return m.name
    words = tr.header.get("command", "").split()
    if "--" in words and words.index("--") + 1 < len(words):
        path = words[words.index("--") + 1]
        if elf_type(path) == 2:
            return path
    return None


class DataSymbols:
    def __init__(self, tr):
        self.addr = np.zeros(0, dtype=np.uint64)
        self.size = []
        self.names = []
        path = executable_of(tr)
        nm = shutil.which("nm")
        if not path or not nm:
            return
        try:
            r = subprocess.run([nm, "-n", "-S", "--defined-only", path], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            return
        a, sz, names = [], [], []
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "bBdDrRgGsSvV":
                try:
                    a.append(int(parts[0], 16))
                    sz.append(int(parts[1], 16))
                    names.append(parts[3])
                except ValueError:
                    continue
        self.addr = np.array(a, dtype=np.uint64)
        self.size = sz
        self.names = names

    def hottest(self, addrs):
        """The symbol that most of these addresses fall into, with its share
        ('' when none is known)."""
        if not self.names or addrs.size == 0:
            return ""
        i = np.searchsorted(self.addr, addrs, side="right").astype(np.int64) - 1
        ok = i >= 0
        ends = np.array([int(a) + max(z, 1) for a, z in zip(self.addr.tolist(), self.size)], dtype=np.uint64)
        ok &= addrs < ends[np.maximum(i, 0)]
        if not ok.any():
            return ""
        v, c = np.unique(i[ok], return_counts=True)
        j = int(np.argmax(c))
        share = c[j] / addrs.size
        if share < 0.2:
            return ""
        return self.names[int(v[j])] + ("" if share > 0.995 else " %.0f%%" % (100 * share))

    def lookup(self, lo, hi):
        """Names of the data objects overlapping [lo, hi), largest first (max 2)."""
        if not self.names:
            return ""
        i = int(np.searchsorted(self.addr, np.uint64(hi), side="left"))
        found = []
        j = i - 1
        while j >= 0 and len(found) < 50:
            s, z = int(self.addr[j]), self.size[j]
            if s + max(z, 1) > lo and s < hi:
                found.append((z, self.names[j]))
            if s + 4096 * 64 < lo:
                break
            j -= 1
        found.sort(reverse=True)
        return ", ".join(n for _, n in found[:2])
