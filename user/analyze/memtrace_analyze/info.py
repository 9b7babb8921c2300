"""info: a text summary of a trace (also the summary of `report`).

    memtrace-analyze info TRACE [--json]

Counts come from memtrace_trace_info, the WSS figures from
memtrace_report_compute; the recorder's live WSS (WINDOWS chunks) is
checked against a report computed with the same window, interval and bucket.
"""

import json
import os
import sys

import numpy as np

from . import lib, options
from .units import fmt_bytes, fmt_count, fmt_time

META = ("backend", "source", "event", "sees", "random_period", "host", "kernel", "cpu_model", "command",
        "target_comm", "target_pid", "start_realtime", "aggregate")


def windows_check(tr):
    """One dict per (window, interval, bucket_shift) of the WINDOWS rows:
    how many recorded points equal the library's series at the same time."""
    groups = {}
    for row in tr.window_rows():
        (window, interval, shift, time, wss_data, _code, n, f1, f2, has_counts) = row
        groups.setdefault((window, interval, shift), []).append((time, wss_data, (n, f1, f2) if has_counts else None))
    out = []
    for (window, interval, shift), rows in groups.items():
        entry = {"window": int(window), "interval": int(interval), "bucket": 1 << shift, "points": len(rows)}
        if interval == 0 or window == 0 or not rows or not tr.n or not 6 <= shift <= 21:
            entry["matches"] = 0
            out.append(entry)
            continue
        try:    # the rows' window and interval come from the file: the library bounds them
            rep = lib.report(tr.path, bucket=1 << shift, window=window, interval=interval, top=1)
        except lib.MemtraceError as e:
            entry["matches"] = 0
            entry["error"] = str(e)
            out.append(entry)
            continue
        times, wss, est = rep["data"]["time"], rep["data"]["wss"], rep["data_est"]
        got, counts = [], []
        for t, v, c in rows:   # the series is sorted by time: no dict of every row
            rel = t - tr.start_time
            i = int(np.searchsorted(times, np.uint64(rel))) if 0 <= rel < 1 << 64 else len(times)
            if i < len(times) and int(times[i]) == rel:
                got.append((int(wss[i]), v))
                if c is not None:   # WINDOWS2: the estimator's n, f1, f2 too
                    counts.append(((int(est["samples"][i]), int(est["f1"][i]), int(est["f2"][i])), c))
            elif 0 < rel <= rep["intervals"] * interval and rel % interval == 0:
                got.append((0, v))  # sparse series: no sample in the window, not a row
                if c is not None:
                    counts.append(((0, 0, 0), c))
        entry["compared"] = len(got)
        entry["matches"] = sum(1 for a, b in got if a == b)
        entry["max_abs_diff"] = max((abs(a - b) for a, b in got), default=0)
        if counts:
            entry["counts_compared"] = len(counts)
            entry["counts_match"] = sum(1 for a, b in counts if a == tuple(int(x) for x in b))
        out.append(entry)
    return out


def summarize(tr, res=None):
    """res: a wss.WssResult (the report's numbers) or None."""
    i = tr.info
    s = {"file": tr.path, "bytes": os.path.getsize(tr.path) if os.path.exists(tr.path) else None,
         "format": "%d.%d" % (i.version_major, i.version_minor), "chunks": i.chunks,
         "sample_period": tr.sample_period, "time_unit": tr.time_unit}
    for k in META:
        s[k] = tr.meta(k)
    s["target_comm"] = tr.target_comm or s["target_comm"]
    s["sample_class"] = tr.words["sample_class"]
    s["measure"] = tr.words["measure"]
    s.update({
        "samples": i.samples, "start_time": i.start_time, "end_time": i.end_time,
        "duration": i.end_time - i.start_time,
        "complete": bool(i.complete), "truncated_bytes": i.truncated_bytes,
        "end_reason": tr.end_meta("end_reason") or ("missing (cut short)" if not i.complete else "?"),
        "end_samples": tr.end_meta("samples"),
        "lost": i.lost, "throttled": i.throttled, "dropped": i.dropped,
        "threads": len(set((t[1], t[2]) for t in tr.threads())), "mappings": i.maps,
        # threads that left samples (the report's count; None: no thread ids); THREADS
        # records name only threads started while recording
        "threads_sampled": res.reps[0]["threads"] if res is not None else (0 if not i.samples else None),
        "columns": [c for c in lib.COLUMNS if tr.has_column(c)],
        "windows_check": windows_check(tr),
    })
    s["warnings"] = [] if i.complete else ["no END chunk: the recording was cut short"]
    if res is not None:
        r0 = res.reps[0]
        s["wss"] = {"bucket": res.bucket, "interval": res.interval, "total_data_buckets": r0["data"]["total"],
                    "total_code_buckets": r0["code"]["total"],
                    "data": {str(r["window"]): {"avg": r["data"]["avg"], "peak": r["data"]["peak"]}
                             for r in res.reps},
                    "code": {str(r["window"]): {"avg": r["code"]["avg"], "peak": r["code"]["peak"]}
                             for r in res.reps} if r0["have_ip"] else {},
                    # the library's blind windows of the first τ (report.h struct memtrace_blind)
                    "blind": dict(r0["blind"], window=r0["window"], intervals_all=r0["intervals"])}
        if estimated(tr):
            s["wss"]["data_est"] = {str(r["window"]): est_summary(r["data_est"]) for r in res.reps}
    return s


