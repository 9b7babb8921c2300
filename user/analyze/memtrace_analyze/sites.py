"""Allocation sites (include/memtrace/sites.h) through ctypes: each sample
charged to the allocation live at its address and time, grouped by the
site that allocated it.  Needs a trace recorded with `record --allocs`.

    s = sites("a.mtrace")
    s["sites"][0]["name"], s["sites"][0]["samples"]
    s["blocks"]["key_start"], ...   # numpy arrays, for heatmap bands
"""

import ctypes as C
import os

import numpy as np

from . import lib


@lib.cstruct("memtrace_site")
class Site(C.Structure):
    _fields_ = [("name", C.c_char_p), ("function", C.c_char_p), ("file", C.c_char_p),
                ("line", C.c_uint), ("blocks", C.c_uint64), ("est_blocks", C.c_double),
                ("bytes", C.c_double), ("live", C.c_uint64), ("live_bytes", C.c_double),
                ("freed", C.c_uint64), ("mean_lifetime", C.c_double), ("samples", C.c_uint64),
                ("buckets", C.c_uint64), ("hot_share", C.c_double)]


@lib.cstruct("memtrace_site_block")
class SiteBlock(C.Structure):
    _fields_ = [("key_start", C.c_uint64), ("key_end", C.c_uint64), ("t0", C.c_uint64),
                ("t1", C.c_uint64), ("pid", C.c_uint32), ("site", C.c_uint32)]


@lib.cstruct("memtrace_sites")
class Sites(C.Structure):
    _fields_ = [("n", C.c_size_t), ("sites", C.POINTER(Site)), ("samples", C.c_uint64),
                ("attributed", C.c_uint64), ("events", C.c_uint64), ("sample_bytes", C.c_uint64),
                ("large_bytes", C.c_uint64), ("bucket", C.c_uint64), ("nblocks", C.c_size_t),
                ("blocks", C.POINTER(SiteBlock))]


SITE_FIELDS = [f for f, _ in Site._fields_]
BLOCK_FIELDS = [f for f, _ in SiteBlock._fields_]


def _fns():
    compute = lib.fn("memtrace_sites_compute")
    compute.restype = C.POINTER(Sites)
    compute.argtypes = [C.c_char_p, C.POINTER(lib.ReportConfig), C.c_char_p, C.c_size_t]
    free = lib.fn("memtrace_sites_free")
    free.restype, free.argtypes = None, [C.POINTER(Sites)]
    return compute, free


def sites(path, bucket=0, sel=None, root=None, debug_dir=None):
    """memtrace_sites_compute as plain data: {"sites": [dict], "blocks": {field:
    numpy array}, "samples", "attributed", "events", "sample_bytes",
    "large_bytes", "bucket"}; raises lib.MemtraceError (a trace without
    allocation records among others)."""
    compute, free = _fns()
    cfg = lib.ReportConfig(bucket=bucket, root=root.encode() if root else None,
                           debug_dir=debug_dir.encode() if debug_dir else None)
    if sel is not None:
        cfg.filter = sel.cstruct()
    err = C.create_string_buffer(lib.ERRLEN)
    sp = compute(os.fsencode(path), C.byref(cfg), err, lib.ERRLEN)
    if not sp:
        lib._raise(err, path)
    try:
        r = sp.contents
        out = {k: getattr(r, k) for k in ("samples", "attributed", "events", "sample_bytes",
                                          "large_bytes", "bucket")}
        out["sites"] = []
        for i in range(r.n):
            x = r.sites[i]
            d = {k: getattr(x, k) for k in SITE_FIELDS}
            for k in ("name", "function", "file"):
                d[k] = lib.s(d[k])
            out["sites"].append(d)
        if r.nblocks:
            raw = np.ctypeslib.as_array(C.cast(r.blocks, C.POINTER(C.c_uint64)),
                                        (r.nblocks * C.sizeof(SiteBlock) // 8,)).copy()
            raw = raw.reshape(r.nblocks, C.sizeof(SiteBlock) // 8)
            blocks = {"key_start": raw[:, 0], "key_end": raw[:, 1], "t0": raw[:, 2], "t1": raw[:, 3],
                      "pid": (raw[:, 4] & 0xFFFFFFFF).astype(np.uint32),
                      "site": (raw[:, 4] >> 32).astype(np.uint32)}
        else:
            blocks = {k: np.zeros(0, np.uint64) for k in BLOCK_FIELDS}
        out["blocks"] = blocks
        return out
    finally:
        free(sp)


@lib.cstruct("memtrace_alloc")
class Alloc(C.Structure):
    _fields_ = [("time", C.c_uint64), ("addr", C.c_uint64), ("size", C.c_uint64), ("old_addr", C.c_uint64),
                ("caller", C.c_uint64), ("weight", C.c_double), ("pid", C.c_uint32), ("tid", C.c_uint32),
                ("kind", C.c_uint32)]


KINDS = {"alloc": 0, "free": 1, "realloc": 2, "mmap": 3, "munmap": 4, "mremap": 5}


def write_allocs(writer, records):
    """One ALLOCS chunk through memtrace_writer_allocs: records are dicts with
    time, kind ("alloc", "free", ...), addr, size and optionally old_addr,
    caller, weight (1), pid, tid; writer is a lib.Writer."""
    f = lib.fn("memtrace_writer_allocs")
    f.restype = C.c_int
    f.argtypes = [C.c_void_p, C.POINTER(Alloc), C.c_size_t, C.c_char_p, C.c_size_t]
    arr = (Alloc * max(len(records), 1))()
    for i, r in enumerate(records):
        arr[i] = Alloc(time=r["time"], addr=r.get("addr", 0), size=r.get("size", 0),
                       old_addr=r.get("old_addr", 0), caller=r.get("caller", 0), weight=r.get("weight", 1.0),
                       pid=r.get("pid", 0), tid=r.get("tid", r.get("pid", 0)), kind=KINDS[r["kind"]])
    err = C.create_string_buffer(lib.ERRLEN)
    if f(writer._h, arr, len(records), err, lib.ERRLEN) != 0:
        lib._raise(err, "memtrace_writer_allocs")
