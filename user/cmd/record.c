/* record.c - `memtracectl record`. */
#include <errno.h>
#include <getopt.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uapi/memtrace.h"
#include "source/source.h"
#include "source/probes/alloc_probe.h"
#include "cmd/commands.h"
#include "record/loop.h"
#include "record/metrics_http.h"
#include "record/recorder.h"
#include "record/signals.h"
#include "resolve/labels.h"
#include "trace/format.h"
#include "trace/writer.h"
#include "source/target.h"
#include "source/module/accessed.h"
#include "source/auto_order.h"
#include "source/follow.h"
#include "util/util.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: memtracectl record [-p PID[,PID...] | --pidfile FILE | -G CGROUP | -a |\n"
		"                          [--] CMD ARGS...] [options]\n"
		"\n"
		"Records sampled data addresses into a trace file.\n"
		"\n"
		"  -p, --pid PID[,PID...] these processes and all their descendants, with every\n"
		"                         thread, now and later (a list as perf takes it; also\n"
		"                         \"1 2 3\" as pidof prints it, or -p repeated)\n"
		"      --no-children      with -p: leave the listed processes' existing children\n"
		"                         out (what they fork from now on is still followed)\n"
		"      --pidfile FILE     the process FILE's first line names (e.g. PostgreSQL's\n"
		"                         DATADIR/postmaster.pid) with its descendants, as -p; when\n"
		"                         it exits, the next process FILE names (a restart), in the\n"
		"                         same recording: the time between is a gap (blind windows),\n"
		"                         FILE is read every 200 ms; perf and bpf backends\n"
		"  -G, --cgroup PATH      every process in a cgroup v2 group, including those that\n"
		"                         join it later; PATH relative to the cgroup2 mount (e.g.\n"
		"                         system.slice/postgresql@15-main.service) or absolute\n"
		"  -a, --all-cpus         every process on every CPU\n"
		"  CMD ARGS...            run CMD and record it (use -- before CMD if it has options)\n"
		"  -e, --event EVENT      auto (default), page-faults, hint-faults, damon, accessed,\n"
		"                         loads, stores,\n"
		"                         llc-miss-loads, load-latency, ibs-op, or a libpfm4 event\n"
		"                         name (hint-faults: NUMA-balancing hint faults, root; turns\n"
		"                         the scanner on for the recording and back off after)\n"
		"      --scan-period T    hint-faults: NUMA scan period (e.g. 1s, 500ms) where the\n"
		"                         kernel lets debugfs set it; restored after;\n"
		"                         accessed: the pass period (default 1s, >= 10ms)\n"
		"      --no-tlb-flush     accessed: clear accessed bits without flushing TLBs (pages\n"
		"                         used from the TLB then look idle; to measure the flush)\n"
		"      --damon-intervals SAMPLE,AGGR\n"
		"                         damon: sample and aggregation intervals (default 5ms,100ms)\n"
		"      --damon-budget PCT damon: keep kdamond within PCT %% of one CPU by widening\n"
		"                         its intervals (default 2; 0 or --damon-intervals: fixed)\n"
		"      --damon-regions MIN,MAX\n"
		"                         damon: bounds of the number of regions (default 10,1000)\n"
		"  -c, --period N         sample every N-th event (default: per event; 1 for page faults)\n"
		"  -b, --backend NAME     auto (default; $MEMTRACE_BACKEND when set), module, bpf,\n"
		"                         perf, valgrind, damon (-e damon picks it)\n"
		"  -o, --output FILE      trace file (default memtrace.mtrace; - for stdout); an\n"
		"                         existing FILE is renamed to FILE.old once the recording\n"
		"                         is under way, never overwritten or followed if a link\n"
		"      --force            overwrite an existing FILE instead (no FILE.old)\n"
		"      --switch-output SIZE|TIME|signal\n"
		"                         a new file every SIZE bytes (e.g. 1G, 500M) or TIME (e.g.\n"
		"                         10min, 60s, 1h), and on SIGHUP (signal: on SIGHUP only);\n"
		"                         files FILE.YYYYMMDD-hhmmss.mmm (UTC), each complete\n"
		"      --max-files N      with --switch-output: keep the newest N files of this\n"
		"                         recording, remove older ones\n"
		"  -d, --duration SEC     stop after SEC seconds\n"
		"      --random-period    valgrind: periods drawn uniformly in [N/2, 3N/2] (the default)\n"
		"      --fixed-period     valgrind: every N-th access (aliases with short loops)\n"
		"      --seed N           seed of --random-period (default 1)\n"
		"      --kernel           with -a: also sample kernel-mode accesses\n"
		"      --labels FILE      name address ranges (lines START SIZE NAME or\n"
		"                         MAPPING+OFFSET SIZE NAME); kept in the trace\n"
		"      --mark START[,END] query spans: a USDT probe (BINARY:PROBE or\n"
		"                         BINARY:PROVIDER:PROBE, e.g. postgres:query__start; the end\n"
		"                         is PROBE with __done/__end for __start) or a function\n"
		"                         (BINARY:FUNCTION; the end is its return). Each thread's\n"
		"                         spans from start to end are kept, labelled with the start\n"
		"                         probe's argument (report --span, --by-span)\n"
		"      --mark-label KIND  str (the argument is a string; default), sql (a query:\n"
		"                         constants as $n; default for postgresql:query__start\n"
		"                         and mysql:query__start), int, none\n"
		"      --mark-arg N       the start probe's argument N as label (default 0: first)\n"
		"      --mark-grain T     span times stored in grains of T (a power of two of ns,\n"
		"                         default 64ns; 1: exact): start rounded down, end up\n"
		"      --ring N           module backend: records per CPU ring (power of two, <= 1M);\n"
		"                         bpf backend: the shared ring holds N records per CPU;\n"
		"                         --aggregate: the bucket map holds N keys (default 256K)\n"
		"      --aggregate[=T]    bpf backend: count accesses per bucket and interval T\n"
		"                         (default 100ms) in BPF maps; the trace holds per-interval\n"
		"                         counts, not samples (long production runs);\n"
		"                         valgrind backend: per page and T instructions (default\n"
		"                         100k, valgrind-ws's tau; k/M/G suffixes), counted in the tool\n"
		"      --allocs           also record allocation sites: uprobes on the target's\n"
		"                         malloc/calloc/realloc/free/posix_memalign/aligned_alloc/\n"
		"                         mmap/munmap/mremap (glibc, jemalloc, tcmalloc) with user\n"
		"                         stacks (report --by-site); with -p, -G or a command\n"
		"      --alloc-large N    --allocs: blocks of N bytes or more always (default 64K)\n"
		"      --alloc-rate N     --allocs: smaller blocks sampled, one per N bytes allocated\n"
		"                         on average (default 512K; 1 = every block)\n"
		"      --alloc-symbols L  --allocs: more entry points, NAME=ROLE[,...] (ROLE: malloc,\n"
		"                         calloc, realloc, memalign, posix_memalign, free, mmap,\n"
		"                         munmap, mremap)\n"
		"      --alloc-lib FILE   --allocs: look for them in FILE too (a custom allocator)\n"
		"      --metrics [ADDR:]PORT\n"
		"                         serve Prometheus metrics over HTTP (GET /metrics) while\n"
		"                         recording: samples, lost and dropped counters and each\n"
		"                         closed window's pages (data, code) and samples, stamped\n"
		"                         with the window's end; ADDR defaults to 127.0.0.1\n"
		"      --metrics-window T the windows of --metrics (default 1s; report --window T\n"
		"                         --bucket 4K gives the same numbers)\n"
		"  -h, --help             this text\n"
		"\n"
		"Ctrl-C or SIGTERM ends the recording and leaves a complete file; so does a write\n"
		"error (disk full), with exit status 1.  A killed collector leaves FILE readable\n"
		"up to the last second.  With CMD, record exits with CMD's exit status (128+N if\n"
		"signal N killed it; 127/126 if it cannot be executed) unless record stopped it.\n"
		"A status line (samples/s, lost, current WSS, bytes written) is shown when stderr\n"
		"is a terminal.\n");
}

