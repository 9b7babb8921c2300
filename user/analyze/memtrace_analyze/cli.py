"""Command line: memtrace-analyze VERB TRACE... [-o OUT] [options].

Exit status: 0 done, 1 no samples (in the selection), 2 bad input (one line
'memtrace-analyze: error: ...').  Every number comes from libmemtrace
(lib.py); this package parses options and draws."""

import argparse
import importlib
import sys

VERBS = {
    "heatmap": ("heatmap", "time x address heatmap (colour = accesses, log scale)", 1),
    "wss": ("wss", "working-set size over time for one or several windows, peaks numbered", 1),
    "hot": ("hot", "access histograms by address and by frequency, hot working-set size curve", 1),
    "mrc": ("mrc", "miss-ratio curve: miss ratio of an LRU cache of each size, its knees (docs/sizing.md)", 1),
    "cold": ("cold", "cold memory over time: bytes idle for 10 s, 60 s, 120 s (docs/sizing.md)", 1),
    "regions": ("regions", "accesses and accessed volume per mapping (table + bar chart)", 1),
    "compare": ("compare", "two traces side by side: per-region volume change in percent, heatmaps", 2),
    "report": ("report", "all of the above into one folder with index.html", 1),
    "damon": ("damon", "DAMON regions (-e damon): region-level WSS and access-frequency heatmap", 1),
    "info": ("info", "one-paragraph summary of a trace (text)", 1),
}


class EmptyTrace(Exception):
    pass


def need_samples(n, tr, sel, verb):
    if n == 0:
        raise EmptyTrace("%s: the trace holds no samples%s; nothing to plot for '%s'"
                         % (tr.name, " in the selection (%s)" % sel.what if sel is not None and sel.what else "",
                            verb))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("memtrace-analyze: error: %s" % message, file=sys.stderr)
        sys.exit(2)


def build_parser():
    p = _Parser(prog="memtrace-analyze",
                description="Offline analysis and plots of memtrace traces (.mtrace); the numbers come "
                            "from libmemtrace, the same as `memtracectl report`.")
    sub = p.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    for verb, (mod, helptext, ntr) in VERBS.items():
        sp = sub.add_parser(verb, help=helptext, description=helptext)
        if ntr == 2:
            sp.add_argument("traces", nargs=2, metavar="TRACE", help="trace A (baseline) and trace B")
        else:
            sp.add_argument("traces", nargs=1, metavar="TRACE")
        sp.add_argument("-o", "--output", help="output file (PNG) or folder (report)")
        importlib.import_module("." + mod, __package__).add_args(sp)
    return p


def main(argv=None):
    p = build_parser()
    args = p.parse_args(argv)
    if not args.verb:
        p.print_help(sys.stderr)
        return 2
    from .lib import MemtraceError, Trace
    try:
        mod = importlib.import_module("." + VERBS[args.verb][0], __package__)
        traces = [Trace(path) for path in args.traces]
        for tr in traces:
            if not tr.info.complete:
                print("memtrace-analyze: warning: %s: no END chunk (recording cut short?)%s" % (
                    tr.name, ", %d bytes of an incomplete chunk ignored" % tr.info.truncated_bytes
                    if tr.info.truncated_bytes else ""), file=sys.stderr)
            # wss of a pass-based trace without samples: its blind windows are drawn
            if tr.n == 0 and args.verb not in ("report", "info", "damon") and not (
                    args.verb == "wss" and tr.meta("passes")):
                need_samples(0, tr, None, args.verb)
        outs = mod.run(args, traces)
    except EmptyTrace as e:
        print("memtrace-analyze: %s" % e, file=sys.stderr)
        return 1
    except (MemtraceError, OSError, ValueError) as e:
        msg = str(e).replace("\n", " ")
        print("memtrace-analyze: error: %s" % msg, file=sys.stderr)
        return 2
    except MemoryError:
        print("memtrace-analyze: error: out of memory", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - a damaged trace must not end in a traceback
        msg = str(e).replace("\n", " ")
        print("memtrace-analyze: error: %s: %s" % (type(e).__name__, msg), file=sys.stderr)
        return 2
    for o in outs or []:
        print(o)
    return 0


if __name__ == "__main__":
    sys.exit(main())
