#!/usr/bin/python3
"""check_multiproc.py DIR ANALYZE - the checks of analyze_multiproc.sh.

DIR holds a.mtrace, b.mtrace, s.mtrace and what their workloads printed
(*.mtrace.out).  Runs every `memtracectl report` mode (text, --json,
--per-process, --pid, --series, --by-span, --span, --by-site) and compare,
and every memtrace-analyze verb (heatmap, wss, hot, regions, compare,
report, info, damon); each must exit 0 with non-empty output (damon: the
one-line error of a trace without DAMON regions; --by-site: of a trace
without ALLOCS).  The numbers are checked against the workloads' own
account: the pids they printed, K pages per mttree process, 8/16 pages per
usdtspans phase.  Plots: colour pixels in the plot area (an empty axes
frame has none; titles and axes are black and grey)."""

import csv
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

import matplotlib.image as mpimg
import numpy as np

D, ANALYZE = sys.argv[1], sys.argv[2]
MT = os.environ["MEMTRACECTL"]
PAGE = 4096
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL " + what, file=sys.stderr)


def run(argv, want_rc=0):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    check(p.returncode == want_rc, "%s: exit %d (want %d): %s" % (" ".join(argv[1:]), p.returncode, want_rc,
                                                                  p.stderr.strip()[-300:]))
    if want_rc == 0:
        check(p.stdout.strip() != "", "%s: no output" % " ".join(argv[1:]))
    return p


def mt(*args, want_rc=0):
    return run([MT] + list(args), want_rc)


def analyze(*args, want_rc=0):
    return run([sys.executable, ANALYZE] + list(args), want_rc)


def workload(name):
    """pids the command printed: sh, loop children, the exec chain; mttree workers."""
    text = open(os.path.join(D, name + ".mtrace.out")).read()
    shells = [int(x) for x in re.findall(r"^(?:sh|loop|chain)=(\d+)$", text, re.M)]
    chain = [int(x) for x in re.findall(r"^chain=(\d+)$", text, re.M)]
    workers = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in text.splitlines() if l.startswith("worker=")]
    return shells, chain, workers


def dump(trace):
    rows = list(csv.DictReader(mt("dump", trace).stdout.splitlines()))
    by_pid = defaultdict(list)
    for r in rows:
        by_pid[int(r["pid"])].append(int(r["addr"], 16))
    return rows, by_pid


def colour_pixels(png, right=1.0, skip_red=False):
    """Pixels of the left `right` part of the image that are neither grey
    (text, axes, grid) nor white; skip_red: nor the heatmap's red gap lines."""
    img = mpimg.imread(png)
    img = img[:, :int(img.shape[1] * right), :3]
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    coloured = img.max(axis=2) - img.min(axis=2) >= 0.12
    if skip_red:
        coloured &= ~((r > 0.6) & (g < 0.45) & (b < 0.45))
    return int(np.count_nonzero(coloured))


