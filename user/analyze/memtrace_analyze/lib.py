"""ctypes binding of libmemtrace (include/memtrace/trace.h, report.h,
resolve.h): every number memtrace-analyze shows comes from here.

The library is found at $MEMTRACE_LIB, else where `make install` put it
(install_paths.py, relative to this package), else <repo>/build/libmemtrace.so
relative to this package, else by ctypes.util.find_library('memtrace').
The structures below mirror the C headers field for field (@cstruct: each
one's size is checked against the library's memtrace_struct_size when both
are loaded); a failing call raises MemtraceError with the library's one-line
reason.
"""

import ctypes as C
import ctypes.util
import os

import numpy as np

u8p = C.POINTER(C.c_ubyte)
u32p = C.POINTER(C.c_uint32)
u64p = C.POINTER(C.c_uint64)
ERRLEN = 512


class MemtraceError(Exception):
    """A one-line error from libmemtrace (bad trace, bad option value)."""


_lib = None
_STRUCTS = {}    # ctypes class -> the C struct it mirrors


def _check_size(handle, cls, name):
    n = handle.memtrace_struct_size(name.encode())
    if n != C.sizeof(cls):
        raise MemtraceError("%s does not match this memtrace-analyze: struct %s is %s there, %d bytes in "
                            "the binding (%s); build and install both from one tree"
                            % (handle._name, name, "%d bytes" % n if n else "unknown",
                               C.sizeof(cls), cls.__name__))


def cstruct(name):
    """Class decorator: the ctypes structure mirrors struct NAME of
    include/memtrace/*.h; its size is checked against the library's
    (memtrace_struct_size) when both are loaded, whichever comes last."""
    def mark(cls):
        if _lib is not None:
            _check_size(_lib, cls, name)
        _STRUCTS[cls] = name
        return cls
    return mark


# --- trace.h -----------------------------------------------------------------

COLUMNS = ("time", "addr", "pid", "tid", "cpu", "ip", "weight", "data_src")   # enum memtrace_column
COL_U32 = ("pid", "tid", "cpu", "weight")


@cstruct("memtrace_trace_info")
class TraceInfo(C.Structure):
    _fields_ = [("version_major", C.c_uint32), ("version_minor", C.c_uint32),
                ("time_is_ns", C.c_int), ("complete", C.c_int),
                ("truncated_bytes", C.c_uint64), ("samples", C.c_uint64), ("columns", C.c_uint32),
                ("start_time", C.c_uint64), ("end_time", C.c_uint64),
                ("first_time", C.c_uint64), ("last_time", C.c_uint64),
                ("chunks", C.c_uint64), ("maps", C.c_uint64), ("threads", C.c_uint64),
                ("lost", C.c_uint64), ("throttled", C.c_uint64), ("dropped", C.c_uint64),
                ("sample_period", C.c_uint64), ("bucket_default", C.c_uint64), ("target_pid", C.c_uint32)]


WORDS = ("sample_class", "measure", "sample", "samples", "count", "verb", "wss", "code_wss", "data_series",
         "code_series", "series_title", "hot", "curve", "activity")   # struct memtrace_words


@cstruct("memtrace_words")
class Words(C.Structure):
    _fields_ = [(k, C.c_char_p) for k in WORDS]


@cstruct("memtrace_filter")
class Filter(C.Structure):
    _fields_ = [("pid", C.c_uint32), ("tid", C.c_uint32),
                ("time_from", C.c_uint64), ("time_to", C.c_uint64),
                ("addr_lo", C.c_uint64), ("addr_hi", C.c_uint64),
                ("mapping", C.c_char_p), ("region", C.c_char_p)]


@cstruct("memtrace_columns")
class Columns(C.Structure):
    _fields_ = [("time", u64p), ("addr", u64p), ("ip", u64p), ("data_src", u64p),
                ("pid", u32p), ("tid", u32p), ("cpu", u32p), ("weight", u32p),
                ("cap", C.c_size_t)]


@cstruct("memtrace_chunk")
class Chunk(C.Structure):
    _fields_ = [("type", C.c_uint), ("count", C.c_uint32), ("offset", C.c_uint64),
                ("data", u8p), ("len", C.c_size_t)]


@cstruct("memtrace_thread")
class Thread(C.Structure):
    _fields_ = [("time", C.c_uint64), ("pid", C.c_uint32), ("tid", C.c_uint32), ("comm", C.c_char_p)]


@cstruct("memtrace_lost")
class Lost(C.Structure):
    _fields_ = [("time", C.c_uint64), ("cpu", C.c_uint32), ("lost", C.c_uint64), ("throttled", C.c_uint64)]


@cstruct("memtrace_window_row")
class WindowRow(C.Structure):
    _fields_ = [("window", C.c_uint64), ("interval", C.c_uint64), ("bucket_shift", C.c_uint32),
                ("time", C.c_uint64), ("wss_data", C.c_uint64), ("wss_code", C.c_uint64),
                ("samples", C.c_uint64), ("f1", C.c_uint64), ("f2", C.c_uint64), ("has_counts", C.c_int)]


@cstruct("memtrace_maps_snapshot")
class MapsSnapshot(C.Structure):
    _fields_ = [("time", C.c_uint64), ("pid", C.c_uint32), ("text", C.c_void_p), ("len", C.c_size_t)]


@cstruct("memtrace_damon_region")
class DamonRegion(C.Structure):    # struct memtrace_damon_region (trace.h)
    _fields_ = [("time", C.c_uint64), ("start", C.c_uint64), ("end", C.c_uint64),
                ("pid", C.c_uint32), ("nr_accesses", C.c_uint32), ("age", C.c_uint32)]


@cstruct("memtrace_pass")
class Pass(C.Structure):    # struct memtrace_pass (trace.h)
    _fields_ = [("time", C.c_uint64), ("pid", C.c_uint32), ("what", C.c_uint32)]


PASS_NUMA_SCAN, PASS_DAMON, PASS_ACCESSED_BIT, PASS_NUMA_SWEEP_START = 1, 2, 3, 4     # MEMTRACE_PASS_*


@cstruct("memtrace_gap")
class Gap(C.Structure):     # struct memtrace_gap (trace.h): record --pidfile had no target
    _fields_ = [("start", C.c_uint64), ("to", C.c_uint64), ("pid", C.c_uint32), ("what", C.c_uint32)]


GAP_NO_TARGET = 1     # MEMTRACE_GAP_NO_TARGET


@cstruct("memtrace_damon_wss_point")
class DamonWssPoint(C.Structure):  # struct memtrace_damon_wss_point (damon.h)
    _fields_ = [("time", C.c_uint64), ("wss_bytes", C.c_uint64), ("monitored_bytes", C.c_uint64),
                ("regions", C.c_uint32), ("accessed_regions", C.c_uint32)]


# --- report.h ----------------------------------------------------------------

REPORT_ALL_BUCKETS, REPORT_REGIONS, REPORT_FULL_CURVE = 1, 2, 4


