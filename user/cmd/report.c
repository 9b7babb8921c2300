/* report.c - `memtracectl report`: options -> memtrace_report_compute ->
 * the text summary or --json (render_text.c, render_json.c), and --series. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "cmd/render.h"
#include "memtrace/report.h"
#include "trace/reader.h"
#include "util/util.h"

struct report_opts {
	const char *window, *interval, *series, *labels, *span, *region;
	const char *cold_list, *cold_step, *cold_series;
	int cold;
	uint64_t bucket;
	size_t top;
	int json, per_process, by_site, by_span, mrc;
	struct for_sizes for_size;
	const char *mrc_warmup;
	uint32_t pid;
	double sensitivity;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: memtracectl report FILE [options]\n"
		"\n"
		"Working-set size over time, hot buckets and peaks of a trace.\n"
		"\n"
		"  -w, --window TAU       working-set window (default 100ms; 100000 for instruction traces)\n"
		"  -i, --interval T       one WSS value every T (default: the window)\n"
		"  -b, --bucket SIZE      bucket size, a power of two from 64 to 2M (default: the trace's, 4K)\n"
		"  -n, --top N            hot buckets to list (default 10)\n"
		"  -p, --pid PID          only the samples of process PID (its addresses as they are)\n"
		"      --per-process      one WSS and hot summary per process, and the buckets\n"
		"                         in shared mappings (counted once for all processes)\n"
		"      --by-site          allocation sites (a trace recorded with --allocs): bytes,\n"
		"                         blocks, samples, buckets and lifetime per site, and the\n"
		"                         hot data buckets with their sites\n"
		"      --labels FILE      name address ranges (lines START SIZE NAME or\n"
		"                         MAPPING+OFFSET SIZE NAME; before the trace's own labels)\n"
		"      --region NAME      only the addresses a label named NAME covers (--labels or\n"
		"                         the trace's own), in every process, a shared page once\n"
		"      --span PATTERN     only samples of threads inside a span (record --mark)\n"
		"                         whose label (a query's text) contains PATTERN\n"
		"      --by-span          samples and distinct buckets per span label, over all\n"
		"                         its spans and per span (mean, largest)\n"
		"      --mrc              miss-ratio curve: the miss ratio of an LRU cache of each\n"
		"                         size (buckets of --bucket) over the data references,\n"
		"                         its knees; exact for a trace of every access, else\n"
		"                         estimated from the samples (docs/sizing.md)\n"
		"      --for-size SIZE[,SIZE...]  with --mrc: the predicted hit ratio of a cache\n"
		"                         of each SIZE (e.g. 64M or 64M,128M; implies --mrc)\n"
		"      --mrc-warmup D     with --mrc: the references of the first D of the\n"
		"                         recording fill the cache and are not counted (a cache\n"
		"                         already warm when recording began; e.g. 10s)\n"
		"      --cold[=T1,T2,..]  cold memory over time: the buckets seen earlier and not\n"
		"                         accessed for at least each threshold (default 10s,60s,120s),\n"
		"                         per process with --per-process, of --region only; refused\n"
		"                         for page-fault traces; an upper bound when sampled\n"
		"                         (docs/sizing.md)\n"
		"      --cold-step D      with --cold: time between points (default: a tenth of the\n"
		"                         smallest threshold, whole intervals)\n"
		"      --cold-series FILE with --cold: time,seen,cold_T...,blind,pass_age as CSV\n"
		"      --json             machine-readable output on stdout\n"
		"      --series FILE      write time,wss_data,wss_code (buckets) per interval as CSV\n"
		"                         (intervals without a sample in the window: left out),\n"
		"                         then the data estimate: samples,f1,f2,est_data,est_data_lo,\n"
		"                         est_data_hi,est_flags (docs/accuracy.md), and blind: 1 when\n"
		"                         the source saw no pass in the window (a row even without\n"
		"                         samples), 0 when it did, empty when the trace cannot say\n"
		"      --sensitivity G    peak detection sensitivity (default 1.0; smaller finds more)\n"
		"  -h, --help             this text\n"
		"\n"
		"Durations take ns/us/ms/s/min suffixes for time traces and plain counts (k/M/G)\n"
		"for instruction traces. WSS(t) counts distinct buckets accessed in (t - TAU, t],\n"
		"reported at t = start + k*T; series times are relative to the trace start.\n"
		"Buckets belong to address spaces: private memory per process (other processes\n"
		"than the target are named \"pid N ...\"), a shared mapping once, by what is\n"
		"mapped (device, inode, offset), wherever each process maps it.\n");
}

static int parse_opts(int argc, char **argv, struct report_opts *o, const char **path)
{
	static const struct option opts[] = {
		{ "window", required_argument, NULL, 'w' },
		{ "interval", required_argument, NULL, 'i' },
		{ "bucket", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "series", required_argument, NULL, 's' },
		{ "sensitivity", required_argument, NULL, 'g' },
		{ "pid", required_argument, NULL, 'p' },
		{ "per-process", no_argument, NULL, 'P' },
		{ "by-site", no_argument, NULL, 'A' },
		{ "labels", required_argument, NULL, 'L' },
		{ "span", required_argument, NULL, 'S' },
		{ "region", required_argument, NULL, 'R' },
		{ "by-span", no_argument, NULL, 'B' },
		{ "mrc", no_argument, NULL, 'M' },
		{ "for-size", required_argument, NULL, 'F' },
		{ "mrc-warmup", required_argument, NULL, 'W' },
		{ "cold", optional_argument, NULL, 'C' },
		{ "cold-step", required_argument, NULL, 'T' },
		{ "cold-series", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:i:b:n:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': o->window = optarg; break;
		case 'i': o->interval = optarg; break;
		case 'b':
			if (mt_parse_bucket(optarg, &v)) {
				mt_err("invalid bucket size '%s' (a power of two from 64 to 2M)", optarg);
				return 2;
			}
			o->bucket = v;
			break;
		case 'n':
			if (mt_parse_u64(optarg, &v) || v > 100000) {
				mt_err("invalid --top '%s'", optarg);
				return 2;
			}
			o->top = (size_t)v;
			break;
		case 'j': o->json = 1; break;
		case 'p':
			if (mt_parse_u64(optarg, &v) || !v || v > UINT32_MAX) {
				mt_err("invalid --pid '%s' (a process id)", optarg);
				return 2;
			}
			o->pid = (uint32_t)v;
			break;
		case 'P': o->per_process = 1; break;
		case 'A': o->by_site = 1; break;
		case 'L': o->labels = optarg; break;
		case 'S': o->span = optarg; break;
		case 'R': o->region = optarg; break;
		case 'B': o->by_span = 1; break;
		case 'M': o->mrc = 1; break;
		case 'F':
			for (const char *p = optarg; *p;) {
				char one[64];
				size_t n = strcspn(p, ",");
				snprintf(one, sizeof(one), "%.*s", (int)(n < 63 ? n : 63), p);
				if (n >= sizeof(one) || memtrace_parse_size(one, &v) || !v ||
				    o->for_size.n == FOR_SIZES_MAX) {
					mt_err("invalid --for-size '%s' (sizes, e.g. 64M or 64M,128M; at "
					       "most %d)", optarg, FOR_SIZES_MAX);
					return 2;
				}
				o->for_size.v[o->for_size.n++] = v;
				p += n + (p[n] == ',');
			}
			o->mrc = 1;
			break;
		case 'W': o->mrc_warmup = optarg; o->mrc = 1; break;
		case 'C':
			o->cold = 1;
			/* --cold 10s,60s: a list right after it (starts with a digit, has no '/'
			 * and is no file) is its value */
			if (!optarg && optind < argc && argv[optind][0] >= '0' &&
			    argv[optind][0] <= '9' && !strchr(argv[optind], '/') &&
			    access(argv[optind], F_OK))
				optarg = argv[optind++];
			o->cold_list = optarg;
			break;
		case 'T': o->cold_step = optarg; o->cold = 1; break;
		case 'V': o->cold_series = optarg; o->cold = 1; break;
		case 's': o->series = optarg; break;
		case 'g': {
			char *end;
			o->sensitivity = strtod(optarg, &end);
			if (*end || !(o->sensitivity > 0)) {
				mt_err("invalid sensitivity '%s' (> 0)", optarg);
				return 2;
			}
			break;
		}
		case 'h': usage(stdout); return -1;
		default:
			fprintf(stderr, "memtracectl: see 'memtracectl report --help'\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		mt_err("report needs exactly one trace file");
		return 2;
	}
	*path = argv[optind];
	return 0;
}

