"""wss: working-set size over time (Denning's WS(t, tau), valgrind-ws).

    memtrace-analyze wss TRACE -o wss.png [--tau 1M,10M] [--interval 1M] [--bucket 4K]

WS(t, tau) = number of distinct buckets accessed in (t - tau, t], evaluated
at t_k = start_time + k*T for k = 1 .. K, where t_K is the first t_k at or
after the last sample (the C engine, user/wss.c, does the same).  A sample
that goes back in time is clamped to the latest time seen.  Data WSS uses the
sampled data addresses, code WSS the instruction pointers (when recorded).

Peaks: valgrind-ws section 2.2, same parameters as user/peaks.c: EMA of the
series mu (alpha 0.1) and moving variance var; x is a peak when
x - mu > g*(c*sigma + (1-c)*mu), F = var/mu (Fano factor), c = 1 - exp(-F/2),
g = 1.0; while a peak lasts the statistics see mu + 0.1*(x - mu); detection
starts at the 5th value (warm-up 4).  A run of peak values is one peak,
reported at its largest value.
"""

import math
import shutil
import subprocess

import numpy as np

from .binning import log2_exact
from .select import add_filter_args, make_view
from .symbols import elf_type, executable_of
from .units import TimeAxis, fmt_bytes, fmt_time, parse_size, parse_time

PEAK_ALPHA, PEAK_G, PEAK_INFLUENCE, PEAK_WARMUP = 0.1, 1.0, 0.1, 4
DEFAULT_POINTS = 400


