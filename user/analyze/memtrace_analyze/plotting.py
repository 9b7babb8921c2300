"""Matplotlib setup (Agg, no display) and helpers shared by the figures."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({
    "figure.dpi": 100,
    "savefig.dpi": 110,
    "font.size": 9,
    "axes.titlesize": 11,
    "axes.grid": False,
    "image.interpolation": "nearest",
})


def trace_title(tr):
    """'dbquery — valgrind-lackey, 1 in 100 accesses sampled'."""
    comm = tr.meta("target_comm") or tr.name
    src = tr.meta("source") or tr.meta("backend") or "?"
    ev = tr.meta("event", "")
    per = tr.meta("sample_period", "?")
    rnd = " (randomised)" if tr.meta("random_period") == "1" else ""
    s = "%s — %s" % (comm, src)
    if ev and ev != src:
        s += " / %s" % ev
    s += ", 1 in %s events sampled%s" % (per, rnd) if per not in ("1", "?") else ", every event"
    return s


def save(fig, path):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


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