static int write_series(const char *path, const char *trace_path, const struct memtrace_report *r)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f) {
		mt_errno("cannot create %s", path);
		return -1;
	}
	const struct memtrace_estimate *e = &r->data_est;
	char rl[512];

	if (!r->samples && r->region_chunks) {	/* DAMON regions: their own series */
		int rc = render_damon_series(f, trace_path, r);
		if (f != stdout)
			rc |= fclose(f);
		return rc ? -1 : 0;
	}

	if (r->region)	/* a comment line first: what the rows count */
		fprintf(f, "# %s\n", memtrace_report_region_line(r, rl, sizeof(rl)));
	fprintf(f, "time,wss_data,wss_code,samples,f1,f2,est_data,est_data_lo,est_data_hi,"
		   "est_flags,blind\n");
	/* blind: 1 = the source saw no pass in the window, 0 = seen, empty = not known */
	int known = r->blind.state == MEMTRACE_BLIND_KNOWN;
	const char *blind = r->blind.state == MEMTRACE_BLIND_UNKNOWN ? "" : "0";
	/* the series are sparse (memtrace/report.h): a row where either has one,
	 * the intervals without a sample in either window are left out */
	const struct memtrace_series *d = &r->data, *c = &r->code;
	for (size_t i = 0, j = 0; i < d->n || j < c->n;) {
		uint64_t t = j >= c->n || (i < d->n && d->time[i] <= c->time[j]) ? d->time[i]
										  : c->time[j];
		int hd = i < d->n && d->time[i] == t, hc = j < c->n && c->time[j] == t;
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64, t, hd ? d->wss[i] : 0,
			hc ? c->wss[j] : 0);
		if (hd)
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%.1f,%u",
				e->samples[i], e->f1[i], e->f2[i], e->est[i], e->lo[i], e->hi[i],
				e->flags[i]);
		else
			fprintf(f, ",0,0,0,0,0,0,0");
		if (known)	/* blind rows are in both series (report.h) */
			fprintf(f, ",%d\n", hd ? r->data_blind[i] : r->code_blind[j]);
		else
			fprintf(f, ",%s\n", blind);
		i += hd;
		j += hc;
	}
	int bad = ferror(f);
	if (f != stdout)
		bad |= fclose(f);
	if (bad) {
		mt_errno("writing %s", path);
		return -1;
	}
	return 0;
}