def n_reports(start, end, interval):
    return max(1, -(-(int(end) - int(start)) // int(interval)))


def wss_series(time, keys, start, interval, window, nrep):
    """WSS(t_k) for k = 1..nrep (numpy array of nrep distinct-key counts).

    Vectorised: sample at offset s (from start) counts for the reports
    k_lo = ceil(s/T) .. k_hi = floor((s + tau - 1)/T); per key the union of
    those intervals is taken after a stable sort by key (times stay in
    order), and a difference array turns the union starts/ends into sizes."""
    T, tau = int(interval), int(window)
    if T <= 0 or tau <= 0:
        raise ValueError("window and interval must be > 0")
    if time.size == 0:
        return np.zeros(nrep, dtype=np.int64)
    t = np.maximum.accumulate(time.astype(np.uint64))           # clamp reordering
    s = (t.astype(np.int64) - np.int64(start)) if start < 1 << 62 else (t - np.uint64(start)).astype(np.int64)
    klo = np.maximum(-(-s // T), 1)
    khi = np.minimum((s + (tau - 1)) // T, nrep)
    order = np.argsort(keys, kind="stable")
    k_sorted = keys[order]
    lo, hi = klo[order], khi[order]
    same = np.zeros(k_sorted.size, dtype=bool)
    same[1:] = k_sorted[1:] == k_sorted[:-1]
    # Within one key hi never decreases (times sorted), so the union so far
    # ends at the previous sample's hi.
    prev_hi = np.empty_like(hi)
    prev_hi[0] = 0
    prev_hi[1:] = hi[:-1]
    eff = np.where(same, np.maximum(lo, prev_hi + 1), lo)
    ok = eff <= hi
    diff = np.bincount(eff[ok], minlength=nrep + 2)[:nrep + 2] - np.bincount(hi[ok] + 1, minlength=nrep + 2)[:nrep + 2]
    return np.cumsum(diff)[1:nrep + 1]


def detect_peaks(series, alpha=PEAK_ALPHA, g=PEAK_G, influence=PEAK_INFLUENCE, warmup=PEAK_WARMUP):
    """[(index of max, first, last, value)] like user/peaks.c (one loop over
    the WSS points, not over samples)."""
    peaks = []
    mu = var = 0.0
    in_peak = False
    for i, v in enumerate(series):
        x = float(v)
        is_peak = False
        if i == 0:
            mu, var = x, 0.0
        elif i >= warmup:
            sigma = math.sqrt(var)
            fano = var / mu if mu > 0 else 0.0
            c = 1 - math.exp(-fano / 2)
            thr = g * (c * sigma + (1 - c) * mu)
            is_peak = x - mu > thr and x > 0
        if is_peak:
            if not in_peak:
                peaks.append([i, i, i, int(v)])
            else:
                p = peaks[-1]
                p[2] = i
                if int(v) > p[3]:
                    p[3], p[0] = int(v), i
            x = mu + influence * (x - mu)
        in_peak = is_peak
        if i > 0:
            d = x - mu
            mu += alpha * d
            var = (1 - alpha) * (var + alpha * d * d)
    return [tuple(p) for p in peaks]


def nice_interval(span, points=DEFAULT_POINTS):
    raw = max(span / points, 1)
    e = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * e >= raw:
            return int(m * e)
    return int(10 * e)


class WssResult:
    def __init__(self, tr, bucket, interval, taus, end):
        self.bucket, self.interval, self.taus = bucket, interval, taus
        self.start = tr.start_time
        self.nrep = n_reports(self.start, end, interval)
        self.times = self.start + interval * np.arange(1, self.nrep + 1, dtype=np.float64)
        self.data = {}
        self.code = {}
        self.peaks = {}      # (kind, tau) -> list
        self.total_data = 0
        self.total_code = 0


def compute(tr, bucket=None, interval=None, taus=None, end=None):
    bucket = bucket or tr.bucket_default
    shift = log2_exact(bucket)
    last = int(tr.time.max()) if tr.n else tr.start_time
    end = last if end is None else end
    if interval is None:
        interval = nice_interval(max(end - tr.start_time, 1))
    taus = taus or [interval]
    res = WssResult(tr, bucket, interval, taus, end)
    dkeys = tr.addr >> np.uint64(shift)
    ip = tr.ip
    ckeys = ip >> np.uint64(shift) if ip is not None else None
    if ckeys is not None:
        keep = ip != 0
        ctime, ckeys = tr.time[keep], ckeys[keep]
    for tau in taus:
        res.data[tau] = wss_series(tr.time, dkeys, res.start, interval, tau, res.nrep)
        res.peaks[("data", tau)] = detect_peaks(res.data[tau])
        if ckeys is not None and ckeys.size:
            res.code[tau] = wss_series(ctime, ckeys, res.start, interval, tau, res.nrep)
            res.peaks[("code", tau)] = detect_peaks(res.code[tau])
    res.total_data = int(np.unique(dkeys).size) if tr.n else 0
    res.total_code = int(np.unique(ckeys).size) if ckeys is not None and ckeys.size else 0
    return res


def peak_locations(tr, res, tau, peaks):
    """For each peak: what was accessed in (t - tau, t] at the peak: the
    most-sampled instruction (symbolised with addr2line when the binary is
    readable) and the most-accessed data mapping."""
    out = []
    want = []
    if len(tr.maps) or not peaks:
        ms = tr.maps
    else:
        from .regions import pseudo_maps
        ms = pseudo_maps(tr)
    for (i, first, last, value) in peaks:
        t = int(res.times[i])
        lo = np.searchsorted(tr.time, np.uint64(max(t - tau, 0)), side="right")
        hi = np.searchsorted(tr.time, np.uint64(t), side="right")
        info = {"index": i, "time": t, "wss_buckets": value, "samples": int(hi - lo),
                "from": int(res.times[first]), "to": int(res.times[last])}
        if hi > lo:
            idx = ms.lookup(tr.addr[lo:hi])
            vals, cnt = np.unique(idx, return_counts=True)
            j = int(np.argmax(cnt))
            m = ms.maps[vals[j]] if vals[j] >= 0 else None
            info["data_mapping"] = m.label if m else "unmapped"
            info["data_share"] = float(cnt[j]) / float(hi - lo)
            if tr.ip is not None:
                ips, icnt = np.unique(tr.ip[lo:hi], return_counts=True)
                ipv = int(ips[int(np.argmax(icnt))])
                if ipv:
                    info["ip"] = ipv
                    want.append(ipv)
        out.append(info)
    syms = symbolize(tr, want)
    for info in out:
        if "ip" in info:
            info["location"] = syms.get(info["ip"], "%#x" % info["ip"])
    return out


def symbolize(tr, ips):
    """{ip: 'func (file:line)' or 'binary+0xoff'} via addr2line, best effort."""
    out = {}
    by_file = {}
    guess = None if len(tr.maps) else executable_of(tr)
    for ip in set(ips):
        m = tr.maps.find(ip)
        if m is None:
            if guess:   # no MAPS: a non-PIE executable runs at its link addresses
                by_file.setdefault(guess, []).append((ip, ip))
            continue
        out[ip] = "%s+%#x" % (m.short, ip - m.start + m.offset)
        if m.name.startswith("/"):
            # ELF address: ip itself for non-PIE executables (ET_EXEC, loaded
            # at the link address), file-offset based for PIE and libraries.
            et = elf_type(m.name)
            if et is None:
                continue
            elf_addr = ip if et == 2 else ip - m.start + m.offset
            by_file.setdefault(m.name, []).append((ip, elf_addr))
    a2l = shutil.which("addr2line")
    if not a2l:
        return out
    for path, pairs in by_file.items():
        try:
            r = subprocess.run([a2l, "-f", "-s", "-C", "-e", path] + ["%#x" % a for _, a in pairs],
                               capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            continue
        lines = r.stdout.splitlines()
        if r.returncode != 0 or len(lines) != 2 * len(pairs):
            continue
        for k, (ip, _) in enumerate(pairs):
            fn, loc = lines[2 * k], lines[2 * k + 1]
            if fn != "??":
                out[ip] = "%s (%s)" % (fn, loc) if not loc.startswith("??") else fn
    return out


def plot(tr, res, out, title_extra=""):
    from .plotting import byte_axis, plt, save, trace_title
    has_code = bool(res.code)
    fig, axes = plt.subplots(2 if has_code else 1, 1, figsize=(12, 7.5 if has_code else 5.2), sharex=True,
                             squeeze=False)
    tax = TimeAxis(tr.time_unit, res.times[-1] - res.start if res.nrep else 1)
    x = tax(res.times - res.start)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    allpeaks = []
    for row, (kind, series) in enumerate([("data", res.data)] + ([("code", res.code)] if has_code else [])):
        ax = axes[row][0]
        ymax = 1
        for j, tau in enumerate(res.taus):
            y = series[tau] * res.bucket
            ymax = max(ymax, float(y.max()) if y.size else 1)
            ax.plot(x, y, lw=1.1, color=colours[j % len(colours)],
                    label="τ = %s" % fmt_time(tau, tr.time_unit), drawstyle="steps-post" if res.nrep < 80 else None)
            if j == 0:
                for (i, first, last, value) in res.peaks.get((kind, tau), []):
                    num = len(allpeaks)
                    allpeaks.append((num, kind, tau, i))
                    ax.annotate(str(num), (x[i], value * res.bucket), xytext=(0, 9), textcoords="offset points",
                                ha="center", fontsize=8, color="black",
                                bbox=dict(boxstyle="square,pad=0.2", fc="white", ec="black", lw=0.8))
                    ax.plot([x[i]], [value * res.bucket], "v", color="black", ms=4)
                    if last > first:
                        ax.axvspan(x[first], x[last], color="0.5", alpha=0.08, lw=0)
        ax.set_ylim(0, ymax * 1.18)
        ax.set_ylabel("%s working set" % ("data" if kind == "data" else "code"))
        byte_axis(ax.yaxis, ymax * 1.18)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize=8, title="window", title_fontsize=8)
        if tr.header.get("sample_period", "1") not in ("1", ""):
            ax.text(0.995, 0.97, "distinct sampled buckets × %s" % fmt_bytes(res.bucket), transform=ax.transAxes,
                    ha="right", va="top", fontsize=7, color="0.35")
    axes[-1][0].set_xlabel(tax.label())
    axes[0][0].set_title("Working-set size over time: %s\nbucket %s, evaluated every %s%s; numbered boxes = detected peaks (shaded: their extent)"
                         % (trace_title(tr), fmt_bytes(res.bucket), fmt_time(res.interval, tr.time_unit), title_extra))
    save(fig, out)
    return allpeaks


def summary(res, kind="data"):
    series = res.data if kind == "data" else res.code
    out = {}
    for tau, s in series.items():
        out[tau] = {"avg": float(s.mean()) if s.size else 0.0, "peak": int(s.max()) if s.size else 0}
    return out


def add_args(p):
    p.add_argument("--tau", default=None,
                   help="window(s) τ, comma separated (ns traces: 10ms,100ms; insn: 1M,10M); default: T and 10·T")
    p.add_argument("--interval", default=None, help="evaluation interval T (default: span/400, rounded)")
    p.add_argument("--bucket", default=None, help="bucket size (default: trace's bucket_default, 4K)")
    p.add_argument("--peaks", default=None, help="also write the peak list (text) to this file")
    p.add_argument("--csv", default=None,
                   help="also write the series to this CSV file: time (from start), then wss_data and "
                        "wss_code in buckets per τ")
    add_filter_args(p)


def params(tr, args):
    unit = tr.time_unit
    bucket = parse_size(args.bucket) if getattr(args, "bucket", None) else tr.bucket_default
    last = int(tr.time.max()) if tr.n else tr.start_time
    interval = parse_time(args.interval, unit) if getattr(args, "interval", None) else \
        nice_interval(max(last - tr.start_time, 1))
    if interval <= 0:
        raise ValueError("--interval must be > 0")
    if getattr(args, "tau", None):
        taus = [parse_time(x, unit) for x in args.tau.split(",") if x.strip()]
        if any(t <= 0 for t in taus):
            raise ValueError("--tau must be > 0")
    else:
        taus = [interval, 10 * interval]
    return bucket, interval, taus


def peak_table(tr, res):
    rows = []
    num = 0
    for kind in ("data", "code"):
        if kind == "code" and not res.code:
            continue
        tau = res.taus[0]
        pk = res.peaks.get((kind, tau), [])
        for info in peak_locations(tr, res, tau, pk):
            info["number"] = num
            info["kind"] = kind
            num += 1
            rows.append(info)
    return rows


def format_peaks(tr, res, rows):
    lines = ["peaks (τ = %s, bucket %s):" % (fmt_time(res.taus[0], tr.time_unit), fmt_bytes(res.bucket))]
    if not rows:
        lines.append("  none detected")
    for r in rows:
        span = "" if r["from"] == r["to"] else " (peak from %s to %s)" % (
            fmt_time(r["from"] - res.start, tr.time_unit), fmt_time(r["to"] - res.start, tr.time_unit))
        lines.append("  [%d] %s WSS %s at %s%s: %s%s" % (
            r["number"], r["kind"], fmt_bytes(r["wss_buckets"] * res.bucket),
            fmt_time(r["time"] - res.start, tr.time_unit), span,
            r.get("location", "no ip recorded"),
            ("; data mostly %s (%.0f%%)" % (r["data_mapping"], 100 * r["data_share"])) if "data_mapping" in r else ""))
    return "\n".join(lines)


def run(args, traces):
    from .cli import need_samples
    tr = traces[0]
    view = make_view(tr, args)
    need_samples(view.tr, "wss")
    bucket, interval, taus = params(view.tr, args)
    res = compute(view.tr, bucket, interval, taus)
    out = args.output or "wss.png"
    plot(view.tr, res, out, (" — " + view.what) if view.what else "")
    text = format_peaks(view.tr, res, peak_table(view.tr, res))
    import sys
    print(text, file=sys.stderr)
    if args.peaks:
        with open(args.peaks, "w") as f:
            f.write(text + "\n")
    outs = [out]
    if args.csv:
        write_csv(res, args.csv)
        outs.append(args.csv)
    return outs


def write_csv(res, path):
    cols = [("time", (res.times - res.start).astype(np.int64))]
    for tau in res.taus:
        cols.append(("wss_data_tau%d" % tau, res.data[tau]))
        if tau in res.code:
            cols.append(("wss_code_tau%d" % tau, res.code[tau]))
    with open(path, "w") as f:
        f.write(",".join(c[0] for c in cols) + "\n")
        for row in zip(*(c[1].tolist() for c in cols)):
            f.write(",".join(str(v) for v in row) + "\n")