/* "A,B": two durations (in us, each >= 1 us) or two counts. */
static int parse_pair(const char *s, bool durations, uint64_t *a, uint64_t *b)
{
	char first[64];
	const char *comma = strchr(s, ',');

	if (!comma || (size_t)(comma - s) >= sizeof(first))
		return -1;
	memcpy(first, s, (size_t)(comma - s));
	first[comma - s] = 0;
	if (!durations)
		return mt_parse_u64(first, a) || mt_parse_u64(comma + 1, b) || !*a || !*b ? -1 : 0;
	if (mt_parse_duration(first, true, a) || mt_parse_duration(comma + 1, true, b))
		return -1;
	*a /= 1000;
	*b /= 1000;
	return *a && *b ? 0 : -1;
}

/* --switch-output SIZE|TIME|signal into o; 0, or -1 after a one-line error. */
static int parse_switch_output(struct record_opts *o, const char *arg)
{
	size_t n = strlen(arg);
	uint64_t v = 0;

	o->switch_output = arg;
	o->switch_bytes = o->switch_ns = 0;
	if (!strcmp(arg, "signal"))
		return 0;
	if (n >= 2 && arg[n - 1] == 'm' && strchr("0123456789.", arg[n - 2])) {
		mt_err("ambiguous --switch-output '%s': %.*sM for MiB or %.*smin for minutes", arg,
		       (int)(n - 1), arg, (int)(n - 1), arg);
		return -1;
	}
	if (n >= 2 && arg[n - 1] == 'h' && strchr("0123456789.", arg[n - 2])) {
		char num[64];
		char *end;
		snprintf(num, sizeof(num), "%.*s", (int)(n - 1), arg);
		double h = strtod(num, &end);
		if (!*end && h > 0 && h <= 24 * 366)
			v = (uint64_t)(h * 3600e9);
	} else if (n && (arg[n - 1] < '0' || arg[n - 1] > '9') &&
		   mt_parse_duration(arg, true, &v) == 0) {
		/* a time with its unit: v ns */
	} else if (n && (arg[n - 1] < '0' || arg[n - 1] > '9') && mt_parse_size(arg, &v) == 0) {
		if (v < 65536) {
			mt_err("invalid --switch-output '%s' (a size of 64K or more)", arg);
			return -1;
		}
		o->switch_bytes = v;
		return 0;
	} else {
		v = 0;
	}
	if (!v) {
		mt_err("invalid --switch-output '%s' (a size with its unit, e.g. 1G or 500M; a time, "
		       "e.g. 10min, 60s or 1h; or signal)", arg);
		return -1;
	}
	if (v < 1000000000ull) {
		mt_err("invalid --switch-output '%s' (a time of 1s or more)", arg);
		return -1;
	}
	o->switch_ns = v;
	return 0;
}