def estimated(tr):
    """Sampled accesses with N > 1: seen WSS is a floor, the library estimates the rest."""
    return (tr.sample_period or 1) > 1 and tr.words["sample_class"] == "sampled-access"


def est_summary(e):
    """The estimated data series' summaries and why windows are flagged (docs/accuracy.md)."""
    f = e["flags"]
    gaps = e["gaps"] if e["period"] > 1 else 0   # no sample in the window: < 100
    return {"avg": e["avg"], "avg_lo": e["avg_lo"], "avg_hi": e["avg_hi"], "p95": e["p95"], "peak": e["peak"],
            "total": e["total"], "total_lo": e["total_lo"], "total_hi": e["total_hi"],
            "windows": int(e["windows"]), "flagged": int(e["unreliable"]),
            "few_samples": int(((f & lib.EST_FEW_SAMPLES) != 0).sum()) + gaps,
            "mostly_unseen": int(((f & lib.EST_MOSTLY_UNSEEN) != 0).sum()),
            "not_counted": int(((f & lib.EST_NOT_COUNTED) != 0).sum())}


def format_est(w, u):
    """Lines of the estimated WSS under the seen one."""
    lines = []
    for tau, e in w.get("data_est", {}).items():
        why = ", ".join("%d %s" % (n, what) for n, what in ((e["few_samples"], "with < %d samples" % lib.EST_MIN_SAMPLES),
                                                            (e["mostly_unseen"], "mostly unseen"),
                                                            (e["not_counted"], "not counted")) if n)
        lines.append("WSS est.   τ=%s: avg %.1f [%.1f–%.1f], p95 %.1f, peak %.1f, total %.0f [%.0f–%.0f] buckets "
                     "(avg %s, total %s)" % (fmt_time(int(tau), u), e["avg"], e["avg_lo"], e["avg_hi"], e["p95"],
                                             e["peak"], e["total"], e["total_lo"], e["total_hi"],
                                             fmt_bytes(e["avg"] * w["bucket"]), fmt_bytes(e["total"] * w["bucket"])))
        if e["flagged"]:
            lines.append("unreliable %d of %d windows (%s): use a longer --window or a smaller sampling period"
                         % (e["flagged"], e["windows"], why))
    return lines


