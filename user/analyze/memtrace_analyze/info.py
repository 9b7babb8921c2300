"""info: a text summary of a trace (also the summary of `report`).

    memtrace-analyze info TRACE [--json]
"""

import json
import os

import numpy as np

from . import wss as wssmod
from .units import fmt_bytes, fmt_count, fmt_time


def windows_check(tr):
    """Recomputes the recorder's live WSS series (WINDOWS chunks) from the
    samples; returns one dict per (window, interval, bucket_shift)."""
    groups = {}
    for w in tr.windows:
        key = (w["window"], w["interval"], w["bucket_shift"])
        groups.setdefault(key, []).append(w)
    out = []
    for (window, interval, shift), ws in groups.items():
        t = np.concatenate([w["time"] for w in ws])
        rec = np.concatenate([w["wss_data"] for w in ws]).astype(np.int64)
        entry = {"window": int(window), "interval": int(interval), "bucket": 1 << shift, "points": int(t.size)}
        if interval == 0 or window == 0 or t.size == 0 or not tr.n:
            entry["matches"] = 0
            out.append(entry)
            continue
        k = (t.astype(np.int64) - tr.start_time) // int(interval)
        nrep = int(max(k.max(), 1))
        mine = wssmod.wss_series(tr.time, tr.addr >> np.uint64(shift), tr.start_time, interval, window, nrep)
        valid = (k >= 1) & (k <= nrep)
        got = mine[k[valid] - 1]
        entry["matches"] = int((got == rec[valid]).sum())
        entry["compared"] = int(valid.sum())
        entry["max_abs_diff"] = int(np.abs(got - rec[valid]).max()) if valid.any() else 0
        out.append(entry)
    return out


def summarize(tr, wres=None):
    h = tr.header
    lost = sum(x[2] for x in tr.lost)
    throttled = sum(x[3] for x in tr.lost)
    s = {
        "file": tr.path, "bytes": os.path.getsize(tr.path) if os.path.exists(tr.path) else None,
        "format": "%d.%d" % tr.version, "chunks": tr.chunks, "warnings": list(tr.warnings),
        "backend": h.get("backend"), "source": h.get("source"), "event": h.get("event"),
        "sees": h.get("sees"), "sample_period": tr.sample_period, "random_period": h.get("random_period"),
        "time_unit": tr.time_unit, "host": h.get("host"), "kernel": h.get("kernel"),
        "cpu_model": h.get("cpu_model"), "command": h.get("command"), "target_comm": h.get("target_comm"),
        "target_pid": h.get("target_pid"), "start_realtime": h.get("start_realtime"),
        "samples": tr.n, "start_time": tr.start_time, "end_time": tr.end_time,
        "duration": tr.end_time - tr.start_time,
        "end_reason": (tr.end or {}).get("end_reason", "missing (cut short)"),
        "end_samples": (tr.end or {}).get("samples"),
        "lost": int((tr.end or {}).get("lost", lost) or 0), "throttled": int((tr.end or {}).get("throttled", throttled) or 0),
        "dropped": int((tr.end or {}).get("dropped", 0) or 0),
        "threads": len(set((t[1], t[2]) for t in tr.threads)) or (int(np.unique(tr.tid).size) if tr.n else 0),
        "mappings": len(tr.maps), "columns": sorted(tr.columns.keys()),
        "windows_check": windows_check(tr),
    }
    if wres is not None:
        s["wss"] = {"bucket": wres.bucket, "interval": wres.interval, "total_data_buckets": wres.total_data,
                    "total_code_buckets": wres.total_code,
                    "data": {str(k): v for k, v in wssmod.summary(wres, "data").items()},
                    "code": {str(k): v for k, v in wssmod.summary(wres, "code").items()}}
    return s


def format_summary(s, tr):
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
    lines += [
        "machine    %s, kernel %s, %s" % (s["host"], s["kernel"], s["cpu_model"]),
        "samples    %d over %s (%s), end: %s" % (s["samples"], fmt_time(s["duration"], u), u, s["end_reason"]),
        "lost       %d lost, %d throttled, %d dropped" % (s["lost"], s["throttled"], s["dropped"]),
        "threads    %d; mappings %d; columns %s" % (s["threads"], s["mappings"], ",".join(s["columns"])),
    ]
    if s["end_samples"] is not None and str(s["end_samples"]) != str(s["samples"]):
        lines.append("NOTE       END chunk says %s samples, the file holds %d" % (s["end_samples"], s["samples"]))
    w = s.get("wss")
    if w:
        for kind in ("data", "code"):
            total = w["total_%s_buckets" % kind]
            for tau, v in w[kind].items():
                lines.append("%-10s τ=%s: avg/peak/total %.1f/%d/%d buckets (%s/%s/%s)" % (
                    "WSS " + kind, fmt_time(int(tau), u), v["avg"], v["peak"], total,
                    fmt_bytes(v["avg"] * w["bucket"]), fmt_bytes(v["peak"] * w["bucket"]),
                    fmt_bytes(total * w["bucket"])))
    for c in s["windows_check"]:
        if "compared" in c:
            lines.append("live WSS   recorder's WINDOWS series (τ=%s, T=%s, bucket %s): %d of %d points equal "
                         "the recomputation%s" % (fmt_time(c["window"], u), fmt_time(c["interval"], u),
                                                  fmt_bytes(c["bucket"]), c["matches"], c["compared"],
                                                  "" if c["matches"] == c["compared"]
                                                  else " (max difference %d buckets)" % c["max_abs_diff"]))
    for wmsg in s["warnings"]:
        lines.append("warning    %s" % wmsg)
    return "\n".join(lines)


def add_args(p):
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args, traces):
    tr = traces[0]
    wres = wssmod.compute(tr) if tr.n else None
    s = summarize(tr, wres)
    if args.json:
        print(json.dumps(s, indent=1, default=str))
    else:
        print(format_summary(s, tr))
    if not tr.n:
        import sys
        print("memtrace-analyze: %s: the trace holds no samples" % tr.name, file=sys.stderr)
    return []


__all__ = ["summarize", "format_summary", "windows_check", "fmt_count"]