static int write_cold_series(const char *path, const struct memtrace_report *r)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f) {
		mt_errno("cannot create %s", path);
		return -1;
	}
	int bad = render_cold_series(f, r);
	if (f != stdout)
		bad |= fclose(f);
	if (bad) {
		mt_errno("writing %s", path);
		return -1;
	}
	return 0;
}

/* Window and interval in the trace's unit, which its header decides. */
static int parse_durations(const char *path, const struct report_opts *o,
			   struct memtrace_report_config *cfg)
{
	char err[512];
	struct trace_reader *hdr = trace_open(path, err, sizeof(err));

	if (!hdr) {
		mt_err("%s", err);
		return 1;
	}
	int ns = trace_time_is_ns(hdr);
	trace_close(hdr);
	const char *what = ns ? "e.g. 100ms, 1s, 500us" : "an instruction count, e.g. 100000 or 1M";
	if (o->window && (mt_parse_duration(o->window, ns, &cfg->window) || !cfg->window)) {
		mt_err("invalid window '%s' (%s)", o->window, what);
		return 2;
	}
	if (o->interval && (mt_parse_duration(o->interval, ns, &cfg->interval) || !cfg->interval)) {
		mt_err("invalid interval '%s' (%s)", o->interval, what);
		return 2;
	}
	if (o->mrc_warmup && mt_parse_duration(o->mrc_warmup, ns, &cfg->mrc_warmup)) {
		mt_err("invalid --mrc-warmup '%s' (%s)", o->mrc_warmup, what);
		return 2;
	}
	if (o->cold_step && (mt_parse_duration(o->cold_step, ns, &cfg->cold_step) ||
			     !cfg->cold_step)) {
		mt_err("invalid --cold-step '%s' (%s)", o->cold_step, what);
		return 2;
	}
	static uint64_t thr[MEMTRACE_COLD_MAX_THRESHOLDS];
	char list[256];
	if (!o->cold_list)
		return 0;
	if (strlen(o->cold_list) >= sizeof(list)) {
		mt_err("invalid --cold '%s' (too long)", o->cold_list);
		return 2;
	}
	strcpy(list, o->cold_list);
	size_t n = 0;
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == MEMTRACE_COLD_MAX_THRESHOLDS) {
			mt_err("invalid --cold '%s' (at most %d thresholds)", o->cold_list,
			       MEMTRACE_COLD_MAX_THRESHOLDS);
			return 2;
		}
		if (mt_parse_duration(t, ns, &thr[n]) || !thr[n]) {
			mt_err("invalid cold threshold '%s' (%s)", t, what);
			return 2;
		}
		n++;
	}
	if (!n) {
		mt_err("invalid --cold '%s' (thresholds, e.g. 10s,60s,120s)", o->cold_list);
		return 2;
	}
	cfg->ncold = n;
	cfg->cold_thresholds = thr;
	return 0;
}