/* The backend --backend (or $MEMTRACE_BACKEND) names, NULL for auto or an
 * unknown name (pick_backend says so). */
static const struct source_ops *named_backend(const struct record_opts *o)
{
	return strcmp(o->backend, "auto") ? source_by_name(o->backend) : NULL;
}

static int pick_backend(const struct record_opts *o, const struct source_ops **out)
{
	char why[512];

	/* an event that is its own backend (-e damon) whatever $MEMTRACE_BACKEND says;
	 * one only a backend records (-e accessed) */
	const struct source_ops *ev = source_by_event(o->event);
	const struct source_ops *own = source_owning_event(o->event);
	const char *name = ev ? ev->name : o->backend;
	if (own) {
		if (o->backend_given && strcmp(o->backend, "auto") && strcmp(o->backend, own->name)) {
			mt_err("-e %s is recorded by the %s backend only: use --backend %s", o->event,
			       own->name, own->name);
			return 2;
		}
		name = own->name;
	}
	if (strcmp(name, "auto")) {
		const struct source_ops *b = source_by_name(name);
		if (!b) {
			mt_err("unknown backend '%s' (auto, module, bpf, perf, valgrind, damon)", name);
			return 2;
		}
		if (b->probe(o, why, sizeof(why))) {
			mt_err("backend %s: %s", b->name, why);
			return 1;
		}
		*out = b;
		return 0;
	}
	char first_why[512] = "";
	for (int i = 0; sources[i]; i++) {
		/* the last resort (valgrind): a command, and no event asked for */
		if (sources[i]->caps.fallback && (!o->argv || strcmp(o->event, "auto")))
			continue;
		if (o->pidfile && !sources[i]->caps.follows)	/* only they attach the next one */
			continue;
		if (sources[i]->probe(o, why, sizeof(why)) == 0) {
			*out = sources[i];
			return 0;
		}
		if (!first_why[0] || sources[i]->caps.auto_why)
			snprintf(first_why, sizeof(first_why), "%s", why);
	}
	mt_err("%s", first_why[0] ? first_why : "no backend can record here (see memtracectl status)");
	return 1;
}