@cstruct("memtrace_report_config")
class ReportConfig(C.Structure):
    _fields_ = [("bucket", C.c_uint64), ("window", C.c_uint64), ("interval", C.c_uint64),
                ("top", C.c_size_t), ("sensitivity", C.c_double), ("max_peaks", C.c_size_t),
                ("locations", C.c_size_t), ("functions", C.c_size_t), ("flags", C.c_uint),
                ("filter", Filter), ("root", C.c_char_p), ("debug_dir", C.c_char_p),
                ("labels", C.c_char_p), ("span", C.c_char_p),
                ("ncold", C.c_size_t), ("cold_thresholds", u64p), ("cold_step", C.c_uint64),
                ("mrc_warmup", C.c_uint64)]


@cstruct("memtrace_series")
class Series(C.Structure):
    _fields_ = [("n", C.c_size_t), ("time", u64p), ("wss", u64p), ("avg", C.c_double),
                ("peak", C.c_uint64), ("total", C.c_uint64)]


@cstruct("memtrace_named_count")
class NamedCount(C.Structure):
    _fields_ = [("addr", C.c_uint64), ("count", C.c_uint64), ("name", C.c_char_p),
                ("file", C.c_char_p), ("line", C.c_uint)]


@cstruct("memtrace_peak")
class Peak(C.Structure):
    _fields_ = [("index", C.c_size_t), ("first", C.c_size_t), ("last", C.c_size_t),
                ("time", C.c_uint64), ("value", C.c_uint64), ("nlocations", C.c_size_t),
                ("locations", C.POINTER(NamedCount)), ("top_mapping", C.c_char_p)]


@cstruct("memtrace_hot_bucket")
class HotBucket(C.Structure):
    _fields_ = [("addr", C.c_uint64), ("count", C.c_uint64), ("where", C.c_char_p), ("object", C.c_char_p),
                ("with_ip", C.c_uint64), ("nfunctions", C.c_size_t), ("functions", C.POINTER(NamedCount)),
                ("nips", C.c_size_t), ("ips", C.POINTER(NamedCount))]


@cstruct("memtrace_curve_point")
class CurvePoint(C.Structure):
    _fields_ = [("min_count", C.c_uint64), ("buckets", C.c_uint64), ("samples", C.c_uint64)]


@cstruct("memtrace_region")
class Region(C.Structure):
    _fields_ = [("label", C.c_char_p), ("name", C.c_char_p), ("start", C.c_uint64), ("end", C.c_uint64),
                ("samples", C.c_uint64), ("buckets", C.c_uint64)]


EST_FEW_SAMPLES, EST_MOSTLY_UNSEEN, EST_NOT_COUNTED = 1, 2, 4   # MEMTRACE_EST_* reasons
EST_ALIASED, EST_RUN_TAIL, EST_TAIL_INSNS, EST_ROUND_PERIOD = 8, 16, 32, 64
EST_NOT_REFINED = 128           # > 8 M samples: Chao1 alone, not calibrated
EST_MIN_SAMPLES = 200           # MEMTRACE_EST_MIN_SAMPLES: fewer in a window sets EST_FEW_SAMPLES


@cstruct("memtrace_estimate")
class Estimate(C.Structure):
    _fields_ = [("period", C.c_double), ("samples", u64p), ("f1", u64p), ("f2", u64p),
                ("est", C.POINTER(C.c_double)), ("lo", C.POINTER(C.c_double)), ("hi", C.POINTER(C.c_double)),
                ("flags", C.POINTER(C.c_uint)), ("unreliable", C.c_size_t),
                ("avg", C.c_double), ("avg_lo", C.c_double), ("avg_hi", C.c_double),
                ("peak", C.c_double), ("p95", C.c_double),
                ("total", C.c_double), ("total_lo", C.c_double), ("total_hi", C.c_double),
                ("total_flags", C.c_uint)]


@cstruct("memtrace_span_group")
class SpanGroup(C.Structure):
    _fields_ = [("label", C.c_char_p), ("spans", C.c_uint64), ("time", C.c_uint64), ("samples", C.c_uint64),
                ("buckets", C.c_uint64), ("avg_buckets", C.c_double), ("max_buckets", C.c_uint64)]


@cstruct("memtrace_span")
class Span(C.Structure):
    _fields_ = [("start", C.c_uint64), ("end", C.c_uint64), ("pid", C.c_uint32), ("tid", C.c_uint32),
                ("label", C.c_char_p), ("open", C.c_int)]


REPORT_BY_SPAN = 16     # MEMTRACE_REPORT_BY_SPAN
REPORT_NO_SOURCE = 32   # MEMTRACE_REPORT_NO_SOURCE: no file:line of instructions (no DWARF read)
REPORT_MRC = 64         # MEMTRACE_REPORT_MRC: the miss-ratio curve


@cstruct("memtrace_mrc_point")
class MrcPoint(C.Structure):    # struct memtrace_mrc_point (report.h)
    _fields_ = [("bytes", C.c_uint64), ("miss_ratio", C.c_double), ("lo", C.c_double), ("hi", C.c_double)]


@cstruct("memtrace_mrc")
class Mrc(C.Structure):         # struct memtrace_mrc (report.h)
    _fields_ = [("computed", C.c_int), ("exact", C.c_int), ("period", C.c_double), ("bucket", C.c_uint64),
                ("refs", C.c_uint64), ("cold", C.c_uint64), ("cold_ratio", C.c_double),
                ("footprint", C.c_uint64), ("n", C.c_size_t), ("points", C.POINTER(MrcPoint)),
                ("nknees", C.c_size_t), ("knees", C.POINTER(C.c_size_t)),
                ("nhits", C.c_size_t), ("hits", u64p)]


REPORT_COLD = 128       # MEMTRACE_REPORT_COLD: cold memory over time
REPORT_PER_PROCESS = 8   # MEMTRACE_REPORT_PER_PROCESS: per-process parts (here: cold per process)
COLD_METHODS = {0: "access", 1: "accessed-bits", 2: "hint-faults"}    # MEMTRACE_COLD_*


@cstruct("memtrace_cold_process")
class ColdProcess(C.Structure):     # struct memtrace_cold_process (report.h)
    _fields_ = [("pid", C.c_uint32), ("seen", u64p), ("cold", u64p)]


@cstruct("memtrace_cold")
class Cold(C.Structure):            # struct memtrace_cold (report.h)
    _fields_ = [("computed", C.c_int), ("method", C.c_int), ("period", C.c_double), ("bucket", C.c_uint64),
                ("step", C.c_uint64), ("nthresholds", C.c_size_t), ("thresholds", u64p),
                ("n", C.c_size_t), ("time", u64p), ("seen", u64p), ("cold", u64p),
                ("avg_share", C.POINTER(C.c_double)), ("false_cold", C.POINTER(C.c_double)),
                ("blind", C.POINTER(C.c_uint8)), ("blind_points", C.c_size_t), ("pass_age", u64p),
                ("reordered", C.c_uint64), ("nprocesses", C.c_size_t), ("processes", C.POINTER(ColdProcess))]


