"""Human units for axes, labels and tables (option values are parsed by
the library: lib.parse_size, lib.parse_duration)."""


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


def parse_range(s, conv):
    if "-" not in s and ":" not in s:
        raise ValueError("bad range %r: expected LO-HI" % s)
    sep = ":" if ":" in s else "-"
    lo, hi = s.split(sep, 1)
    lo, hi = conv(lo), conv(hi)
    if hi <= lo:
        raise ValueError("bad range %r: end must be after start" % s)
    return lo, hi