/* A "#!" script whose interpreter cannot be executed: the shell's exit
 * status after a one-line error (valgrind would only say so in its own
 * words), else 0. */
static int interpreter_missing(const char *cmd, const char *path)
{
	char line[256];
	FILE *f = fopen(path, "re");
	int ok = f && fgets(line, sizeof(line), f) && line[0] == '#' && line[1] == '!';

	if (f)
		fclose(f);
	if (!ok)
		return 0;
	char *interp = line + 2 + strspn(line + 2, " \t");
	interp[strcspn(interp, " \t\r\n")] = 0;
	if (!*interp || access(interp, X_OK) == 0)
		return 0;
	return target_exec_error(cmd, errno);
}

/* The command must be found as execvp() would, before anything starts:
 * 0, or the shell's exit status after a one-line error. */
static int command_missing(const char *cmd)
{
	char path[4096];

	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK) == 0)
			return interpreter_missing(cmd, cmd);
		return target_exec_error(cmd, errno);
	}
	const char *p = getenv("PATH");
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t n = strcspn(p, ":");
		snprintf(path, sizeof(path), "%.*s/%s", (int)n, n ? p : ".", cmd);
		if (access(path, X_OK) == 0)
			return interpreter_missing(cmd, path);
		p += n + (p[n] == ':');
	}
	return target_exec_error(cmd, ENOENT);
}

/* Adds the pids of arg ("1,2,3", "1 2 3") to o->pids; 0, or -1 after an error. */
static int add_pids(struct record_opts *o, const char *arg)
{
	char buf[4096];
	char *save = NULL;
	uint64_t v;
	int any = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (char *tok = strtok_r(buf, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save)) {
		if (mt_parse_u64(tok, &v) || !v || v > 0x3fffffff) {
			mt_err("invalid pid '%s' in '%s' (a list of process ids: 1,2,3)", tok, arg);
			return -1;
		}
		bool dup = false;
		for (int i = 0; i < o->npids; i++)
			dup |= o->pids[i] == (pid_t)v;
		if (!dup) {
			o->pids = mt_xrealloc(o->pids, (size_t)(o->npids + 1) * sizeof(*o->pids));
			o->pids[o->npids++] = (pid_t)v;
		}
		any = 1;
	}
	if (!any) {
		mt_err("invalid pid list '%s' (a list of process ids: 1,2,3)", arg);
		return -1;
	}
	o->pid = o->pids[0];
	return 0;
}