@cstruct("memtrace_blind")
class Blind(C.Structure):   # struct memtrace_blind (report.h)
    _fields_ = [("state", C.c_int), ("what", C.c_uint32), ("pass_", C.c_char_p), ("passes", C.c_uint64),
                ("lag", C.c_uint64), ("period", C.c_uint64), ("intervals", C.c_uint64),
                ("nruns", C.c_size_t), ("first", u64p), ("last", u64p)]


BLIND_STATES = {0: "none", 1: "unknown", 2: "known"}   # enum memtrace_blind_state


@cstruct("memtrace_report")
class Report(C.Structure):
    _fields_ = [("bucket", C.c_uint64), ("window", C.c_uint64), ("interval", C.c_uint64),
                ("bucket_shift", C.c_uint), ("time_is_ns", C.c_int), ("start_time", C.c_uint64),
                ("info", TraceInfo),
                ("samples", C.c_uint64), ("first_time", C.c_uint64), ("last_time", C.c_uint64),
                ("reordered", C.c_uint64), ("have_ip", C.c_int),
                ("data", Series), ("code", Series),
                ("npeaks", C.c_size_t), ("peaks_found", C.c_size_t), ("peaks", C.POINTER(Peak)),
                ("nhot_data", C.c_size_t), ("nhot_code", C.c_size_t),
                ("hot_data", C.POINTER(HotBucket)), ("hot_code", C.POINTER(HotBucket)),
                ("ncurve", C.c_size_t), ("curve", C.POINTER(CurvePoint)),
                ("nbuckets", C.c_size_t), ("bucket_addr", u64p), ("bucket_count", u64p),
                ("nregions", C.c_size_t), ("regions", C.POINTER(Region)),
                ("meta", C.c_char_p), ("end_meta", C.c_char_p),
                ("nprocesses", C.c_size_t), ("processes", C.c_void_p), ("shared_buckets", C.c_uint64),
                ("data_est", Estimate), ("code_est", Estimate),
                ("nspans", C.c_size_t), ("nspan_groups", C.c_size_t), ("span_groups", C.POINTER(SpanGroup)),
                ("span_samples", C.c_uint64), ("region_chunks", C.c_uint64),
                ("threads", C.c_uint64), ("have_tid", C.c_int),
                ("nspace_pids", C.c_size_t), ("space_pids", u32p),
                ("intervals", C.c_uint64), ("region", C.c_char_p), ("region_bytes", C.c_uint64),
                ("blind", Blind), ("data_blind", C.POINTER(C.c_uint8)), ("code_blind", C.POINTER(C.c_uint8)),
                ("mrc", Mrc), ("cold", Cold), ("gaps", C.c_uint64), ("gap_time", C.c_uint64),
                ("mrc_warmup", C.c_uint64)]


# --- resolve.h ---------------------------------------------------------------

@cstruct("memtrace_frame")
class Frame(C.Structure):
    _fields_ = [("function", C.c_char_p), ("file", C.c_char_p), ("line", C.c_uint)]


@cstruct("memtrace_location")
class Location(C.Structure):
    _fields_ = [("mapping", C.c_char_p), ("mapping_off", C.c_uint64), ("map_start", C.c_uint64),
                ("map_end", C.c_uint64), ("path", C.c_char_p), ("symbol", C.c_char_p),
                ("symbol_off", C.c_uint64), ("symbol_size", C.c_uint64), ("file", C.c_char_p),
                ("line", C.c_uint), ("ninlined", C.c_size_t), ("inlined", C.POINTER(Frame))]


@cstruct("memtrace_range")
class Range(C.Structure):
    _fields_ = [("start", C.c_uint64), ("end", C.c_uint64), ("name", C.c_char_p), ("perms", C.c_char_p),
                ("offset", C.c_uint64), ("path", C.c_char_p)]


UNMAPPED, MAPPING, SYMBOL = 0, 1, 2

# --- heatmap.h ---------------------------------------------------------------

i64p = C.POINTER(C.c_int64)


@cstruct("memtrace_bin_axis")
class BinAxis(C.Structure):
    _fields_ = [("lo", C.POINTER(C.c_uint64)), ("row0", i64p), ("nranges", C.c_size_t), ("shift", C.c_uint)]

# --- loading -----------------------------------------------------------------

