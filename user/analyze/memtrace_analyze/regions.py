"""regions: accesses and accessed volume per mapping (table + bar chart).

    memtrace-analyze regions TRACE -o regions.png [--bucket 4K] [--top 15]

A region is one line of /proc/PID/maps (MAPS chunks); samples outside
every recorded mapping form the region 'unmapped'.  The regions, their
sample and bucket counts come from memtrace_report_compute
(MEMTRACE_REPORT_REGIONS; labels carry ' #2' among equal labels).  Per region:
  samples          sampled accesses
  est. accesses    samples x sample_period
  touched          distinct buckets sampled x bucket size
  accessed volume  samples x bucket size (paper 002 section 4.4: accesses per
                   bucket times the bucket size, summed)
"""

import sys

import numpy as np

from . import lib, options
from .select import Addresses, add_filter_args, make_selection
from .units import fmt_bytes, fmt_count


class Region:
    __slots__ = ("key", "label", "start", "end", "samples", "touched_buckets", "bucket", "period", "where")

    def __init__(self, key, label, start, end, samples, touched_buckets, bucket, period):
        self.key, self.label, self.start, self.end = key, label, start, end
        self.samples, self.touched_buckets, self.bucket, self.period = samples, touched_buckets, bucket, period
        self.where = None   # (pid, start, end) in the process (start, end: keys), set by from_report

    @property
    def range_text(self):
        """'0x7f..-0x7f..' as the process sees it ('-' for unmapped)."""
        if not self.end:
            return "-"
        _pid, a, b = self.where or (0, self.start, self.end)
        return "%#x-%#x" % (a, b)

    @property
    def touched(self):
        return self.touched_buckets * self.bucket

    @property
    def volume(self):
        return self.samples * self.bucket

    @property
    def est_accesses(self):
        return self.samples * self.period

    def as_dict(self):
        pid, a, b = self.where or (0, self.start, self.end)
        return {"key": self.key, "start": self.start, "end": self.end, "pid": pid, "start_address": a,
                "end_address": b, "samples": self.samples,
                "buckets": self.touched_buckets, "est_accesses": self.est_accesses,
                "touched_bytes": self.touched, "accessed_volume_bytes": self.volume}


def from_report(rep, period, addrs=None):
    """Regions of a report (most sampled first, as the library orders them);
    addrs (select.Addresses): their ranges in their process too."""
    out = []
    for g in rep["regions"]:
        r = Region(g["label"], g["label"], g["start"], g["end"], g["samples"], g["buckets"], rep["bucket"], period)
        if addrs and g["end"]:
            pid, a = addrs.decode(g["start"])
            r.where = (pid, a, a + (g["end"] - g["start"]))
        out.append(r)
    return out


def compute(tr, args, sel):
    rep = options.compute(tr, args, sel, lib.REPORT_REGIONS, top_n=1)[0]
    return rep, from_report(rep, tr.sample_period, Addresses(rep, sel.pid or tr.info.target_pid))


def format_table(regions, total=None, words=None):
    total = total or sum(r.samples for r in regions) or 1
    est = "est.accesses" if not words or words["sample_class"] == "sampled-access" else words["count"]
    vol = {"accessed": "acc.volume", "faulted": "flt.volume"}.get(words["verb"] if words else "accessed", "volume")
    lines = ["%-34s %-33s %10s %7s %12s %11s %12s" % ("region", "address range", "samples", "share",
                                                     est, "touched", vol)]
    for r in regions:
        rng = r.range_text
        lines.append("%-34s %-33s %10d %6.2f%% %12s %11s %12s" % (
            r.key[:34], rng, r.samples, 100.0 * r.samples / total, fmt_count(r.est_accesses),
            fmt_bytes(r.touched), fmt_bytes(r.volume)))
    return "\n".join(lines)


def plot(tr, regions, out, top=15, what=""):
    from .plotting import byte_axis, save, subplots, trace_title
    shown = regions[:top]
    rest = regions[top:]
    labels = [r.key for r in shown]
    samples = [r.samples for r in shown]
    touched = [r.touched for r in shown]
    if rest:
        labels.append("%d other regions" % len(rest))
        samples.append(sum(r.samples for r in rest))
        touched.append(sum(r.touched for r in rest))
    n = len(labels)
    fig, (a1, a2) = subplots(1, 2, figsize=(12, 1.2 + 0.38 * max(n, 3)), sharey=True)
    y = np.arange(n)[::-1]
    total = float(sum(samples)) or 1.0
    a1.barh(y, samples, color="#1f77b4")
    for yi, s in zip(y, samples):
        a1.text(s, yi, " %s (%.1f%%)" % (fmt_count(s), 100 * s / total), va="center", fontsize=7.5)
    a1.set_yticks(y)
    a1.set_yticklabels(labels, fontsize=8)
    w = tr.words
    a1.set_xlabel("%s (× %d ≈ all accesses)" % (w["samples"], tr.sample_period) if tr.sample_period > 1
                  else w["samples"])
    a1.set_xlim(0, max(samples) * 1.35 if samples else 1)
    a1.set_title("%s per region" % w["activity"], fontsize=10)
    a2.barh(y, touched, color="#2ca02c")
    for yi, s in zip(y, touched):
        a2.text(s, yi, " " + fmt_bytes(s), va="center", fontsize=7.5)
    byte_axis(a2.xaxis, max(touched) * 1.3 if touched else 1, nticks=4)
    a2.set_xlim(0, max(touched) * 1.3 if touched else 1)
    a2.set_xlabel("touched volume (distinct %s buckets with %s)" % (fmt_bytes(regions[0].bucket if regions else 4096),
                                                                    w["samples"]))
    a2.set_title("Volume touched per region", fontsize=10)
    for a in (a1, a2):
        a.grid(True, axis="x", alpha=0.3)
    fig.suptitle("Regions (mappings of /proc/PID/maps): %s%s" % (trace_title(tr), (" — " + what) if what else ""),
                 fontsize=11)
    fig.tight_layout()
    save(fig, out)


def add_args(p):
    options.add_report_args(p, windows=False, top=15)
    add_filter_args(p)


def run(args, traces):
    from .cli import need_samples
    tr = traces[0]
    sel = make_selection(tr, args)
    rep, regs = compute(tr, args, sel)
    need_samples(rep["samples"], tr, sel, "regions")
    out = args.output or "regions.png"
    plot(tr, regs, out, options.top(args, 15), sel.what)
    print(format_table(regs, words=tr.words), file=sys.stderr)
    return [out]
