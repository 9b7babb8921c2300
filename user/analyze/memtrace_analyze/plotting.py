"""Matplotlib setup (Agg, no display) and helpers shared by the figures."""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import Locator, LogFormatter, LogLocator  # noqa: E402

from .units import fmt_count  # noqa: E402

plt.rcParams.update({
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "font.size": 9,
    "axes.titlesize": 11,
    "axes.grid": False,
    "image.interpolation": "nearest",
    # titles at a fixed height above the axes: matplotlib otherwise moves each
    # one above any tick labels on top (there are none here), measuring every
    # axis' ticks for it at each draw, a fifth of the time a report took
    "axes.titley": 1.0,
})


def trace_title(tr):
    """'dbquery — valgrind-lackey, 1 in 100 events sampled' (the target by
    its own name: what it became after exec)."""
    comm = tr.target_comm or tr.name
    src = tr.meta("source") or tr.meta("backend") or "?"
    ev = tr.meta("event", "")
    per = tr.meta("sample_period", "?")
    rnd = " (randomised)" if tr.meta("random_period") == "1" else ""
    s = "%s — %s" % (comm, src)
    if src == "damon":
        return s + " regions (region-level)"
    if ev and ev != src:
        s += " / %s" % ev
    s += ", 1 in %s events sampled%s" % (per, rnd) if per not in ("1", "?") else ", every event"
    return s


def cap(text):
    """First letter upper case: 'page faults' -> 'Page faults'."""
    return text[:1].upper() + text[1:]


def figure_texts(fig):
    """The figure's words in drawing order: the suptitle, then per axes its
    title, x and y labels and legend title and entries (a colorbar is an
    axes: its label is there too)."""
    out = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        out.append(fig._suptitle.get_text())
    for ax in fig.axes:
        out += [t for t in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) if t]
        leg = ax.get_legend()
        if leg is not None:
            out += [t.get_text() for t in [leg.get_title()] + list(leg.get_texts()) if t.get_text()]
    return out


class InView(Locator):
    """Another locator's ticks, those outside the axis' view left out.
    Matplotlib makes a tick (two lines, two labels, a grid line) for every
    location its locator gives and only then drops those outside the view;
    a log axis' minor locator gives eight a decade over several decades
    beyond it: 56 minor ticks made for 18 drawn on each log axis of a
    one-sample trace's hot figure, most of the time it took to draw."""

    def __init__(self, inner):
        self.inner = inner

    def set_axis(self, axis):
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def __call__(self):
        lo, hi = sorted(self.axis.get_view_interval())
        eps = (hi - lo) * 1e-9
        return [v for v in self.inner() if lo - eps <= v <= hi + eps]

    def tick_values(self, vmin, vmax):
        return self.inner.tick_values(vmin, vmax)

    def view_limits(self, vmin, vmax):
        return self.inner.view_limits(vmin, vmax)

    def nonsingular(self, v0, v1):
        return self.inner.nonsingular(v0, v1)


class CountLogFormatter(LogFormatter):
    """A log axis' labels as plain counts (0.1, 1, 10, 100, 1k, 10k, 1M,
    minor ones 2, 5, 20 where matplotlib labels them) instead of
    matplotlib's 10^k: each of those is a TeX expression parsed on its own,
    a tenth of the time a report took to draw."""

    def _num_to_string(self, x, vmin, vmax):
        return fmt_count(x)


def count_log_axis(ax, which):
    """ax's x or y axis (which) on a log scale of counts: labelled by
    CountLogFormatter instead of the scale's 10^k, minor ticks at 2 and 5
    times each power of ten (not all eight)."""
    getattr(ax, "set_%sscale" % which)("log")
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_major_formatter(CountLogFormatter())
    axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
    axis.set_minor_formatter(CountLogFormatter(labelOnlyBase=False))


