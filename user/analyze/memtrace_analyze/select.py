"""Sample selection shared by the verbs: --range, --mapping, --time-range,
--pid, --tid.  Times on the command line are offsets from the trace start."""

import numpy as np

from .trace import TraceError
from .units import parse_range, parse_time


class View:
    """A filtered trace plus what the filter means for the axes."""

    def __init__(self, tr, clip=None, t0=None, t1=None, what=""):
        self.tr = tr
        self.clip = clip             # (lo, hi) byte range the address axis must cover, or None
        self.t0 = tr.start_time if t0 is None else t0
        self.t1 = tr.end_time if t1 is None else t1
        if self.t1 <= self.t0:
            self.t1 = self.t0 + 1
        self.what = what             # human description of the filter, '' for none


def add_filter_args(p):
    p.add_argument("--range", metavar="LO-HI", help="only addresses in [LO, HI), hexadecimal as in /proc/PID/maps (0x optional)")
    p.add_argument("--mapping", metavar="NAME",
                   help="only addresses in mappings whose name contains NAME (e.g. '[heap]', 'libc', 'anon:orders')")
    p.add_argument("--time-range", metavar="A-B",
                   help="only samples between A and B after the start (ns traces: 10ms-2s; insn traces: 1M-5M)")
    p.add_argument("--pid", type=int, help="only this process")
    p.add_argument("--tid", type=int, help="only this thread")


def make_view(tr, args):
    mask = None
    clip = None
    what = []
    t0 = t1 = None

    def andmask(m):
        nonlocal mask
        mask = m if mask is None else (mask & m)

    if getattr(args, "pid", None) is not None:
        andmask(tr.pid == np.uint32(args.pid))
        what.append("pid %d" % args.pid)
    if getattr(args, "tid", None) is not None:
        andmask(tr.tid == np.uint32(args.tid))
        what.append("tid %d" % args.tid)
    if getattr(args, "range", None):
        try:
            lo, hi = parse_range(args.range, lambda s: int(s.strip(), 16))
        except ValueError as e:
            raise TraceError("--range: %s" % e)
        andmask((tr.addr >= np.uint64(lo)) & (tr.addr < np.uint64(min(hi, (1 << 64) - 1))))
        clip = (lo, hi)
        what.append("addresses %#x-%#x" % (lo, hi))
    if getattr(args, "mapping", None):
        ms = tr.maps.matching(args.mapping)
        if not ms:
            names = sorted(set(m.short for m in tr.maps.maps))
            raise TraceError("--mapping %s: no mapping of that name in %s (mappings: %s)"
                             % (args.mapping, tr.name, ", ".join(names) or "none recorded"))
        idx = tr.maps.lookup(tr.addr)
        andmask(np.isin(idx, [m.index for m in ms]))
        if len(ms) == 1 or all(a.end == b.start for a, b in zip(ms, ms[1:])):
            clip = (ms[0].start, ms[-1].end) if clip is None else clip
        what.append("mapping %s" % args.mapping)
    if getattr(args, "time_range", None):
        try:
            a, b = parse_range(args.time_range, lambda s: parse_time(s, tr.time_unit))
        except ValueError as e:
            raise TraceError("--time-range: %s" % e)
        t0, t1 = tr.start_time + a, tr.start_time + b
        andmask((tr.time >= np.uint64(t0)) & (tr.time <= np.uint64(t1)))
        what.append("time %s" % args.time_range)
    sel = tr if mask is None else tr.select(mask)
    return View(sel, clip, t0, t1, ", ".join(what))