/* --by-site: the sites beside the report's hot buckets; frees r. */
static int report_sites(const char *path, const struct report_opts *o,
			const struct memtrace_report_config *cfg, struct memtrace_report *r)
{
	char err[512];
	struct memtrace_sites *s = memtrace_sites_compute(path, cfg, err, sizeof(err));

	if (!s) {
		mt_err("%s", err);
		memtrace_report_free(r);
		return 1;
	}
	if (o->json)
		render_json_sites(stdout, path, r, s, o->pid);
	else
		render_text_sites(stdout, path, r, s, o->pid);
	memtrace_sites_free(s);
	memtrace_report_free(r);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .top = 10, .sensitivity = 1.0 };
	const char *path;
	char err[512];
	int rc = parse_opts(argc, argv, &o, &path);

	if (rc)
		return rc < 0 ? 0 : rc;
	struct memtrace_report_config cfg = {
		.bucket = o.bucket, .top = o.top, .sensitivity = o.sensitivity,
		.max_peaks = 100, .locations = 3, .functions = 3,
		.flags = (o.per_process ? MEMTRACE_REPORT_PER_PROCESS : 0) |
			 (o.by_span ? MEMTRACE_REPORT_BY_SPAN : 0) |
			 (o.mrc ? MEMTRACE_REPORT_MRC : 0) |
			 (o.cold ? MEMTRACE_REPORT_COLD : 0) |
			 /* the text shows no file:line: skip the DWARF */
			 (o.json || o.by_site ? 0 : MEMTRACE_REPORT_NO_SOURCE),
		.filter = { .pid = o.pid, .region = o.region },
		.labels = o.labels,
		.span = o.span,
	};
	rc = parse_durations(path, &o, &cfg);
	if (rc)
		return rc;
	struct memtrace_report *r = memtrace_report_compute(path, &cfg, err, sizeof(err));
	if (!r) {
		mt_err("%s", err);
		return 1;
	}
	if (!o.json && r->info.truncated_bytes)
		mt_warn("%s is cut short: ignored an incomplete last chunk of %llu bytes", path,
			(unsigned long long)r->info.truncated_bytes);
	else if (!o.json && !r->info.complete)
		mt_warn("%s has no end record: the recording did not finish cleanly", path);
	if (!o.top)	/* -n 0: no hot buckets (to the library 0 means its default) */
		r->nhot_data = r->nhot_code = 0;
	if (o.series && write_series(o.series, path, r)) {
		memtrace_report_free(r);
		return 1;
	}
	if (o.cold_series && r->cold.computed && write_cold_series(o.cold_series, r)) {
		memtrace_report_free(r);
		return 1;
	}
	if (o.by_site)
		return report_sites(path, &o, &cfg, r);
	if (o.json)
		render_json(stdout, path, r, o.pid, &o.for_size);
	else {
		render_text(stdout, path, r, o.pid);
		render_text_spans(stdout, r, memtrace_words_of_meta(r->meta), o.span);
		if (o.mrc && r->samples)
			render_text_mrc(stdout, r, &o.for_size);
		if (o.cold && r->samples)
			render_text_cold(stdout, r);
	}
	memtrace_report_free(r);
	return 0;
}