/* Options into o; -1 to go on, else the exit status (help, bad option). */
static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "no-children", no_argument, NULL, 'N' },
		{ "cgroup", required_argument, NULL, 'G' },
		{ "pidfile", required_argument, NULL, 0x160 },
		{ "event", required_argument, NULL, 'e' },
		{ "period", required_argument, NULL, 'c' },
		{ "backend", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "random-period", no_argument, NULL, 'R' },
		{ "fixed-period", no_argument, NULL, 'X' },
		{ "seed", required_argument, NULL, 'S' },
		{ "kernel", no_argument, NULL, 'K' },
		{ "ring", required_argument, NULL, 'r' },
		{ "scan-period", required_argument, NULL, 'P' },
		{ "no-tlb-flush", no_argument, NULL, 0x130 },
		{ "damon-intervals", required_argument, NULL, 'I' },
		{ "damon-regions", required_argument, NULL, 'M' },
		{ "damon-budget", required_argument, NULL, 0x131 },
		{ "force", no_argument, NULL, 'F' },
		{ "allocs", no_argument, NULL, 0x100 },
		{ "alloc-rate", required_argument, NULL, 0x101 },
		{ "alloc-large", required_argument, NULL, 0x102 },
		{ "alloc-symbols", required_argument, NULL, 0x103 },
		{ "alloc-lib", required_argument, NULL, 0x104 },
		{ "labels", required_argument, NULL, 0x110 },
		{ "mark", required_argument, NULL, 0x111 },
		{ "mark-label", required_argument, NULL, 0x112 },
		{ "mark-arg", required_argument, NULL, 0x113 },
		{ "mark-grain", required_argument, NULL, 0x114 },
		{ "aggregate", optional_argument, NULL, 0x120 },
		{ "switch-output", required_argument, NULL, 0x140 },
		{ "max-files", required_argument, NULL, 0x141 },
		{ "metrics", required_argument, NULL, 0x150 },
		{ "metrics-window", required_argument, NULL, 0x151 },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:G:ae:c:b:o:d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (add_pids(o, optarg))
				return 2;
			/* -p $(pidof x) unquoted: the next words that are pids too */
			while (optind < argc && argv[optind][0] &&
			       strspn(argv[optind], "0123456789,") == strlen(argv[optind])) {
				if (add_pids(o, argv[optind++]))
					return 2;
			}
			break;
		case 'N': o->no_children = true; break;
		case 'G': o->cgroup = optarg; break;
		case 0x160: o->pidfile = optarg; break;
		case 'a': o->system_wide = true; break;
		case 'e': o->event = optarg; break;
		case 'c':
			if (mt_parse_u64(optarg, &o->period) || !o->period) {
				mt_err("invalid period '%s' (a positive integer)", optarg);
				return 2;
			}
			break;
		case 'b': o->backend = optarg; o->backend_given = 1; break;
		case 'o': o->output = optarg; break;
		case 'd': {
			char *end;
			o->duration = strtod(optarg, &end);
			if (*end || !(o->duration > 0)) {
				mt_err("invalid duration '%s' (seconds, > 0)", optarg);
				return 2;
			}
			break;
		}
		case 'R': o->random_period = true; break;
		case 'X': o->fixed_period = true; break;
		case 'S':
			if (mt_parse_u64(optarg, &o->seed)) {
				mt_err("invalid seed '%s'", optarg);
				return 2;
			}
			break;
		case 'K': o->kernel_addrs = true; break;
		case 'F': o->force = true; break;
		case 0x110: o->labels = optarg; break;
		case 0x111: o->mark = optarg; break;
		case 0x112:
			if (strcmp(optarg, "str") && strcmp(optarg, "int") && strcmp(optarg, "none") &&
			    strcmp(optarg, "sql")) {
				mt_err("invalid --mark-label '%s' (str, sql, int or none)", optarg);
				return 2;
			}
			o->mark_label = optarg;
			break;
		case 0x113:
			if (mt_parse_u64(optarg, &v) || v > 4) {
				mt_err("invalid --mark-arg '%s' (0 to 4)", optarg);
				return 2;
			}
			o->mark_arg = (uint32_t)v;
			break;
		case 0x114: {
			int lg = 0;
			if (mt_parse_duration(optarg, true, &v) || !v || v & (v - 1) ||
			    v > (1ull << SPAN2_GRAIN_LOG_MAX)) {
				mt_err("invalid --mark-grain '%s' (a power of two of ns, 1 to 2^%u)",
				       optarg, SPAN2_GRAIN_LOG_MAX);
				return 2;
			}
			while ((1ull << lg) < v)
				lg++;
			o->mark_grain_log = lg;
			break;
		}
		case 0x120:	/* parsed once the backend is known */
			o->aggregate = 1;
			o->aggregate_arg = optarg;
			break;
		case 'r':
			if (mt_parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > MEMTRACE_RING_MAX_RECORDS) {
				mt_err("invalid ring size '%s' (a power of two up to 1M records)", optarg);
				return 2;
			}
			o->ring_records = (uint32_t)v;
			break;
		case 'P':
			if (mt_parse_duration(optarg, true, &v) || v < 1000000 || v > 3600000000000ull) {
				mt_err("invalid scan period '%s' (1ms to 1h, e.g. 1s or 500ms)", optarg);
				return 2;
			}
			o->scan_period_ms = (long)(v / 1000000);
			break;
		case 'I':
			if (parse_pair(optarg, true, &o->damon_sample_us, &o->damon_aggr_us) ||
			    o->damon_sample_us > o->damon_aggr_us) {
				mt_err("invalid --damon-intervals '%s' (SAMPLE,AGGR with SAMPLE <= AGGR, "
				       "e.g. 5ms,100ms)", optarg);
				return 2;
			}
			break;
		case 0x131: {
			char *end;
			double pct = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%")) || !(pct >= 0 && pct <= 100)) {
				mt_err("invalid --damon-budget '%s' (a percentage of one CPU, 0 to 100; "
				       "0: fixed intervals)", optarg);
				return 2;
			}
			o->damon_budget_pct = pct;
			break;
		}
		case 'M':
			if (parse_pair(optarg, false, &o->damon_min_regions, &o->damon_max_regions) ||
			    o->damon_min_regions < 3 || o->damon_min_regions > o->damon_max_regions) {
				mt_err("invalid --damon-regions '%s' (MIN,MAX with 3 <= MIN <= MAX)", optarg);
				return 2;
			}
			break;
		case 0x100: o->allocs = true; break;
		case 0x130: o->no_tlb_flush = true; break;
		case 0x101:
		case 0x102:
			if (mt_parse_size(optarg, &v) || !v || v > (1ull << 31)) {
				mt_err("invalid %s '%s' (bytes, 1 to 2G)",
				       c == 0x101 ? "--alloc-rate" : "--alloc-large", optarg);
				return 2;
			}
			*(c == 0x101 ? &o->alloc_rate : &o->alloc_large) = v;
			break;
		case 0x103: o->alloc_symbols = optarg; break;
		case 0x104: o->alloc_lib = optarg; break;
		case 0x140:
			if (parse_switch_output(o, optarg))
				return 2;
			break;
		case 0x141:
			if (mt_parse_u64(optarg, &v) || !v || v > 1000000) {
				mt_err("invalid --max-files '%s' (a number of files, 1 to 1000000)", optarg);
				return 2;
			}
			o->max_files = (unsigned)v;
			break;
		case 0x150: {
			struct sockaddr_storage ss;
			unsigned len;
			char err[256];
			if (metrics_http_parse(optarg, &ss, &len, err, sizeof(err))) {
				mt_err("%s", err);
				return 2;
			}
			o->metrics = optarg;
			break;
		}
		case 0x151:
			if (mt_parse_duration(optarg, true, &o->metrics_window) ||
			    o->metrics_window < 10000000ull || o->metrics_window > 86400000000000ull) {
				mt_err("invalid --metrics-window '%s' (a duration from 10ms to 24h, e.g. 1s)",
				       optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "memtracectl: see 'memtracectl record --help'\n");
			return 2;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	return -1;
}

