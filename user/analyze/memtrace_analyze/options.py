"""The options `memtracectl report` has too, with its names and defaults:
--window (several: 1ms,10ms), --interval, --bucket, --top.  Values are
parsed by the library; 0 means the library's default (window 100 ms /
100000 instructions, interval = the window, bucket = the trace's)."""

import argparse

from . import lib


def add_report_args(p, windows=True, top=None):
    if windows:
        p.add_argument("-w", "--window", default=None, metavar="TAU[,TAU...]",
                       help="working-set window(s) τ, comma separated (ns traces: 1ms,10ms; instruction "
                            "traces: 100k,1M); default as memtracectl report: 100ms / 100000")
        p.add_argument("--tau", dest="window", help=argparse.SUPPRESS)   # old name
        p.add_argument("-i", "--interval", default=None, metavar="T",
                       help="one WSS value every T (default: the first window)")
    p.add_argument("-b", "--bucket", default=None, metavar="SIZE",
                   help="bucket size, a power of two from 64 to 2M (default: the trace's, 4K)")
    if top is not None:
        p.add_argument("-n", "--top", type=int, default=top, metavar="N", help="hot buckets/regions listed (default %d)" % top)


def bucket(args):
    b = getattr(args, "bucket", None)
    return lib.parse_size(b) if b else 0


def windows(tr, args):
    """[window, ...] in the trace's unit; [0] = the library default."""
    w = getattr(args, "window", None)
    if not w:
        return [0]
    out = [lib.parse_duration(x, tr.time_is_ns) for x in w.split(",") if x.strip()]
    if not out or any(v == 0 for v in out):
        raise lib.MemtraceError("--window must be > 0")
    return out


def interval(tr, args):
    i = getattr(args, "interval", None)
    if not i:
        return 0
    v = lib.parse_duration(i, tr.time_is_ns)
    if v == 0:
        raise lib.MemtraceError("--interval must be > 0")
    return v


def top(args, default=10):
    n = getattr(args, "top", None)
    if n is None:
        return default
    if n <= 0:
        raise lib.MemtraceError("--top must be > 0")
    return n


def compute(tr, args, sel, flags=0, top_n=None):
    """One report per window (the first with flags), all with the same
    interval: the interval of the first window when none is given, so the
    series share their time axis."""
    ws = windows(tr, args)
    iv = interval(tr, args)
    b = bucket(args)
    n = top_n if top_n is not None else top(args)
    out = []
    for k, w in enumerate(ws):
        r = lib.report(tr.path, bucket=b, window=w, interval=iv, top=n, sel=sel, flags=flags if k == 0 else 0)
        if k == 0:
            iv = r["interval"]
        out.append(r)
    return out