def plot_ok(png, what, least=20, **kw):
    check(os.path.isfile(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "%s: no PNG" % what)
    if os.path.isfile(png):
        n = colour_pixels(png, **kw)
        if os.environ.get("CHECK_VERBOSE"):
            print("%s: %d colour pixels" % (what, n))
        check(n >= least, "%s: %d colour pixels in the plot area (empty axes?)" % (what, n))


def blank_is_blank():
    """The measure itself: an empty axes frame with title, labels and grid
    has no colour pixels."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(12.8, 7.2))
    ax.set_title("Page faults over time")
    ax.set_xlabel("time since start (ms)")
    ax.set_ylabel("address")
    ax.grid(True)
    png = os.path.join(D, "blank.png")
    fig.savefig(png)
    plt.close(fig)
    n = colour_pixels(png)
    check(n == 0, "an empty figure has %d colour pixels: the plot check cannot tell" % n)


def main():
    a, b, s = (os.path.join(D, x + ".mtrace") for x in "abs")
    blank_is_blank()
    K = {"a": 24, "b": 96}
    shells, chain, workers = workload("a")
    check(len(shells) == 22 and len(chain) == 1, "work.sh printed %d shells" % len(shells))
    check(len(workers) == 5, "mttree printed %d workers" % len(workers))
    parent = [int(w["pid"]) for w in workers if w["kind"] == "parent"]
    # the exec chain keeps its pid: mttree's parent is the chain shell
    check(parent == chain, "mttree parent %s is not the exec'd chain shell %s" % (parent, chain))
    spawned = set(shells) | {int(w["pid"]) for w in workers}

    # -- memtracectl report, every mode --------------------------------
    rows, by_pid = dump(a)
    text = mt("report", a).stdout
    check("samples:" in text, "report (text) lacks the samples line")
    rep = json.loads(mt("report", "--json", a).stdout)
    check(rep["samples"] == len(rows), "report --json samples %d, dump rows %d" % (rep["samples"], len(rows)))
    pp = json.loads(mt("report", "--per-process", "--json", a).stdout)
    procs = {p["pid"]: p for p in pp["processes"]}
    missing = sorted(spawned - set(procs))
    check(not missing, "--per-process lacks pids the command spawned: %s" % missing)
    check(sum(p["samples"] for p in procs.values()) == rep["samples"],
          "--per-process samples do not add up to the report's")
    mt("report", "--per-process", a)
    for w in workers:
        pid, base, pages = int(w["pid"]), int(w["base"], 16), int(w["pages"])
        check(pages == K["a"], "worker %s: %d pages" % (w["worker"], pages))
        mine = {(x - base) // PAGE for x in by_pid[pid] if base <= x < base + pages * PAGE}
        check(mine == set(range(pages)), "worker %s (pid %d): first touches of pages %s, want 0..%d"
              % (w["worker"], pid, sorted(mine), pages - 1))
        p = procs.get(pid)
        if p:
            check(p["samples"] >= pages and p["wss_data"]["total"] >= pages,
                  "--per-process pid %d: %d samples, %d buckets < %d pages" % (
                      pid, p["samples"], p["wss_data"]["total"], pages))
        one = json.loads(mt("report", "--pid", str(pid), "--json", a).stdout)
        check(one["samples"] == len(by_pid[pid]) and one["wss_data"]["total"] >= pages,
              "report --pid %d: %d samples (dump %d), %d buckets" % (
                  pid, one["samples"], len(by_pid[pid]), one["wss_data"]["total"]))
    series = os.path.join(D, "a.csv")
    mt("report", "--series", series, a)
    srows = list(csv.DictReader(open(series)))
    total = sum(int(r["wss_data"]) for r in srows)
    # windows = intervals: each distinct bucket is in at least one window
    check(srows and total >= 5 * K["a"], "--series: %d rows, wss_data sums to %d < %d" % (
        len(srows), total, 5 * K["a"]))
    r = mt("report", "--by-site", a, want_rc=1)
    check(r.stderr.count("\n") == 1 and "memtracectl: " in r.stderr,
          "--by-site without ALLOCS: not one error line: %r" % r.stderr)

    # spans: 3 rounds of "scan 8" / "scan 16" / "idle" inside a shell
    mt("report", "--by-span", s)
    sj = json.loads(mt("report", "--by-span", "--json", s).stdout)
    groups = {g["label"]: g for g in sj["by_span"]}
    for label, pages in (("scan 8", 8), ("scan 16", 16), ("idle", 0)):
        g = groups.get(label)
        check(g is not None, "--by-span lacks %r: %s" % (label, sorted(groups)))
        if g:
            got = (g["spans"], g["samples"], g["max_buckets"])
            check(got == (3, 3 * pages, pages), "--by-span %r: spans, samples, max/span %s, want %s"
                  % (label, got, (3, 3 * pages, pages)))
    sp = json.loads(mt("report", "--span", "scan 16", "--json", s).stdout)
    check(sp["samples"] == 48, "--span 'scan 16': %d samples, want 48" % sp["samples"])

    # compare: b's workers touch 96 pages where a's touch 24
    cj = json.loads(mt("compare", a, b, "--json").stdout)
    t = cj["regions_total"]
    grow = t["b_touched"] - t["a_touched"]
    want = 5 * (K["b"] - K["a"]) * PAGE
    check(grow >= 0.8 * want, "compare: touched grew by %d bytes, the workers add %d" % (grow, want))
    mt("compare", a, b)
    cs = json.loads(mt("compare", s, s, "--json").stdout)
    check(all(x["a_samples"] == x["b_samples"] for x in cs["spans"]) and cs["spans"],
          "compare s s: span rows differ")
    mt("compare", s, s, "--by-span")

    # -- memtrace-analyze, every verb ---------------------------------
    out = lambda n: os.path.join(D, n)  # noqa: E731
    analyze("heatmap", "-o", out("heat.png"), a)  # crashed 3/3 before spaces.h's fix
    plot_ok(out("heat.png"), "heatmap", right=0.85, skip_red=True)
    w = workers[1]
    analyze("heatmap", "--pid", w["pid"], "-o", out("heat-pid.png"), a)
    plot_ok(out("heat-pid.png"), "heatmap --pid %s" % w["pid"], least=5, right=0.85, skip_red=True)
    analyze("heatmap", "--span", "scan 16", "-o", out("heat-span.png"), s)
    plot_ok(out("heat-span.png"), "heatmap --span", least=5, right=0.85, skip_red=True)
    analyze("wss", "--csv", out("wss.csv"), "-o", out("wss.png"), a)
    plot_ok(out("wss.png"), "wss")
    wrows = list(csv.DictReader(open(out("wss.csv"))))
    col = [c for c in wrows[0] if c.startswith("wss_data")][0] if wrows else None
    wtotal = sum(int(float(r[col])) for r in wrows) if col else 0
    check(wtotal >= 5 * K["a"], "wss --csv: data WSS sums to %d < %d" % (wtotal, 5 * K["a"]))
    analyze("hot", "-o", out("hot.png"), a)
    plot_ok(out("hot.png"), "hot")
    analyze("regions", "-o", out("regions.png"), a)
    plot_ok(out("regions.png"), "regions")
    analyze("compare", "-o", out("cmp.png"), a, b)
    plot_ok(out("cmp.png"), "compare")
    analyze("compare", "--by-span", "-o", out("cmp-span.png"), s, s)
    plot_ok(out("cmp-span.png"), "compare --by-span")
    analyze("report", "-o", out("rep"), a)
    html = out("rep/index.html")
    check(os.path.isfile(html) and os.path.getsize(html) > 1000, "report: no index.html")
    for png in ("heatmap.png", "wss.png", "hot.png", "regions.png"):
        plot_ok(out("rep/" + png), "report " + png, right=0.85 if png == "heatmap.png" else 1.0,
                skip_red=png == "heatmap.png")
    info = json.loads(analyze("info", "--json", a).stdout)
    check(info["samples"] == len(rows), "info --json: %d samples, dump %d" % (info["samples"], len(rows)))
    analyze("info", a)
    r = analyze("damon", "-o", out("damon.png"), a, want_rc=2)
    check("no DAMON regions" in r.stderr and r.stderr.strip().count("\n") == 0,
          "damon on a page-fault trace: %r" % r.stderr)

    print("%d checks failed" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
