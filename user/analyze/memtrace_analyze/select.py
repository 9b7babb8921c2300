"""Sample selection shared by the verbs: --range, --mapping, --region, --time-range,
--pid, --tid become one struct memtrace_filter (lib.Selection) that every
library call gets; --span (record --mark spans) and --labels (names of
address ranges) go with it to the library.  Times on the command line are offsets from the trace
start, parsed by the library (memtrace_parse_duration)."""

from .lib import MemtraceError, Selection, parse_duration
from .units import parse_range


def add_filter_args(p):
    p.add_argument("--range", metavar="LO-HI", help="only addresses in [LO, HI), hexadecimal as in /proc/PID/maps (0x optional)")
    p.add_argument("--mapping", metavar="NAME",
                   help="only addresses in mappings whose name contains NAME (e.g. '[heap]', 'libc', 'memfd:orders')")
    p.add_argument("--time-range", metavar="A-B",
                   help="only samples between A and B after the start (ns traces: 10ms-2s; insn traces: 1M-5M)")
    p.add_argument("--pid", type=int, help="only this process")
    p.add_argument("--tid", type=int, help="only this thread")
    p.add_argument("--span", metavar="PATTERN",
                   help="only samples of threads inside a span (record --mark) whose label contains PATTERN")
    p.add_argument("--labels", metavar="FILE",
                   help="name address ranges: lines START SIZE NAME or MAPPING+OFFSET SIZE NAME")
    p.add_argument("--region", metavar="NAME",
                   help="only the addresses a label named NAME covers (--labels or the trace's own), "
                        "in every process that maps them, a shared page once")


def _hex(text):
    try:
        return int(text.strip(), 16)
    except ValueError:
        raise ValueError("bad address %r" % text)


def make_selection(tr, args):
    """lib.Selection for the filter options in args (tr: lib.Trace, for the
    time unit)."""
    sel = Selection()
    what = []
    if getattr(args, "pid", None) is not None:
        if args.pid <= 0:
            raise MemtraceError("--pid must be > 0")
        sel.pid = args.pid
        what.append("pid %d" % args.pid)
    if getattr(args, "tid", None) is not None:
        if args.tid <= 0:
            raise MemtraceError("--tid must be > 0")
        sel.tid = args.tid
        what.append("tid %d" % args.tid)
    if getattr(args, "range", None):
        try:
            lo, hi = parse_range(args.range, _hex)
        except ValueError as e:
            raise MemtraceError("--range: %s" % e)
        sel.addr_lo, sel.addr_hi = lo, min(hi, (1 << 64) - 1)
        what.append("addresses %#x-%#x" % (lo, hi))
    if getattr(args, "mapping", None):
        sel.mapping = args.mapping
        what.append("mapping %s" % args.mapping)
    if getattr(args, "time_range", None):
        try:
            a, b = parse_range(args.time_range, lambda x: parse_duration(x, tr.time_is_ns))
        except (ValueError, MemtraceError) as e:
            raise MemtraceError("--time-range: %s" % e)
        sel.time_from, sel.time_to = a, b
        what.append("time %s" % args.time_range)
    if getattr(args, "span", None):
        sel.span = args.span
        what.append("span %s" % args.span)
    if getattr(args, "labels", None):
        sel.labels = args.labels
    if getattr(args, "region", None):
        sel.region = args.region
        what.append('region "%s"' % args.region)
    sel.what = ", ".join(what)
    return sel


def time_span(tr, sel):
    """(t0, t1) absolute: the x axis of time plots (the --time-range, else
    the whole trace)."""
    t0 = tr.start_time + sel.time_from
    t1 = tr.start_time + sel.time_to if sel.time_to else max(tr.end_time, tr.info.last_time)
    return t0, max(t1, t0 + 1)


SPACE_SHIFT, SPACE_MAX = 48, 0x7fff     # include/memtrace/report.h, memtrace_report_decode


class Addresses:
    """A report's buckets, instruction pointers and regions are
    address-space keys (include/memtrace/resolve.h): another process than
    the target (or --pid) carries its space number in bits 48..62.  decode()
    gives (pid, address in that pid) by the report's table of the pid of
    each number (space_pids), the rule of memtrace_report_decode."""

    def __init__(self, rep, pid):
        self.space_pids = rep.get("space_pids") or []
        self.pid = pid      # the report's primary: --pid, else the target

    def decode(self, key):
        key = int(key)
        num = 0 if key >> 63 else key >> SPACE_SHIFT
        n = len(self.space_pids)
        if num >= n or (num == SPACE_MAX and n > SPACE_MAX + 1):
            return 0, key
        return self.space_pids[num], key if key >> 63 else key & ((1 << SPACE_SHIFT) - 1)

    def text(self, key):
        """'0x7f3a2c000000', 'pid 1234 0x7f3a2c000000' for another process."""
        pid, addr = self.decode(key)
        return "%#x" % addr if pid == self.pid or not pid else "pid %d %#x" % (pid, addr)
