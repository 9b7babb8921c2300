"""Human units for axes, labels and tables; parsing of size/time options."""

import re


def fmt_bytes(n, prec=1):
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            if unit == "B":
                return "%d B" % n
            s = ("%%.%df" % prec) % n
            if "." in s:
                s = s.rstrip("0").rstrip(".")
            return "%s %s" % (s, unit)
        n /= 1024.0
    return "%g" % n


def fmt_count(n):
    n = float(n)
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= div:
            return ("%.3g" % (n / div)) + unit
    return "%d" % n if n == int(n) else "%.3g" % n


class TimeAxis:
    """Converts trace times (offsets from start, in time_unit) to a display
    unit chosen from the span: s/ms/us for ns traces, instructions scaled
    by 10^3/10^6/10^9 for insn traces."""

    def __init__(self, time_unit, span):
        self.time_unit = time_unit
        span = float(span)
        if time_unit == "insn":
            for name, div in (("G instructions", 1e9), ("M instructions", 1e6),
                              ("k instructions", 1e3), ("instructions", 1)):
                if span >= 2 * div or div == 1:
                    self.unit, self.div = name, div
                    break
        else:
            for name, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1)):
                if span >= 2 * div or div == 1:
                    self.unit, self.div = name, div
                    break

    def __call__(self, t):
        return t / self.div

    def label(self, what="time since start"):
        return "%s (%s)" % (what, self.unit)

    def fmt(self, t):
        return "%.4g %s" % (t / self.div, self.unit)


def fmt_time(t, time_unit):
    if time_unit == "insn":
        return "%s instructions" % fmt_count(t)
    t = float(t)
    for name, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(t) >= div:
            return "%.4g %s" % (t / div, name)
    return "%d ns" % t


_SIZE = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20,
         "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}


def parse_size(s):
    m = re.fullmatch(r"\s*(0x[0-9a-fA-F]+|\d+)\s*([a-zA-Z]*)\s*", str(s))
    if not m or m.group(2).lower() not in _SIZE:
        raise ValueError("bad size %r (examples: 4096, 64K, 2M)" % s)
    return int(m.group(1), 0) * _SIZE[m.group(2).lower()]


_TIME_NS = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "min": 60e9}
_TIME_INSN = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "insn": 1, "kinsn": 1e3, "minsn": 1e6, "ginsn": 1e9}


def parse_time(s, time_unit):
    """A duration/offset in the trace's time unit.  ns traces: 10ms, 1.5s,
    2000us, 300 (= ns).  insn traces: 2M, 150k, 1G, 12345."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*([a-zA-Zµ]*)\s*", str(s))
    if not m:
        raise ValueError("bad time %r" % s)
    v, u = float(m.group(1)), m.group(2)
    if time_unit == "insn":
        key = u.lower()
        if key not in _TIME_INSN:
            raise ValueError("bad time %r for an instruction-clock trace (examples: 500k, 2M, 1G)" % s)
        return int(round(v * _TIME_INSN[key]))
    key = u if u in _TIME_NS else u.lower()
    if key == "":
        return int(round(v))
    if key not in _TIME_NS:
        raise ValueError("bad time %r (examples: 250us, 10ms, 1.5s)" % s)
    return int(round(v * _TIME_NS[key]))


def parse_range(s, conv):
    if "-" not in s and ":" not in s:
        raise ValueError("bad range %r: expected LO-HI" % s)
    sep = ":" if ":" in s else "-"
    lo, hi = s.split(sep, 1)
    lo, hi = conv(lo), conv(hi)
    if hi <= lo:
        raise ValueError("bad range %r: end must be after start" % s)
    return lo, hi