static int record_run(struct record_opts *o, int argc, char **argv)
{
	int rc;
	int targets = (o->npids > 0) + o->system_wide + (o->argv != NULL) + (o->cgroup != NULL) +
		      (o->pidfile != NULL);

	if (targets != 1) {
		mt_err("record needs exactly one target: -p PID[,PID...], --pidfile FILE, -G CGROUP, "
		       "-a, or a command");
		return 2;
	}
	if (o->pidfile && (o->mark || o->allocs || o->aggregate || o->no_children)) {
		mt_err("--pidfile records the processes it names one after the other: not with %s",
		       o->mark ? "--mark" : o->allocs ? "--allocs" : o->aggregate ? "--aggregate"
		       : "--no-children");
		return 2;
	}
	if (o->no_tlb_flush && !accessed_is_event(o->event)) {
		mt_err("--no-tlb-flush is for -e accessed");
		return 2;
	}
	if (o->no_children && !o->npids) {
		mt_err("--no-children needs -p");
		return 2;
	}
	if (o->kernel_addrs && !o->system_wide) {
		mt_err("--kernel needs -a");
		return 2;
	}
	if ((o->mark_label || o->mark_arg || o->mark_grain_log >= 0) && !o->mark) {
		mt_err("--mark-label, --mark-arg and --mark-grain need --mark");
		return 2;
	}
	if (o->max_files && !o->switch_output) {
		mt_err("--max-files needs --switch-output");
		return 2;
	}
	if (o->switch_output && !strcmp(o->output, "-")) {
		mt_err("--switch-output writes files: it needs -o FILE, not stdout");
		return 2;
	}
	if (o->switch_output && o->allocs) {
		mt_err("--switch-output and --allocs exclude each other (an allocation's site would "
		       "be in an earlier file than its free)");
		return 2;
	}
	if (o->metrics_window && !o->metrics) {
		mt_err("--metrics-window needs --metrics");
		return 2;
	}
	if (o->fixed_period && o->random_period) {
		mt_err("--fixed-period and --random-period exclude each other");
		return 2;
	}
	const struct source_ops *named = named_backend(o), *ev = source_by_event(o->event);
	if (o->aggregate && !o->backend_given && strcmp(o->backend, "auto") &&
	    !(named && named->caps.aggregate)) {
		/* a default from the environment yields to what the option needs */
		fprintf(stderr, "memtracectl: --aggregate records with the %s backend "
			"($MEMTRACE_BACKEND=%s is not used)\n", source_aggregating()->name, o->backend);
		o->backend = source_aggregating()->name;
		named = named_backend(o);
	}
	if (o->aggregate && ((ev && !ev->caps.aggregate) ||
			     (strcmp(o->backend, "auto") && !(named && named->caps.aggregate)))) {
		mt_err("--aggregate needs the bpf backend (it counts in BPF maps) or the valgrind "
		       "backend (it counts in the tool)");
		return 2;
	}
	if (o->aggregate && o->mark) {
		mt_err("--aggregate keeps no per-sample threads: --mark needs a recording without it");
		return 2;
	}
	/* the aggregating backend: the one named, else the first that can */
	const struct source_ops *agg = named ? named : source_aggregating();
	if (o->aggregate && agg->caps.clock == SOURCE_CLOCK_INSTRUCTIONS) {
		o->aggregate = 100000;	/* instructions: valgrind-ws's default tau */
		if (o->aggregate_arg && (mt_parse_duration(o->aggregate_arg, false, &o->aggregate) ||
					 o->aggregate < 1000 || o->aggregate > 1000000000000ull)) {
			mt_err("invalid --aggregate interval '%s' for the %s backend (instructions, "
			       "1000 to 1T, e.g. 100000, 100k or 1M)", o->aggregate_arg, agg->name);
			return 2;
		}
	} else if (o->aggregate) {
		o->aggregate = 100000000ull;
		if (o->aggregate_arg && (mt_parse_duration(o->aggregate_arg, true, &o->aggregate) ||
					 o->aggregate < 1000000 || o->aggregate > 3600000000000ull)) {
			mt_err("invalid --aggregate interval '%s' (1ms to 1h, e.g. 100ms or 1s)",
			       o->aggregate_arg);
			return 2;
		}
		o->backend = agg->name;
	}

	if (o->argv && (rc = command_missing(o->argv[0])))
		return rc;
	/* a backend that starts its command itself says why -p does not apply */
	named = named_backend(o);
	for (int i = 0; i < o->npids && !(named && named->caps.command_only); i++)
		if (target_check(o->pids[i]))
			return 1;
	if (o->cgroup) {
		char dir[4096];
		int fd = target_cgroup_open(o->cgroup, dir, sizeof(dir));
		if (fd < 0)
			return 1;
		close(fd);
	}

	struct mt_labels labels = { 0 };
	char err[512];
	if (o->labels && mt_labels_load(&labels, o->labels, err, sizeof(err))) {
		mt_err("%s", err);
		return 2;
	}
	const struct source_ops *b;
	const struct source_ops *acc = source_owning_event("accessed"), *asked = named_backend(o);
	if ((!asked || asked == acc) && auto_picks_accessed(o)) {
		o->event = "accessed";
		fprintf(stderr, "memtracectl: -e auto: no hardware memory sampling here; memtrace.ko's "
			"accessed bits see every page the targets use each pass, shared memory "
			"included (-e accessed)\n");
	}
	/* --pidfile: a backend named, or one the event needs, that cannot follow */
	const struct source_ops *fixed = source_by_event(o->event) ? source_by_event(o->event)
					 : source_owning_event(o->event) ? source_owning_event(o->event)
					 : named_backend(o);
	if (o->pidfile && fixed && !fixed->caps.follows) {
		mt_labels_free(&labels);
		mt_err("--pidfile needs the perf or bpf backend (the %s backend cannot attach the "
		       "next process to its recording)", fixed->name);
		return 2;
	}
	rc = pick_backend(o, &b);
	if (!rc && o->mark && b->caps.clock != SOURCE_CLOCK_TIME) {
		mt_err("--mark needs the perf, bpf or module backend (valgrind traces count "
		       "instructions, the probes' clock is time)");
		rc = 2;
	}
	if (!rc && o->pidfile && !b->caps.follows) {
		mt_err("--pidfile needs the perf or bpf backend (the %s backend cannot attach the "
		       "next process to its recording)", b->name);
		rc = 2;
	}
	if (rc) {
		mt_labels_free(&labels);
		return rc;
	}
	if (o->allocs && b->caps.own_allocs) {
		mt_labels_free(&labels);
		mt_err("--allocs is for the perf, bpf and module backends: --backend valgrind records "
		       "every allocation without it (its tool replaces malloc)");
		return 2;
	}

	char cmdline[1024];
	size_t pos = 0;
	cmdline[0] = 0;
	for (int i = -1; i < argc && pos < sizeof(cmdline) - 1; i++) {
		const char *a = i < 0 ? "memtracectl" : argv[i];
		int n = snprintf(cmdline + pos, sizeof(cmdline) - pos, "%s%s", pos ? " " : "", a);
		if (n < 0)
			break;
		pos += (size_t)n;
	}
	struct alloc_probe *ap = NULL;
	if (o->allocs && !(ap = alloc_probe_new(o))) {
		mt_labels_free(&labels);
		return 2;
	}
	struct recorder_rotation rot = { o->switch_bytes, o->switch_ns, o->max_files };
	struct recorder *r = o->switch_output
		? recorder_open_rotating(o->output, cmdline, o->force ? WRITER_FORCE : 0, &rot)
		: recorder_open(o->output, cmdline, o->force ? WRITER_FORCE : 0);
	if (r && labels.len)
		recorder_set_labels(r, labels.text, labels.len);
	if (r && o->mark_grain_log >= 0)
		recorder_set_span_grain(r, (unsigned)o->mark_grain_log);
	if (r && o->metrics)
		recorder_set_metrics_window(r, o->metrics_window ? o->metrics_window : 1000000000ull);
	mt_labels_free(&labels);
	if (!r) {
		alloc_probe_free(ap);
		return 1;
	}
	if (ap) {
		struct recorder_side side = alloc_probe_side(ap);
		recorder_add_side(r, &side);
	}
	record_install_signals();
	if (o->switch_output)
		record_install_switch_signal();
	rc = record_source(o->pidfile ? source_follow(b) : b, o, r);
	uint64_t samples = recorder_samples(r);
	unsigned files = recorder_files(r);
	char last[4096];
	snprintf(last, sizeof(last), "%s", recorder_path(r) ? recorder_path(r) : o->output);
	if (recorder_close(r))	/* never under way: FILE is left as it was */
		rc = -1;
	alloc_probe_free(ap);
	/* the command's own exit status, as perf record and time give it */
	int child = o->argv ? target_child_result(1000) : -1;
	if (child >= 126 && child <= 127 && rc)
		return child;	/* could not be executed (said so) */
	if (rc)
		return 1;
	if (o->switch_output)
		fprintf(stderr, "memtracectl: wrote %llu samples to %u file%s %s.* (%s backend; "
			"the last: %s)\n", (unsigned long long)samples, files, files == 1 ? "" : "s",
			o->output, b->name, last);
	else if (strcmp(o->output, "-") && b->caps.regions)
		fprintf(stderr, "memtracectl: wrote DAMON regions to %s (%s backend)\n", o->output,
			b->name);
	else if (strcmp(o->output, "-"))
		fprintf(stderr, "memtracectl: wrote %llu samples to %s (%s backend)\n",
			(unsigned long long)samples, o->output, b->name);
	return child >= 0 ? child : 0;
}

int cmd_record(int argc, char **argv)
{
	const char *env_backend = getenv("MEMTRACE_BACKEND");
	struct record_opts o = {
		.event = "auto", .backend = env_backend && *env_backend ? env_backend : "auto", .output = "memtrace.mtrace", .seed = 1,
		.damon_budget_pct = -1, .mark_grain_log = -1,
	};
	int rc = parse_args(argc, argv, &o);

	if (rc < 0)
		rc = record_run(&o, argc, argv);
	free(o.pids);
	return rc;
}