def ticks_in_view(fig):
    """Every axis of fig draws only the ticks in its view (InView)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for get, put in ((axis.get_major_locator, axis.set_major_locator),
                             (axis.get_minor_locator, axis.set_minor_locator)):
                loc = get()
                if not isinstance(loc, InView):
                    put(InView(loc))


def save_dpi(fig):
    """The dots per inch fig is saved at (savefig.dpi; "figure": its own)."""
    dpi = plt.rcParams["savefig.dpi"]
    return fig.dpi if dpi == "figure" else dpi


def save(fig, path):
    """Writes fig as PNG; its title and every label go into the PNG's text
    chunks too (Title: the first, Description: all, one per line), so the
    words of a figure can be read back without looking at it."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    texts = figure_texts(fig)
    png = path.lower().endswith(".png")
    meta = {"Title": texts[0], "Description": "\n".join(texts)} if texts and png else None
    # zlib level 1: a third of the default's time for a heatmap, about the same size
    kw = {"pil_kwargs": {"compress_level": 1}} if png else {}
    ticks_in_view(fig)
    bbox = "tight"
    if png and fig.get_layout_engine() is None:
        # the tight box from the figure as it stands, then one draw: "tight"
        # draws the figure once without output to find the box, then again
        # (no layout engine here moves anything between the two; the box is
        # measured with Agg's text extents, so PNG only)
        fig.set_dpi(save_dpi(fig))
        bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(plt.rcParams["savefig.pad_inches"])
    fig.savefig(path, bbox_inches=bbox, metadata=meta, **kw)
    plt.close(fig)
    return path


class Painter:
    """Draws figures in forked processes while the caller goes on (report's
    four figures are independent once the numbers are computed: on two
    cores a report takes the time of two).  draw(fn, *args) runs fn (which
    writes its figure) in a child, at most jobs - 1 children at a time
    besides the caller; wait() waits for them all.  A child that fails is
    run again in the caller, which then raises what it raised.  jobs: the
    CPUs this process may use, MEMTRACE_ANALYZE_JOBS when set (1: no
    children, everything drawn in order here)."""

    def __init__(self, jobs=None):
        if jobs is None:
            env = os.environ.get("MEMTRACE_ANALYZE_JOBS", "")
            jobs = int(env) if env.isdigit() and int(env) > 0 else len(os.sched_getaffinity(0))
        self.jobs = jobs
        self.running = []

    def draw(self, fn, *args, **kw):
        if self.jobs <= 1:
            fn(*args, **kw)
            return
        while len(self.running) >= self.jobs - 1:
            self._reap(self.running.pop(0))
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:    # the child: draw, never return into the caller's code
            rc = 1
            try:
                fn(*args, **kw)
                rc = 0
            finally:
                os._exit(rc)
        self.running.append((pid, fn, args, kw))

    def _reap(self, job):
        pid, fn, args, kw = job
        _, status = os.waitpid(pid, 0)
        if status != 0:
            fn(*args, **kw)     # again here: its error (or the figure) is the caller's

    def wait(self):
        while self.running:
            self._reap(self.running.pop(0))


def png_texts(path):
    """{key: text} of a PNG's text chunks (Title, Description, Software)."""
    from PIL import Image
    with Image.open(path) as im:
        return dict(im.text)


def empty_figure(path, title, message):
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.set_axis_off()
    ax.set_title(title)
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=12, transform=ax.transAxes)
    return save(fig, path)


def byte_axis(axis_obj, vmax, nticks=6):
    """Ticks at round binary sizes (1, 2, 4, 8... × KiB/MiB/GiB) and labels
    in those units, for an axis that shows bytes from 0 to vmax."""
    from matplotlib.ticker import FuncFormatter, MultipleLocator

    from .units import fmt_bytes
    vmax = max(float(vmax), 1.0)
    step = 1.0
    for s in (2 ** e * m for e in range(0, 60, 10) for m in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)):
        step = s
        if vmax / s <= nticks:
            break
    axis_obj.set_major_locator(MultipleLocator(step))
    axis_obj.set_major_formatter(FuncFormatter(lambda v, _: fmt_bytes(v, 1) if v > 0 else "0"))
