"""ctypes binding of include/memtrace/compare.h: two traces' reports and
their rows per region label and per span label (record --mark), matched and
compared by the library (memtrace_compare_compute), as plain Python data."""

import ctypes as C
import math
import os

from .lib import ERRLEN, Report, _errbuf, _raise, cstruct, fn, report_config, report_dict, s


@cstruct("memtrace_compare_row")
class CompareRow(C.Structure):
    _fields_ = [("key", C.c_char_p), ("samples", C.c_uint64 * 2), ("volume", C.c_double * 2),
                ("touched", C.c_uint64 * 2), ("volume_change", C.c_double), ("touched_change", C.c_double),
                ("spans", C.c_uint64 * 2), ("time", C.c_uint64 * 2), ("avg_touched", C.c_double * 2),
                ("max_touched", C.c_uint64 * 2), ("avg_touched_change", C.c_double)]


@cstruct("memtrace_compare")
class Compare(C.Structure):
    _fields_ = [("bucket", C.c_uint64), ("scale", C.c_double),
                ("a", C.POINTER(Report)), ("b", C.POINTER(Report)),
                ("nregions", C.c_size_t), ("regions", C.POINTER(CompareRow)), ("regions_total", CompareRow),
                ("nspans", C.c_size_t), ("spans", C.POINTER(CompareRow)), ("spans_total", CompareRow)]


def _fns():
    comp, free = fn("memtrace_compare_compute"), fn("memtrace_compare_free")
    comp.restype = C.POINTER(Compare)
    comp.argtypes = [C.c_char_p, C.c_char_p, C.c_void_p, C.c_void_p, C.c_char_p, C.c_size_t]
    free.restype, free.argtypes = None, [C.POINTER(Compare)]
    return comp, free


def _change(x):
    return None if math.isnan(x) else x     # None: only B has it ("new")


def row_dict(x, span=False):
    """One struct memtrace_compare_row: a_/b_ fields, changes in percent."""
    out = {"key": s(x.key), "volume_change": _change(x.volume_change),
           "touched_change": _change(x.touched_change)}
    for i, p in enumerate("ab"):
        out[p + "_samples"], out[p + "_volume"], out[p + "_touched"] = x.samples[i], x.volume[i], x.touched[i]
        if span:
            out[p + "_spans"], out[p + "_time"] = x.spans[i], x.time[i]
            out[p + "_avg_touched"], out[p + "_max_touched"] = x.avg_touched[i], x.max_touched[i]
    if span:
        out["avg_touched_change"] = _change(x.avg_touched_change)
    return out


def compare(path_a, path_b, bucket=0, sel_a=None, sel_b=None, top=1):
    """memtrace_compare_compute: {"bucket", "scale", "a", "b" (report dicts,
    with regions and span groups), "regions", "regions_total", "spans",
    "spans_total"}.  sel_b None: sel_a on both sides."""
    comp, free = _fns()
    ca = report_config(bucket=bucket, top=top, sel=sel_a)
    cb = report_config(bucket=bucket, top=top, sel=sel_b) if sel_b is not None else None
    err = _errbuf()
    cp = comp(os.fsencode(path_a), os.fsencode(path_b), C.addressof(ca), C.addressof(cb) if cb else None,
              err, ERRLEN)
    if not cp:
        _raise(err)
    try:
        c = cp.contents
        return {"bucket": c.bucket, "scale": c.scale,
                "a": report_dict(c.a.contents), "b": report_dict(c.b.contents),
                "regions": [row_dict(c.regions[i]) for i in range(c.nregions)],
                "regions_total": row_dict(c.regions_total),
                "spans": [row_dict(c.spans[i], True) for i in range(c.nspans)],
                "spans_total": row_dict(c.spans_total, True)}
    finally:
        free(cp)


__all__ = ["compare", "row_dict"]