def format_summary(s, tr):
    """The summary as text lines."""
    u = tr.time_unit
    s = dict(s)
    for k, v in list(s.items()):
        if v is None and k not in ("end_samples", "bytes"):
            s[k] = "?"
    lines = [
        "trace      %s (%s, format %s, %d chunks)" % (s["file"], fmt_bytes(s["bytes"] or 0), s["format"], s["chunks"]),
        "target     %s (pid %s): %s" % (s["target_comm"], s["target_pid"], s["command"]),
        "source     %s/%s, event %s, 1 in %s sampled%s" % (s["backend"], s["source"], s["event"], s["sample_period"],
                                                       " (random period)" if s["random_period"] == "1" else ""),
    ]
    if s.get("sees"):
        lines.append("sees       %s" % s["sees"])
    lines.append("measures   %s (%s)" % (tr.words["samples"], s["sample_class"]))
    if s.get("aggregate") not in (None, "?"):
        lines.append("aggregated counts per bucket and %s interval (record --aggregate): no per-sample "
                     "addresses, times or threads" % fmt_time(int(s["aggregate"]), u))
    lines += [
        "machine    %s, kernel %s, %s" % (s["host"], s["kernel"], s["cpu_model"]),
        "samples    %d %s over a span of %s (%s; start to end), end: %s" % (
            s["samples"], tr.words["samples"], fmt_time(s["duration"], u), u, s["end_reason"]),
        "lost       %d lost, %d throttled, %d dropped" % (s["lost"], s["throttled"], s["dropped"]),
        "threads    %s with %s (distinct pid, tid), %d named by THREADS records; "
        "mappings %d; columns %s" % ("unknown" if s["threads_sampled"] is None else s["threads_sampled"],
                                     tr.words["samples"], s["threads"], s["mappings"], ",".join(s["columns"])),
    ]
    if s["end_samples"] is not None and str(s["end_samples"]) != str(s["samples"]):
        lines.append("NOTE       END chunk says %s samples, the file holds %d" % (s["end_samples"], s["samples"]))
    w = s.get("wss")
    if w:
        for kind in ("data", "code"):
            total = w["total_%s_buckets" % kind]
            for tau, v in w[kind].items():
                lines.append("%-10s τ=%s: avg/peak/total %.1f/%d/%d buckets (%s/%s/%s)" % (
                    "WSS " + kind if tr.words["wss"] == "WSS" else tr.words["%s_series" % kind], fmt_time(int(tau), u), v["avg"], v["peak"], total,
                    fmt_bytes(v["avg"] * w["bucket"]), fmt_bytes(v["peak"] * w["bucket"]),
                    fmt_bytes(total * w["bucket"])))
        lines += format_est(w, u)
        b = w.get("blind", {})
        if b.get("state") == "unknown":
            lines.append("blind      unknown: %s sees re-accesses only in its passes and this trace records none "
                         "(format < 1.3)" % s["source"])
        elif b.get("state") == "known":
            if b["gaps"]:
                lines.append("gaps       %d without a target (record --pidfile), %s in all" % (
                    b["gaps"], fmt_time(b["gap_time"], u)))
            if b["what"] or b["passes"]:
                lines.append("blind      %d of %d windows (τ=%s) saw no %s: not seen, not 0 (%d passes)" % (
                    b["intervals"], b["intervals_all"], fmt_time(b["window"], u), b["pass"], b["passes"]))
            else:
                lines.append("blind      %d of %d windows (τ=%s) overlap a gap without a target: not seen, "
                             "not 0" % (b["intervals"], b["intervals_all"], fmt_time(b["window"], u)))
    for c in s["windows_check"]:
        if "error" in c:
            lines.append("live WSS   recorder's WINDOWS series (τ=%s, T=%s): not recomputed: %s" % (
                fmt_time(c["window"], u), fmt_time(c["interval"], u), c["error"]))
        elif "compared" in c:
            lines.append("live WSS   recorder's WINDOWS series (τ=%s, T=%s, bucket %s): %d of %d points equal "
                         "the recomputation%s" % (fmt_time(c["window"], u), fmt_time(c["interval"], u),
                                                  fmt_bytes(c["bucket"]), c["matches"], c["compared"],
                                                  "" if c["matches"] == c["compared"]
                                                  else " (max difference %d buckets)" % c["max_abs_diff"]))
            if "counts_compared" in c:
                lines.append("live est.  WINDOWS2 counts (samples, f1, f2): %d of %d rows equal the recomputation"
                             % (c["counts_match"], c["counts_compared"]))
    for wmsg in s["warnings"]:
        lines.append("warning    %s" % wmsg)
    return "\n".join(lines)


def add_args(p):
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    options.add_report_args(p)


def run(args, traces):
    from . import wss as wssmod
    tr = traces[0]
    res = wssmod.compute(tr, args, None) if tr.n else None
    s = summarize(tr, res)
    if args.json:
        print(json.dumps(s, indent=1, default=str))
    else:
        print(format_summary(s, tr))
    if not tr.n:
        print("memtrace-analyze: %s: the trace holds no samples" % tr.name, file=sys.stderr)
    return []


__all__ = ["summarize", "format_summary", "windows_check", "fmt_count"]
