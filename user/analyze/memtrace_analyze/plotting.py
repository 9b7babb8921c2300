"""Matplotlib setup (Agg, no display) and helpers shared by the figures.

Figures are matplotlib Figures on an Agg canvas made here (figure,
subplots), without pyplot: nothing is shown, and pyplot's import is a
tenth of the time a report takes.  save writes PNGs with png.encode."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.artist  # noqa: E402

# Every Artist subclass matplotlib defines at import builds the docstring of
# its set() method by inspecting all its setters (artist.kwdoc): a sixth of
# the time importing matplotlib takes, for help() text nothing here shows.
if callable(getattr(matplotlib.artist, "kwdoc", None)):
    matplotlib.artist.kwdoc = lambda artist: ""

import matplotlib.figure  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.ticker import Locator, LogFormatter, LogLocator  # noqa: E402

from . import png  # noqa: E402
from .units import fmt_count  # noqa: E402

rcParams = matplotlib.rcParams
rcParams.update({
    "figure.dpi": 110,
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


class Canvas(FigureCanvasAgg):
    """Agg, with PNGs written by png.encode (rows unfiltered) instead of
    Pillow (every row filtered five ways to pick one)."""

    def print_png(self, filename_or_obj, *, metadata=None, pil_kwargs=None, **_):
        # **_: what savefig passes every canvas outside matplotlib (dpi,
        # facecolor...): already applied to the figure it draws
        FigureCanvasAgg.draw(self)
        texts = {"Software": "Matplotlib version%s, https://matplotlib.org/" % matplotlib.__version__}
        texts.update(metadata or {})
        png.write(filename_or_obj, self.buffer_rgba(), texts, self.figure.dpi)


def figure(**kw):
    """A new figure (matplotlib.figure.Figure's arguments: figsize...) on a
    Canvas."""
    fig = matplotlib.figure.Figure(**kw)
    Canvas(fig)
    return fig


def subplots(nrows=1, ncols=1, *, sharex=False, sharey=False, squeeze=True, subplot_kw=None,
             gridspec_kw=None, **fig_kw):
    """(figure, axes) as pyplot.subplots makes them."""
    fig = figure(**fig_kw)
    axs = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=squeeze,
                       subplot_kw=subplot_kw, gridspec_kw=gridspec_kw)
    return fig, axs


def get_cmap(name):
    return matplotlib.colormaps[name]


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
    dpi = rcParams["savefig.dpi"]
    return fig.dpi if dpi == "figure" else dpi


def save(fig, path):
    """Writes fig as PNG; its title and every label go into the PNG's text
    chunks too (Title: the first, Description: all, one per line), so the
    words of a figure can be read back without looking at it."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    texts = figure_texts(fig)
    as_png = path.lower().endswith(".png")
    meta = {"Title": texts[0], "Description": "\n".join(texts)} if texts and as_png else None
    ticks_in_view(fig)
    bbox = "tight"
    if as_png and fig.get_layout_engine() is None:
        # the tight box from the figure as it stands, then one draw: "tight"
        # draws the figure once without output to find the box, then again
        # (no layout engine here moves anything between the two; the box is
        # measured with Agg's text extents, so PNG only)
        fig.set_dpi(save_dpi(fig))
        bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(rcParams["savefig.pad_inches"])
    fig.savefig(path, bbox_inches=bbox, metadata=meta)
    return path


def png_texts(path):
    """{key: text} of a PNG's text chunks (Title, Description, Software)."""
    from PIL import Image
    with Image.open(path) as im:
        return dict(im.text)


def empty_figure(path, title, message):
    fig, ax = subplots(figsize=(8, 3))
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
