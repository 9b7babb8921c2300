"""Command line: memtrace-analyze VERB TRACE... [-o OUT] [options]."""

import argparse
import sys

from .trace import TraceError, read_trace

VERBS = {
    "heatmap": ("heatmap", "time x address heatmap (colour = accesses, log scale)", 1),
    "wss": ("wss", "working-set size over time for one or several windows, peaks numbered", 1),
    "hot": ("hot", "access histograms by address and by frequency, hot working-set size curve", 1),
    "regions": ("regions", "accesses and accessed volume per mapping (table + bar chart)", 1),
    "compare": ("compare", "two traces side by side: per-region volume change in percent, heatmaps", 2),
    "report": ("report", "all of the above into one folder with index.html", 1),
    "info": ("info", "one-paragraph summary of a trace (text)", 1),
}


class EmptyTrace(Exception):
    pass


def need_samples(tr, verb):
    if tr.n == 0:
        raise EmptyTrace("%s: the trace holds no samples%s; nothing to plot for '%s'"
                         % (tr.name, " in the selection" if tr.columns.get("time") is not None else "", verb))


def build_parser():
    p = argparse.ArgumentParser(
        prog="memtrace-analyze",
        description="Offline analysis and plots of memtrace traces (.mtrace).")
    sub = p.add_subparsers(dest="verb", metavar="VERB")
    import importlib
    for verb, (mod, helptext, ntr) in VERBS.items():
        sp = sub.add_parser(verb, help=helptext, description=helptext)
        if ntr == 2:
            sp.add_argument("traces", nargs=2, metavar="TRACE", help="trace A (baseline) and trace B")
        else:
            sp.add_argument("traces", nargs=1, metavar="TRACE")
        sp.add_argument("-o", "--output", help="output file (PNG) or folder (report)")
        sp.add_argument("--no-crc", action="store_true", help="skip CRC checks (faster on huge traces)")
        importlib.import_module("." + mod, __package__).add_args(sp)
    return p


def main(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    if not args.verb:
        p.print_help(sys.stderr)
        return 2
    import importlib
    mod = importlib.import_module("." + VERBS[args.verb][0], __package__)
    try:
        traces = []
        columns = getattr(mod, "COLUMNS", None)
        if columns is not None:
            columns = set(columns) | {c for c in ("pid", "tid") if getattr(args, c, None) is not None}
        for path in args.traces:
            tr = read_trace(path, verify_crc=not args.no_crc, columns=columns)
            for w in tr.warnings:
                print("memtrace-analyze: warning: %s: %s" % (tr.name, w), file=sys.stderr)
            traces.append(tr)
        outs = mod.run(args, traces)
    except TraceError as e:
        print("memtrace-analyze: error: %s" % e, file=sys.stderr)
        return 2
    except EmptyTrace as e:
        print("memtrace-analyze: %s" % e, file=sys.stderr)
        return 1
    except ValueError as e:
        print("memtrace-analyze: error: %s" % e, file=sys.stderr)
        return 2
    for o in outs or []:
        print(o)
    return 0


if __name__ == "__main__":
    sys.exit(main())