_P = C.c_void_p
_E = (C.c_char_p, C.c_size_t)          # err, errlen
_PROTOS = {
    "memtrace_struct_size": (C.c_size_t, (C.c_char_p,)),
    "memtrace_trace_open": (_P, (C.c_char_p,) + _E),
    "memtrace_trace_close": (None, (_P,)),
    "memtrace_trace_meta": (C.c_char_p, (_P, C.c_char_p)),
    "memtrace_trace_end_meta": (C.c_char_p, (_P, C.c_char_p)),
    "memtrace_trace_info": (C.c_int, (_P, C.POINTER(TraceInfo)) + _E),
    "memtrace_trace_words": (C.POINTER(Words), (_P,)),
    "memtrace_trace_target_comm": (C.c_char_p, (_P,)),
    "memtrace_trace_read": (C.c_int, (_P, C.POINTER(Filter), C.POINTER(Columns), C.POINTER(C.c_size_t)) + _E),
    "memtrace_trace_threads": (C.c_long, (_P, C.POINTER(C.POINTER(Thread))) + _E),
    "memtrace_trace_lost": (C.c_long, (_P, C.POINTER(C.POINTER(Lost))) + _E),
    "memtrace_trace_windows": (C.c_long, (_P, C.POINTER(C.POINTER(WindowRow))) + _E),
    "memtrace_trace_maps": (C.c_long, (_P, C.POINTER(C.POINTER(MapsSnapshot))) + _E),
    "memtrace_trace_damon_regions": (C.c_long, (_P, C.POINTER(C.POINTER(DamonRegion))) + _E),
    "memtrace_damon_wss": (C.c_long, (C.POINTER(DamonRegion), C.c_size_t, C.c_uint32, C.c_uint32,
                                      C.POINTER(DamonWssPoint), C.c_size_t)),
    "memtrace_damon_heatmap": (C.c_int, (C.POINTER(DamonRegion), C.c_size_t, C.c_uint32, C.c_uint64, C.c_uint64,
                                         C.c_size_t, C.c_uint64, C.c_uint64, C.c_size_t,
                                         C.POINTER(C.c_double))),
    "memtrace_damon_hot": (C.c_long, (C.POINTER(DamonRegion), C.c_size_t, C.c_uint32, C.c_uint64,
                                      C.POINTER(DamonRegion), C.c_size_t)),
    "memtrace_writer_damon_regions": (C.c_int, (_P, C.POINTER(DamonRegion), C.c_size_t) + _E),
    "memtrace_trace_passes": (C.c_long, (_P, C.POINTER(C.POINTER(Pass))) + _E),
    "memtrace_writer_passes": (C.c_int, (_P, C.POINTER(Pass), C.c_size_t) + _E),
    "memtrace_writer_gaps": (C.c_int, (_P, C.POINTER(Gap), C.c_size_t) + _E),
    "memtrace_writer_open": (_P, (C.c_char_p, C.c_char_p) + _E),
    "memtrace_writer_samples": (C.c_int, (_P, C.POINTER(Columns), C.c_size_t) + _E),
    "memtrace_writer_maps": (C.c_int, (_P, C.c_uint64, C.c_uint32, C.c_char_p, C.c_size_t) + _E),
    "memtrace_writer_thread": (C.c_int, (_P, C.c_uint64, C.c_uint32, C.c_uint32, C.c_char_p) + _E),
    "memtrace_writer_close": (C.c_int, (_P, C.c_char_p) + _E),
    "memtrace_report_compute": (C.POINTER(Report), (C.c_char_p, C.POINTER(ReportConfig)) + _E),
    "memtrace_report_free": (None, (C.POINTER(Report),)),
    "memtrace_parse_duration": (C.c_int, (C.c_char_p, C.c_int, u64p)),
    "memtrace_parse_size": (C.c_int, (C.c_char_p, u64p)),
    "memtrace_resolver_open": (_P, (C.c_char_p, C.c_char_p, C.c_char_p) + _E),
    "memtrace_resolver_close": (None, (_P,)),
    "memtrace_resolve": (C.c_int, (_P, C.c_uint32, C.c_uint64, C.c_uint64, C.POINTER(Location))),
    "memtrace_describe": (C.c_int, (_P, C.c_uint32, C.c_uint64, C.c_uint64, C.c_char_p, C.c_size_t)),
    "memtrace_resolver_layout": (C.c_long, (_P, C.c_uint32, C.POINTER(C.POINTER(Range)))),
    "memtrace_resolver_keys": (None, (_P, C.c_size_t, u32p, u64p, u64p)),
    "memtrace_resolver_decode": (C.c_int, (_P, C.c_uint64, u32p, u64p, u32p)),
    "memtrace_bin_granules": (C.c_size_t, (u64p, C.c_size_t, C.c_uint, u64p)),
    "memtrace_bin_rows": (None, (C.POINTER(BinAxis), u64p, C.c_size_t, C.c_int, i64p)),
    "memtrace_bin_times": (None, (u64p, C.c_size_t, C.c_uint64, C.c_uint64, C.c_size_t, i64p)),
    "memtrace_bin_count2d": (None, (i64p, i64p, C.c_size_t, C.c_size_t, C.c_size_t, i64p)),
    "memtrace_bin_heatmap": (C.c_size_t, (C.POINTER(BinAxis), u64p, u64p, C.c_size_t, C.c_int, C.c_uint64,
                                          C.c_uint64, C.c_size_t, i64p)),
    "memtrace_resolver_labels": (C.c_int, (_P, C.c_char_p) + _E),
    "memtrace_trace_spans": (C.c_long, (_P, C.POINTER(C.POINTER(Span))) + _E),
    "memtrace_trace_labels": (C.c_int, (_P, C.c_char_p) + _E),
    "memtrace_report_region_line": (C.c_char_p, (_P, C.c_char_p, C.c_size_t)),
    "memtrace_mrc_miss": (C.c_double, (_P, C.c_uint64, C.POINTER(C.c_double), C.POINTER(C.c_double))),
    "memtrace_trace_span_mask": (C.c_long, (_P, C.c_char_p, C.c_size_t, u64p, u32p, C.POINTER(C.c_uint8)) + _E),
    "memtrace_writer_labels": (C.c_int, (_P, C.c_char_p, C.c_size_t) + _E),
    "memtrace_writer_span": (C.c_int, (_P, C.c_uint64, C.c_uint64, C.c_uint32, C.c_uint32, C.c_char_p,
                                       C.c_int) + _E),
}
LAYOUT_KEYS = 0xFFFFFFFF    # MEMTRACE_LAYOUT_KEYS: the layout in address-space key order


def library_path():
    env = os.environ.get("MEMTRACE_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.realpath(__file__))
    try:
        from . import install_paths    # written by make install only
        cand = os.path.normpath(os.path.join(here, install_paths.LIBRARY))
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    cand = os.path.normpath(os.path.join(here, "..", "..", "..", "build", "libmemtrace.so"))
    if os.path.exists(cand):
        return cand
    return ctypes.util.find_library("memtrace")


def lib():
    """The loaded library with prototypes set (functions it lacks are left
    out; calling one raises MemtraceError naming it)."""
    global _lib
    if _lib is None:
        path = library_path()
        if not path:
            raise MemtraceError("libmemtrace.so not found (build it with 'make lib' or set MEMTRACE_LIB)")
        try:
            handle = C.CDLL(path)
        except OSError as e:
            raise MemtraceError("cannot load %s: %s" % (path, e))
        for name, (res, args) in _PROTOS.items():
            try:
                f = getattr(handle, name)
            except AttributeError:
                continue
            f.restype, f.argtypes = res, list(args)
        try:
            handle.memtrace_struct_size
        except AttributeError:
            raise MemtraceError("%s lacks memtrace_struct_size: older than this memtrace-analyze "
                                "(build and install both from one tree)" % path)
        for cls, name in _STRUCTS.items():
            _check_size(handle, cls, name)
        _lib = handle
    return _lib


def fn(name):
    try:
        return getattr(lib(), name)
    except AttributeError:
        raise MemtraceError("%s lacks %s (rebuild it: make lib)" % (library_path(), name))


def _errbuf():
    return C.create_string_buffer(ERRLEN)


def _raise(err, what=""):
    msg = err.value.decode("utf-8", "replace").strip().splitlines()
    msg = msg[0] if msg else "failed"
    if what and msg.startswith(str(what) + ":"):   # the library named it already
        what = ""
    raise MemtraceError("%s%s" % (what + ": " if what else "", msg))


def s(b):
    """C string -> str (None stays None)."""
    return None if b is None else b.decode("utf-8", "replace")


def _ptr(a, ctype):
    return a.ctypes.data_as(C.POINTER(ctype)) if a is not None else None


# --- option values -----------------------------------------------------------

def parse_duration(text, time_is_ns):
    v = C.c_uint64()
    if fn("memtrace_parse_duration")(str(text).strip().encode(), int(bool(time_is_ns)), C.byref(v)) != 0:
        raise MemtraceError("bad duration %r (%s)" % (text, "examples: 250us, 10ms, 1.5s" if time_is_ns
                                                      else "instruction counts: 500k, 2M, 1G"))
    return v.value


def read_limit():
    """Bytes Trace.read may allocate: MEMTRACE_ANALYZE_MAX_MEM (a size: 4G,
    512M), else a quarter of MemAvailable (the verbs hold a few arrays of
    the samples), else 4 GiB."""
    v = os.environ.get("MEMTRACE_ANALYZE_MAX_MEM")
    if v:
        return parse_size(v)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 // 4
    except (OSError, ValueError, IndexError):
        pass
    return 4 << 30


def parse_size(text):
    v = C.c_uint64()
    if fn("memtrace_parse_size")(str(text).strip().encode(), C.byref(v)) != 0:
        raise MemtraceError("bad size %r (examples: 4096, 64K, 2M)" % (text,))
    return v.value


# --- filters -----------------------------------------------------------------

class Selection:
    """The filter options as struct memtrace_filter plus what they mean for
    the axes.  Times are offsets from the trace start."""

    def __init__(self, pid=0, tid=0, time_from=0, time_to=0, addr_lo=0, addr_hi=0, mapping=None, what="",
                 labels=None, span=None, region=None):
        self.pid, self.tid = pid, tid
        self.time_from, self.time_to = time_from, time_to
        self.addr_lo, self.addr_hi = addr_lo, addr_hi
        self.mapping = mapping
        self.what = what
        self.labels = labels    # a labels file naming address ranges (report.h cfg.labels)
        self.span = span        # only samples inside spans whose label contains this
        self.region = region    # only the addresses of the label of this name (filter.region)

    def cstruct(self):
        f = Filter(self.pid, self.tid, self.time_from, self.time_to, self.addr_lo, self.addr_hi,
                   self.mapping.encode() if self.mapping else None,
                   self.region.encode() if self.region else None)
        return f

    @property
    def clip(self):
        """(lo, hi) the address axis must cover for --range, else None."""
        if self.addr_hi:
            return (self.addr_lo, self.addr_hi)
        return None


# --- traces ------------------------------------------------------------------

class _Handle:
    """A library object that the named C function frees (close, with, GC)."""
    _free = None
    _h = None

    def close(self):
        if self._h:
            fn(self._free)(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


class Trace(_Handle):
    """An open trace: header/END metadata, info, decoded columns, side records."""
    _free = "memtrace_trace_close"

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        err = _errbuf()
        h = fn("memtrace_trace_open")(os.fsencode(path), err, ERRLEN)
        if not h:
            _raise(err, path)
        self._h = h
        self.info = TraceInfo()
        if fn("memtrace_trace_info")(h, C.byref(self.info), err, ERRLEN) != 0:
            self.close()
            _raise(err, path)

    # metadata
    def meta(self, key, default=None):
        v = fn("memtrace_trace_meta")(self._h, key.encode())
        return default if v is None else s(v)

    def end_meta(self, key, default=None):
        v = fn("memtrace_trace_end_meta")(self._h, key.encode())
        return default if v is None else s(v)

    @property
    def words(self):
        """{field: text} of memtrace_trace_words: what a sample is (its
        sample_class) and the words for the numbers, as memtracectl uses."""
        if getattr(self, "_words", None) is None:
            w = fn("memtrace_trace_words")(self._h).contents
            self._words = {k: s(getattr(w, k)) for k in WORDS}
        return self._words

    @property
    def target_comm(self):
        """The target's own name (END target_comm, after any exec; else the HEADER's)."""
        return s(fn("memtrace_trace_target_comm")(self._h)) or ""

    @property
    def n(self):
        return self.info.samples

    @property
    def time_is_ns(self):
        return bool(self.info.time_is_ns)

    @property
    def time_unit(self):
        return "ns" if self.info.time_is_ns else "insn"

    @property
    def start_time(self):
        return self.info.start_time

    @property
    def end_time(self):
        return self.info.end_time

    @property
    def sample_period(self):
        return self.info.sample_period or 1

    @property
    def bucket_default(self):
        return self.info.bucket_default

    def has_column(self, name):
        return bool(self.info.columns & (1 << COLUMNS.index(name)))

    def read(self, columns=("time", "addr"), sel=None):
        """{column: numpy array} of the samples that pass sel; the library
        decodes straight into the arrays (no copies).  The arrays are sized
        by the sample count the library verified, and refused beyond
        read_limit() (a few hundred bytes of constant columns can claim
        millions of samples)."""
        cap = max(int(self.info.samples), 1)
        need = cap * sum(4 if c in COL_U32 else 8 for c in columns)
        limit = read_limit()
        if need > limit:
            raise MemtraceError("%s: %d samples need %d bytes for %s, more than the limit of %d bytes "
                                "(MEMTRACE_ANALYZE_MAX_MEM; default a quarter of the available memory)"
                                % (self.name, cap, need, ",".join(columns), limit))
        arrays = {c: np.empty(cap, dtype=np.uint32 if c in COL_U32 else np.uint64) for c in columns}
        cols = Columns(cap=cap)
        for c, a in arrays.items():
            setattr(cols, c, _ptr(a, C.c_uint32 if c in COL_U32 else C.c_uint64))
        n = C.c_size_t()
        err = _errbuf()
        flt = sel.cstruct() if sel is not None else None
        if sel is not None and sel.region and sel.labels and getattr(self, "_labels", None) != sel.labels:
            # the region's names: the labels file first, then the trace's LABELS (the library's)
            if fn("memtrace_trace_labels")(self._h, os.fsencode(sel.labels), err, ERRLEN) != 0:
                _raise(err, self.name)
            self._labels = sel.labels
        if fn("memtrace_trace_read")(self._h, C.byref(flt) if flt is not None else None, C.byref(cols),
                                     C.byref(n), err, ERRLEN) != 0:
            _raise(err, self.name)
        out = {c: a[:n.value] for c, a in arrays.items()}
        if sel is not None and sel.span:
            keep = self.span_mask(sel.span, out["time"], out["tid"]) if "time" in out and "tid" in out \
                else self.span_mask(sel.span, **self.read(("time", "tid"), Selection(
                    sel.pid, sel.tid, sel.time_from, sel.time_to, sel.addr_lo, sel.addr_hi, sel.mapping,
                    labels=sel.labels, region=sel.region)))
            out = {c: a[keep] for c, a in out.items()}
        return out

    def spans(self):
        """[(start, end, pid, tid, label, open)] of the SPANS chunks (record --mark)."""
        return [(x.start, x.end, x.pid, x.tid, s(x.label), bool(x.open))
                for x in self._records("memtrace_trace_spans", Span)]

    def span_mask(self, pattern, time, tid):
        """Boolean array: which samples (absolute time, tid) lie inside a span
        whose label contains pattern (memtrace_trace_span_mask)."""
        time = np.ascontiguousarray(time, dtype=np.uint64)
        tid = np.ascontiguousarray(tid, dtype=np.uint32)
        keep = np.zeros(time.size, dtype=np.uint8)
        err = _errbuf()
        if fn("memtrace_trace_span_mask")(self._h, pattern.encode() if pattern else None, time.size,
                                          _ptr(time, C.c_uint64), _ptr(tid, C.c_uint32),
                                          _ptr(keep, C.c_uint8), err, ERRLEN) < 0:
            _raise(err, self.name)
        return keep.astype(bool)

    def _records(self, name, ctype):
        v = C.POINTER(ctype)()
        err = _errbuf()
        k = fn(name)(self._h, C.byref(v), err, ERRLEN)
        if k < 0:
            _raise(err, self.name)
        return [v[i] for i in range(k)]

    def threads(self):
        return [(t.time, t.pid, t.tid, s(t.comm)) for t in self._records("memtrace_trace_threads", Thread)]

    def lost(self):
        return [(x.time, x.cpu, x.lost, x.throttled) for x in self._records("memtrace_trace_lost", Lost)]

    def windows(self):
        return [(w.window, w.interval, w.bucket_shift, w.time, w.wss_data, w.wss_code)
                for w in self._records("memtrace_trace_windows", WindowRow)]

    def window_rows(self):
        """windows() plus the WINDOWS2 counts: (..., samples, f1, f2, has_counts)."""
        return [(w.window, w.interval, w.bucket_shift, w.time, w.wss_data, w.wss_code, w.samples, w.f1, w.f2,
                 bool(w.has_counts)) for w in self._records("memtrace_trace_windows", WindowRow)]

    def maps(self):
        return [(m.time, m.pid, C.string_at(m.text, m.len).decode("utf-8", "replace"))
                for m in self._records("memtrace_trace_maps", MapsSnapshot)]

    def passes(self):
        """[(time, pid, what)] of the PASSES chunks: a pass-based source's observation passes."""
        return [(p.time, p.pid, p.what) for p in self._records("memtrace_trace_passes", Pass)]

    def damon_regions(self):
        """DamonRegions of the trace's REGIONS chunks (the damon source)."""
        v = C.POINTER(DamonRegion)()
        err = _errbuf()
        k = fn("memtrace_trace_damon_regions")(self._h, C.byref(v), err, ERRLEN)
        if k < 0:
            _raise(err, self.name)
        return DamonRegions(self, v, k)


class DamonRegions:
    """A trace's DAMON region rows and the region-level numbers of
    include/memtrace/damon.h (WSS per aggregation, heatmap, hot regions)."""

    def __init__(self, trace, ptr, n):
        self.trace, self._p, self.n = trace, ptr, n    # trace keeps the rows alive

    def rows(self):
        return [(r.time, r.start, r.end, r.pid, r.nr_accesses, r.age) for r in (self._p[i] for i in range(self.n))]

    def wss(self, pid=0, min_accesses=1):
        """numpy arrays time, wss_bytes, monitored_bytes, one per aggregation."""
        f = fn("memtrace_damon_wss")
        k = f(self._p, self.n, pid, min_accesses, None, 0)
        pts = (DamonWssPoint * max(k, 1))()
        f(self._p, self.n, pid, min_accesses, pts, k)
        return {name: np.array([getattr(pts[i], name) for i in range(k)], dtype=np.uint64)
                for name in ("time", "wss_bytes", "monitored_bytes")}

    def heatmap(self, t0, t1, ntime, a0, a1, naddr, pid=0):
        """ntime x naddr array of mean nr_accesses (NaN: no region)."""
        out = np.zeros(ntime * naddr, dtype=np.float64)
        if fn("memtrace_damon_heatmap")(self._p, self.n, pid, t0, t1, ntime, a0, a1, naddr,
                                        out.ctypes.data_as(C.POINTER(C.c_double))):
            raise MemtraceError("damon heatmap: empty time or address range")
        return out.reshape(ntime, naddr)

    def hot(self, k=10, pid=0, time=(1 << 64) - 1):
        out = (DamonRegion * max(k, 1))()
        m = fn("memtrace_damon_hot")(self._p, self.n, pid, time, out, k)
        return [{"pid": out[i].pid, "start": out[i].start, "end": out[i].end, "nr_accesses": out[i].nr_accesses,
                 "age": out[i].age} for i in range(max(m, 0))]


# --- reports -----------------------------------------------------------------

def _named(arr, k):
    return [{"addr": arr[i].addr, "count": arr[i].count, "name": s(arr[i].name), "file": s(arr[i].file),
             "line": arr[i].line} for i in range(k)]


def _hot(arr, k):
    out = []
    for i in range(k):
        h = arr[i]
        out.append({"addr": h.addr, "count": h.count, "where": s(h.where), "object": s(h.object),
                    "with_ip": h.with_ip, "functions": _named(h.functions, h.nfunctions),
                    "ips": _named(h.ips, h.nips)})
    return out


def _series(se, blind=None):
    """blind: the report's per-row flags (NULL pointer: none known): a
    "blind" array of bools, True where the source saw no pass in the window."""
    n = se.n
    t = np.ctypeslib.as_array(se.time, (n,)).copy() if n else np.zeros(0, np.uint64)
    w = np.ctypeslib.as_array(se.wss, (n,)).copy() if n else np.zeros(0, np.uint64)
    b = np.ctypeslib.as_array(blind, (n,)).astype(bool) if n and blind else np.zeros(n, bool)
    return {"n": n, "time": t, "wss": w, "blind": b, "avg": se.avg, "peak": se.peak, "total": se.total}


def _blind(r):
    """struct memtrace_blind: state "known" / "unknown" / "none", the pass
    name and the blind runs as (first, last) report times (relative)."""
    b = r.blind
    return {"state": BLIND_STATES.get(b.state, "none"), "what": b.what, "pass": s(b.pass_),
            "passes": b.passes, "lag": b.lag, "period": b.period, "intervals": b.intervals,
            "gaps": r.gaps, "gap_time": r.gap_time,
            "runs": [(b.first[i] * r.interval, b.last[i] * r.interval) for i in range(b.nruns)]}


def _estimate(e, n, intervals):
    """struct memtrace_estimate as a dict of numpy arrays (n rows) and
    summaries; windows: every interval, gaps: those that are not rows (no
    sample in the window: nothing seen, flagged few samples where N > 1)."""
    def arr(p, dtype):
        return np.ctypeslib.as_array(p, (n,)).copy() if n else np.zeros(0, dtype)
    out = {"period": e.period, "samples": arr(e.samples, np.uint64), "f1": arr(e.f1, np.uint64),
           "f2": arr(e.f2, np.uint64), "est": arr(e.est, np.float64), "lo": arr(e.lo, np.float64),
           "hi": arr(e.hi, np.float64), "flags": arr(e.flags, np.uint32)}
    out["windows"], out["gaps"] = intervals, max(intervals - n, 0)
    for k in ("unreliable", "avg", "avg_lo", "avg_hi", "peak", "p95", "total", "total_lo", "total_hi",
              "total_flags"):
        out[k] = getattr(e, k)
    return out


def _mrc(r):
    """struct memtrace_mrc: the curve as numpy arrays (bytes, miss, lo, hi),
    the knees' sizes, and hit(bytes) -> (hit ratio, lo, hi) from the
    library (memtrace_mrc_miss, evaluated before the report is freed: give
    sizes with report(..., mrc_sizes=[...])).  None: not asked."""
    m = r.mrc
    if not m.computed:
        return None
    n = m.n
    pts = [m.points[i] for i in range(n)]
    return {"exact": bool(m.exact), "period": m.period, "bucket": m.bucket, "references": m.refs,
            "cold": m.cold, "cold_ratio": m.cold_ratio, "footprint": m.footprint,
            "bytes": np.array([p.bytes for p in pts], np.uint64),
            "miss_ratio": np.array([p.miss_ratio for p in pts], np.float64),
            "lo": np.array([p.lo for p in pts], np.float64), "hi": np.array([p.hi for p in pts], np.float64),
            "knees": [pts[m.knees[i]].bytes for i in range(m.nknees)]}


def _cold(r):
    """struct memtrace_cold as numpy arrays: time (relative), seen, cold
    (thresholds x points), blind (bools or None), pass_age (None, or
    uint64 with 2^64-1 = no pass yet), per-process seen/cold.  None: not asked."""
    o = r.cold
    if not o.computed:
        return None
    n, nt = o.n, o.nthresholds

    def arr(p, k, dtype=np.uint64):
        return np.ctypeslib.as_array(p, (k,)).astype(dtype) if k and p else np.zeros(0, dtype)
    out = {"method": COLD_METHODS.get(o.method, "access"), "period": o.period, "bucket": o.bucket,
           "step": o.step, "thresholds": [o.thresholds[i] for i in range(nt)],
           "time": arr(o.time, n), "seen": arr(o.seen, n), "cold": arr(o.cold, n * nt).reshape(nt, n),
           "avg_share": [o.avg_share[i] for i in range(nt)],
           "false_cold": [o.false_cold[i] for i in range(nt)] if o.false_cold else None,
           "blind": arr(o.blind, n, bool) if o.blind else None, "blind_points": o.blind_points,
           "pass_age": arr(o.pass_age, n) if o.pass_age else None, "reordered": o.reordered}
    out["upper_bound"] = out["method"] == "access" and o.period > 1.0
    out["processes"] = [{"pid": p.pid, "seen": arr(p.seen, n), "cold": arr(p.cold, n * nt).reshape(nt, n)}
                        for p in (o.processes[i] for i in range(o.nprocesses))]
    return out


def _mrc_at(r, sizes):
    """{bytes: (miss ratio, lo, hi)} of memtrace_mrc_miss at each size."""
    f = fn("memtrace_mrc_miss")
    out = {}
    for b in sizes:
        lo, hi = C.c_double(), C.c_double()
        m = f(C.byref(r), C.c_uint64(int(b)), C.byref(lo), C.byref(hi))
        out[int(b)] = (m, lo.value, hi.value)
    return out


def report_dict(r):
    """A struct memtrace_report (ctypes) as plain Python data, copied out."""
    out = {"bucket": r.bucket, "window": r.window, "interval": r.interval, "bucket_shift": r.bucket_shift,
           "time_is_ns": bool(r.time_is_ns), "start_time": r.start_time,
           "samples": r.samples, "first_time": r.first_time, "last_time": r.last_time,
           "reordered": r.reordered, "have_ip": bool(r.have_ip), "intervals": r.intervals,
           "data": _series(r.data, r.data_blind), "code": _series(r.code, r.code_blind),
           "blind": _blind(r), "peaks_found": r.peaks_found,
           "data_est": _estimate(r.data_est, r.data.n, r.intervals),
           "code_est": _estimate(r.code_est, r.code.n, r.intervals)}
    out["peaks"] = [{"index": p.index, "first": p.first, "last": p.last, "time": p.time, "value": p.value,
                     "locations": _named(p.locations, p.nlocations), "top_mapping": s(p.top_mapping)}
                    for p in (r.peaks[i] for i in range(r.npeaks))]
    out["hot_data"] = _hot(r.hot_data, r.nhot_data)
    out["hot_code"] = _hot(r.hot_code, r.nhot_code)
    out["curve"] = [(c.min_count, c.buckets, c.samples) for c in (r.curve[i] for i in range(r.ncurve))]
    nb = r.nbuckets
    out["bucket_addr"] = np.ctypeslib.as_array(r.bucket_addr, (nb,)).copy() if nb else np.zeros(0, np.uint64)
    out["bucket_count"] = np.ctypeslib.as_array(r.bucket_count, (nb,)).copy() if nb else np.zeros(0, np.uint64)
    out["regions"] = [{"label": s(g.label), "name": s(g.name), "start": g.start, "end": g.end,
                       "samples": g.samples, "buckets": g.buckets}
                      for g in (r.regions[i] for i in range(r.nregions))]
    out["nspans"], out["span_samples"] = r.nspans, r.span_samples
    out["region"] = s(r.region)                 # filter.region, None without one
    out["region_bytes"] = r.region_bytes        # its size, a shared page once
    line = C.create_string_buffer(1024)         # "WSS of region \"NAME\" (N pages of M, ...)"
    out["region_line"] = s(fn("memtrace_report_region_line")(C.byref(r), line, len(line))) if r.region else None
    out["threads"] = r.threads if r.have_tid else None     # distinct (pid, tid) of the samples
    out["space_pids"] = [r.space_pids[i] for i in range(r.nspace_pids)]    # memtrace_report_decode
    out["mrc"] = _mrc(r)
    out["cold"] = _cold(r)
    out["span_groups"] = [{"label": s(g.label), "spans": g.spans, "time": g.time, "samples": g.samples,
                           "buckets": g.buckets, "avg_buckets": g.avg_buckets, "max_buckets": g.max_buckets}
                          for g in (r.span_groups[i] for i in range(r.nspan_groups))]
    return out


def report_config(bucket=0, window=0, interval=0, top=0, sel=None, flags=0, sensitivity=0.0,
                  max_peaks=0, locations=0, functions=0, root=None, debug_dir=None, cold=None, cold_step=0,
                  mrc_warmup=0):
    """struct memtrace_report_config with the selection's filter, labels and span."""
    cfg = ReportConfig(bucket=bucket, window=window, interval=interval, top=top, sensitivity=sensitivity,
                       max_peaks=max_peaks, locations=locations, functions=functions, flags=flags,
                       root=root.encode() if root else None, debug_dir=debug_dir.encode() if debug_dir else None)
    if cold:        # thresholds (trace unit); kept alive by cfg
        cfg._cold = (C.c_uint64 * len(cold))(*[int(x) for x in cold])
        cfg.ncold, cfg.cold_thresholds = len(cold), C.cast(cfg._cold, u64p)
    cfg.cold_step = cold_step
    cfg.mrc_warmup = mrc_warmup
    if sel is not None:
        cfg.filter = sel.cstruct()
        cfg.labels = os.fsencode(sel.labels) if sel.labels else None
        cfg.span = sel.span.encode() if sel.span else None
    return cfg


def report(path, bucket=0, window=0, interval=0, top=0, sel=None, flags=0, sensitivity=0.0,
           max_peaks=0, locations=0, functions=0, root=None, debug_dir=None, mrc_sizes=None, cold=None,
           cold_step=0, mrc_warmup=0):
    """memtrace_report_compute as plain Python data (dicts, lists, numpy
    arrays), copied out before the report is freed.  mrc_sizes (with
    REPORT_MRC in flags): out["mrc_at"] = {bytes: (miss ratio, lo, hi)}."""
    cfg = report_config(bucket, window, interval, top, sel, flags, sensitivity, max_peaks, locations, functions,
                        root, debug_dir, cold, cold_step, mrc_warmup)
    err = _errbuf()
    rp = fn("memtrace_report_compute")(os.fsencode(path), C.byref(cfg), err, ERRLEN)
    if not rp:
        _raise(err, path)
    try:
        out = report_dict(rp.contents)
        if mrc_sizes is not None and out["mrc"] is not None:
            out["mrc_at"] = _mrc_at(rp.contents, mrc_sizes)
        return out
    finally:
        fn("memtrace_report_free")(rp)


# --- resolver ----------------------------------------------------------------

class Resolver(_Handle):
    """Addresses to names (memtrace_resolver_*): mapping, symbol, file:line."""
    _free = "memtrace_resolver_close"

    def __init__(self, path, root=None, debug_dir=None, labels=None):
        err = _errbuf()
        h = fn("memtrace_resolver_open")(os.fsencode(path), root.encode() if root else None,
                                         debug_dir.encode() if debug_dir else None, err, ERRLEN)
        if not h:
            _raise(err, path)
        self._h = h
        if labels and fn("memtrace_resolver_labels")(h, os.fsencode(labels), err, ERRLEN) != 0:
            self.close()
            _raise(err, labels)

    def layout(self, pid=0):
        """[(start, end, name, perms)] in address order (resolver_layout)."""
        v = C.POINTER(Range)()
        k = fn("memtrace_resolver_layout")(self._h, pid, C.byref(v))
        if k < 0:
            raise MemtraceError("memtrace_resolver_layout failed")
        return [(v[i].start, v[i].end, s(v[i].name), s(v[i].perms)) for i in range(k)]

    def keys(self, pid, addr, inplace=False):
        """Address-space keys of (pid, addr) arrays (memtrace_resolver_keys):
        each process's private memory apart, each shared page once.
        inplace: addr (a contiguous uint64 array) is overwritten with them."""
        pid = np.ascontiguousarray(pid, dtype=np.uint32)
        key = addr if inplace and isinstance(addr, np.ndarray) and addr.dtype == np.uint64 and \
            addr.flags.c_contiguous and addr.flags.writeable else np.array(addr, dtype=np.uint64)
        fn("memtrace_resolver_keys")(self._h, key.size, _ptr(pid, C.c_uint32), _ptr(key, C.c_uint64),
                                     _ptr(key, C.c_uint64))
        return key

    def decode(self, key):
        """(pid, address as that process sees it, shared) behind an
        address-space key (memtrace_resolver_decode); pid 0: no process has
        its tag (or a kernel address)."""
        pid, addr, by = C.c_uint32(), C.c_uint64(), C.c_uint32()
        kind = fn("memtrace_resolver_decode")(self._h, key, C.byref(pid), C.byref(addr), C.byref(by))
        return (pid.value, addr.value, by.value) if kind >= 0 else (0, key, 0)

    def resolve(self, addr, pid=0, time=(1 << 64) - 1):
        loc = Location()
        kind = fn("memtrace_resolve")(self._h, pid, time, addr, C.byref(loc))
        return kind, {"mapping": s(loc.mapping), "mapping_off": loc.mapping_off, "symbol": s(loc.symbol),
                      "symbol_off": loc.symbol_off, "symbol_size": loc.symbol_size, "file": s(loc.file),
                      "line": loc.line}

    def describe(self, addr, pid=0, time=(1 << 64) - 1):
        buf = C.create_string_buffer(512)
        fn("memtrace_describe")(self._h, pid, time, addr, buf, 512)
        return s(buf.value)


# --- writer (tools and tests) ------------------------------------------------

class Writer:
    """memtrace_writer_*: writes a trace from numpy columns."""

    def __init__(self, path, meta):
        if isinstance(meta, dict):
            meta = "".join("%s=%s\n" % kv for kv in meta.items())
        err = _errbuf()
        self._h = fn("memtrace_writer_open")(os.fsencode(path), meta.encode(), err, ERRLEN)
        if not self._h:
            _raise(err, path)

    def samples(self, **cols):
        """time, addr, pid, tid, cpu required; ip, weight, data_src optional."""
        n = len(cols["time"])
        keep = []
        c = Columns(cap=n)
        for name, v in cols.items():
            if v is None:
                continue
            a = np.ascontiguousarray(v, dtype=np.uint32 if name in COL_U32 else np.uint64)
            if a.shape != (n,):
                raise ValueError("column %s: %d values, expected %d" % (name, a.size, n))
            keep.append(a)
            setattr(c, name, _ptr(a, C.c_uint32 if name in COL_U32 else C.c_uint64))
        err = _errbuf()
        if fn("memtrace_writer_samples")(self._h, C.byref(c), n, err, ERRLEN) != 0:
            _raise(err, "writer")

    def maps(self, time, pid, text):
        b = text.encode()
        err = _errbuf()
        if fn("memtrace_writer_maps")(self._h, time, pid, b, len(b), err, ERRLEN) != 0:
            _raise(err, "writer")

    def damon_regions(self, rows):
        """rows: (time, start, end, pid, nr_accesses, age) tuples: REGIONS chunks."""
        v = (DamonRegion * max(len(rows), 1))(*[DamonRegion(*r) for r in rows])
        err = _errbuf()
        if fn("memtrace_writer_damon_regions")(self._h, v, len(rows), err, ERRLEN) != 0:
            _raise(err, self.path if hasattr(self, "path") else "")

    def passes(self, rows):
        """rows: (time, pid, what) tuples: PASSES chunks."""
        v = (Pass * max(len(rows), 1))(*[Pass(*r) for r in rows])
        err = _errbuf()
        if fn("memtrace_writer_passes")(self._h, v, len(rows), err, ERRLEN) != 0:
            _raise(err, "writer")

    def gaps(self, rows):
        """rows: (from, to, pid, what) tuples: GAPS chunks (stretches without a target)."""
        v = (Gap * max(len(rows), 1))(*[Gap(*r) for r in rows])
        err = _errbuf()
        if fn("memtrace_writer_gaps")(self._h, v, len(rows), err, ERRLEN) != 0:
            _raise(err, "writer")

    def labels(self, text):
        """A LABELS chunk (the --labels format)."""
        b = text.encode()
        err = _errbuf()
        if fn("memtrace_writer_labels")(self._h, b, len(b), err, ERRLEN) != 0:
            _raise(err, "writer")

    def span(self, start, end, pid, tid, label, open_=False):
        """One SPANS record (record --mark)."""
        err = _errbuf()
        if fn("memtrace_writer_span")(self._h, start, end, pid, tid, label.encode(), int(open_), err,
                                      ERRLEN) != 0:
            _raise(err, "writer")

    def thread(self, time, pid, tid, comm):
        err = _errbuf()
        if fn("memtrace_writer_thread")(self._h, time, pid, tid, comm.encode(), err, ERRLEN) != 0:
            _raise(err, "writer")

    def close(self, end_meta=None):
        if isinstance(end_meta, dict):
            end_meta = "".join("%s=%s\n" % kv for kv in end_meta.items())
        err = _errbuf()
        h, self._h = self._h, None
        if fn("memtrace_writer_close")(h, end_meta.encode() if end_meta is not None else None, err, ERRLEN) != 0:
            _raise(err, "writer")
