/* cmd_report.c - `memtracectl report`: WSS over time, hot buckets, peaks. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "engine/hot.h"
#include "engine/hot_attr.h"
#include "engine/peaks.h"
#include "resolve/resolve.h"
#include "trace/format.h"
#include "trace/scan.h"
#include "util/util.h"
#include "engine/wss.h"

#define PEAK_LOCATIONS 3
#define HOT_FNS_TEXT 2	/* functions shown per hot bucket */
#define HOT_IPS_JSON 3	/* functions and instructions in --json */
#define HOT_SYMS_MAX 64	/* distinct symbols counted per hot bucket */
#define CURVE_POINTS 40
#define MAX_PEAKS 100

struct report_opts {
	const char *window, *interval, *series;
	uint64_t bucket;
	size_t top;
	int json;
	double sensitivity;
};

struct report {
	struct wss data, code;
	int have_ip;
	uint64_t samples, first_time, last_time;
	uint64_t lost, throttled, nmaps;
	struct resolver *res;
	uint32_t pid;		/* whose mappings name hot buckets */
	/* peak pass */
	struct peak *peaks;
	size_t npeaks;
	uint64_t *peak_from, *peak_to;
	struct bucket_map *peak_ips;
	size_t peak_next;	/* first peak whose window may hold later samples */
	size_t peaks_found;	/* before keeping the MAX_PEAKS largest */
	/* hot buckets, and the instructions that touched them (pass 2) */
	struct hot_bucket *hot_data, *hot_code;
	size_t nhot_data, nhot_code;
	struct hot_attr attr_data, attr_code;
	struct hot_attr attr_obj;	/* hot data buckets: exact addresses */
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
		"      --json             machine-readable output on stdout\n"
		"      --series FILE      write time,wss_data,wss_code (buckets) per interval as CSV\n"
		"      --sensitivity G    peak detection sensitivity (default 1.0; smaller finds more)\n"
		"  -h, --help             this text\n"
		"\n"
		"Durations take ns/us/ms/s/min suffixes for time traces and plain counts (k/M/G)\n"
		"for instruction traces. WSS(t) counts distinct buckets accessed in (t - TAU, t],\n"
		"reported at t = start + k*T; series times are relative to the trace start.\n");
}

static void on_samples(void *ctx, const struct memtrace_sample *s, size_t n, uint32_t columns)
{
	struct report *r = ctx;

	if (!r->samples && n) {
		r->first_time = s[0].time;
		if (!r->pid)
			r->pid = s[0].pid;
	}
	if (columns & (1u << COL_IP))
		r->have_ip = 1;
	wss_add_samples(&r->data, s, n, 0);
	wss_add_samples(&r->code, s, n, 1);
	if (n)
		r->last_time = s[n - 1].time > r->last_time ? s[n - 1].time : r->last_time;
	r->samples += n;
}

static void on_chunk(void *ctx, const struct trace_chunk *c)
{
	struct report *r = ctx;

	if (c->type == CHUNK_MAPS && c->len >= MAPS_HDR_SIZE) {
		resolver_add_maps(r->res, get_le64(c->data), get_le32(c->data + 8),
				  (const char *)c->data + MAPS_HDR_SIZE, c->len - MAPS_HDR_SIZE);
		r->nmaps++;
	} else if (c->type == CHUNK_LOST) {
		for (size_t off = 0; off + LOST_REC_SIZE <= c->len; off += LOST_REC_SIZE) {
			r->lost += get_le64(c->data + off + 16);
			r->throttled += get_le64(c->data + off + 24);
		}
	}
}

/*
 * Pass 2: instruction pointers inside each peak's window, and of the
 * samples that fell into a hot bucket.
 */
static void on_ip_samples(void *ctx, const struct memtrace_sample *s, size_t n, uint32_t columns)
{
	struct report *r = ctx;

	(void)columns;
	for (size_t i = 0; i < n; i++) {
		hot_attr_add(&r->attr_obj, s[i].addr, s[i].addr);
		if (!s[i].ip)
			continue;
		hot_attr_add(&r->attr_data, s[i].addr, s[i].ip);
		hot_attr_add(&r->attr_code, s[i].ip, s[i].ip);
		/* peaks are in time order and samples nearly so: skip the windows
		 * that ended before this sample, stop at the first not yet begun */
		while (r->peak_next < r->npeaks && r->peak_to[r->peak_next] < s[i].time)
			r->peak_next++;
		for (size_t p = r->peak_next; p < r->npeaks && r->peak_from[p] < s[i].time; p++)
			if (s[i].time <= r->peak_to[p])
				bucket_map_get(&r->peak_ips[p], s[i].ip)->count++;
	}
}

static int peak_by_value(const void *a, const void *b)
{
	const struct peak *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int peak_by_index(const void *a, const void *b)
{
	const struct peak *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

static void fmt_time(uint64_t t, int ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "%" PRIu64 " insn", t);
	else if (t >= 1000000000ull)
		snprintf(buf, len, "%.3f s", (double)t / 1e9);
	else if (t >= 1000000ull)
		snprintf(buf, len, "%.3f ms", (double)t / 1e6);
	else
		snprintf(buf, len, "%.3f us", (double)t / 1e3);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

struct summary {
	double avg;
	uint64_t peak, total;
};

static struct summary summarize(const struct wss *w)
{
	struct summary s = { 0, 0, wss_total_buckets(w) };
	double sum = 0;

	for (size_t i = 0; i < w->nrows; i++) {
		sum += (double)w->rows[i];
		if (w->rows[i] > s.peak)
			s.peak = w->rows[i];
	}
	s.avg = w->nrows ? sum / (double)w->nrows : 0;
	return s;
}

static int write_series(const char *path, const struct report *r, uint64_t interval)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f) {
		mt_errno("cannot create %s", path);
		return -1;
	}
	fprintf(f, "time,wss_data,wss_code\n");
	size_t n = r->data.nrows > r->code.nrows ? r->data.nrows : r->code.nrows;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", (uint64_t)(i + 1) * interval,
			i < r->data.nrows ? r->data.rows[i] : 0,
			i < r->code.nrows ? r->code.rows[i] : 0);
	int bad = ferror(f);
	if (f != stdout)
		bad |= fclose(f);
	if (bad) {
		mt_errno("writing %s", path);
		return -1;
	}
	return 0;
}

static const char *meta_or(struct trace_reader *tr, const char *key, const char *def)
{
	const char *v = trace_meta(tr, key);

	return v && *v ? v : def;
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
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:i:b:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': o->window = optarg; break;
		case 'i': o->interval = optarg; break;
		case 'b':
			if (mt_parse_size(optarg, &v) || v < 64 || v > (2u << 20) || (v & (v - 1))) {
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

/* An instruction, short: "symbol+0xoff" where known, else as describe. */
static void describe_ip(struct report *r, uint64_t ip, char *buf, size_t len)
{
	struct resolved res;

	if (resolver_lookup(r->res, r->pid, UINT64_MAX, ip, &res) == MT_RESOLVE_SYMBOL)
		snprintf(buf, len, "%s+0x%" PRIx64, res.sym, res.sym_off);
	else
		resolver_describe(r->res, r->pid, UINT64_MAX, ip, buf, len);
}

struct sym_count {
	const char *name;	/* symbol, else mapping ("[vdso]"), else "?" */
	uint64_t count;
};

static int by_sym_count(const void *a, const void *b)
{
	const struct sym_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The symbols of the values counted in a hot bucket (instruction pointers:
 * the functions that touched it; data addresses: the objects touched in
 * it), most samples first, into fn (at most HOT_SYMS_MAX; later ones are
 * left out).  Without symbols_only a value with no symbol counts under its
 * mapping's name, or "?".  Returns how many; *total gets all the bucket's
 * counted samples.
 */
static size_t hot_symbols(struct report *r, const struct hot_attr *attr, uint64_t bucket,
			  struct sym_count *fn, uint64_t *total, int symbols_only)
{
	const struct hot_attr_slot *p;
	size_t np = hot_attr_pairs(attr, bucket, &p), nf = 0;

	*total = 0;
	for (size_t i = 0; i < np; i++) {
		struct resolved res;
		int how = resolver_lookup(r->res, r->pid, UINT64_MAX, p[i].ip, &res);
		const char *name = how == MT_RESOLVE_SYMBOL ? res.sym
				   : how == MT_RESOLVE_MAPPING ? res.region : "?";
		size_t j = 0;

		*total += p[i].count;
		if (symbols_only && how != MT_RESOLVE_SYMBOL)
			continue;
		while (j < nf && strcmp(fn[j].name, name))
			j++;
		if (j == nf) {
			if (nf == HOT_SYMS_MAX)
				continue;
			fn[nf++] = (struct sym_count){ name, 0 };
		}
		fn[j].count += p[i].count;
	}
	qsort(fn, nf, sizeof(*fn), by_sym_count);
	return nf;
}

static void fmt_share(uint64_t part, uint64_t whole, char *buf, size_t len)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0;

	if (pct < 0.5)
		snprintf(buf, len, "<1 %%");
	else
		snprintf(buf, len, "%.0f %%", pct);
}

/*
 * Where a hot bucket is: its mapping and offset.  A data bucket adds the
 * object (symbol) that at least half of its samples fell into, if any;
 * a code bucket adds nothing: the functions running in it are listed
 * separately, and the one at a code page's first byte says nothing.
 */
static void describe_bucket(struct report *r, uint64_t bucket, unsigned shift, int code,
			    char *buf, size_t len)
{
	uint64_t addr = bucket << shift, total;
	struct sym_count obj[HOT_SYMS_MAX];
	struct resolved res;

	if (resolver_lookup(r->res, r->pid, UINT64_MAX, addr, &res) == MT_RESOLVE_UNMAPPED) {
		snprintf(buf, len, "?");
		return;
	}
	int n = snprintf(buf, len, "%s+0x%" PRIx64, res.region, res.region_off);
	if (code || n < 0 || (size_t)n >= len)
		return;
	if (hot_symbols(r, &r->attr_obj, bucket, obj, &total, 1) && obj[0].count * 2 >= total)
		snprintf(buf + n, len - (size_t)n, " %s", obj[0].name);
}

static void print_hot(FILE *f, struct report *r, const struct hot_bucket *hot, size_t n,
		      const struct hot_attr *attr, uint64_t used, unsigned shift, int code,
		      const char *title, int json, int *first_out)
{
	char where[512], ipw[512], share[16];
	struct hot_bucket ips[HOT_IPS_JSON];
	struct sym_count fn[HOT_SYMS_MAX];
	uint64_t with_ip;

	if (json) {
		fprintf(f, "%s\n  \"%s\": [", *first_out ? "" : ",", title);
		for (size_t i = 0; i < n; i++) {
			uint64_t addr = hot[i].bucket << shift;
			describe_bucket(r, hot[i].bucket, shift, code, where, sizeof(where));
			fprintf(f, "%s\n    {\"address\": %" PRIu64 ", \"count\": %" PRIu64 ", \"location\": ",
				i ? "," : "", addr, hot[i].count);
			json_str(f, where);
			size_t nf = hot_symbols(r, attr, hot[i].bucket, fn, &with_ip, 0);
			fprintf(f, ", \"ip_samples\": %" PRIu64 ", \"functions\": [", with_ip);
			for (size_t j = 0; j < nf && j < HOT_IPS_JSON; j++) {
				fprintf(f, "%s{\"name\": ", j ? ", " : "");
				json_str(f, fn[j].name);
				fprintf(f, ", \"count\": %" PRIu64 "}", fn[j].count);
			}
			size_t ni = hot_attr_top(attr, hot[i].bucket, HOT_IPS_JSON, ips, NULL);
			fprintf(f, "], \"ips\": [");
			for (size_t j = 0; j < ni; j++) {
				describe_ip(r, ips[j].bucket, ipw, sizeof(ipw));
				fprintf(f, "%s{\"ip\": %" PRIu64 ", \"count\": %" PRIu64 ", \"location\": ",
					j ? ", " : "", ips[j].bucket, ips[j].count);
				json_str(f, ipw);
				fputc('}', f);
			}
			fprintf(f, "]}");
		}
		fprintf(f, "%s]", n ? "\n  " : "");
		*first_out = 0;
		return;
	}
	fprintf(f, "\n%s (top %zu of %" PRIu64 "):\n", title, n, used);
	fprintf(f, "  %12s  %-18s  %s\n", "accesses", "address",
		r->have_ip ? (code ? "location  [functions running there]" : "location  [accessed by]")
			   : "location");
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = hot[i].bucket << shift;
		describe_bucket(r, hot[i].bucket, shift, code, where, sizeof(where));
		fprintf(f, "  %12" PRIu64 "  0x%016" PRIx64 "  %s", hot[i].count, addr, where);
		size_t nf = hot_symbols(r, attr, hot[i].bucket, fn, &with_ip, 0);
		for (size_t j = 0; j < nf && j < HOT_FNS_TEXT; j++) {
			fmt_share(fn[j].count, with_ip, share, sizeof(share));
			fprintf(f, "%s%s %s", j ? ", " : "  [", fn[j].name, share);
		}
		fprintf(f, "%s\n", nf ? (nf > HOT_FNS_TEXT ? ", ...]" : "]") : "");
	}
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .top = 10, .sensitivity = 1.0 };
	const char *path;
	struct trace_reader *tr = NULL;
	char err[512], b1[64], b2[64], b3[64], t1[64], t2[64];
	int rc = parse_opts(argc, argv, &o, &path);

	if (rc)
		return rc < 0 ? 0 : rc;

	/* The header decides the units: read it first. */
	struct trace_reader *hdr = trace_open(path, err, sizeof(err));
	if (!hdr) {
		mt_err("%s", err);
		return 1;
	}
	int ns = trace_time_is_ns(hdr);
	uint64_t origin = trace_start_time(hdr);
	uint64_t window, interval, bucket = o.bucket;
	const char *bd = trace_meta(hdr, "bucket_default");
	const char *tp = trace_meta(hdr, "target_pid");
	uint32_t pid = tp ? (uint32_t)strtoul(tp, NULL, 10) : 0;
	trace_close(hdr);
	if (!bucket)
		bucket = bd ? strtoull(bd, NULL, 10) : 4096;
	if (bucket < 64 || bucket > (2u << 20) || (bucket & (bucket - 1)))
		bucket = 4096;
	if (o.window ? mt_parse_duration(o.window, ns, &window) || !window : 0) {
		mt_err("invalid window '%s' (%s)", o.window,
		       ns ? "e.g. 100ms, 1s, 500us" : "an instruction count, e.g. 100000 or 1M");
		return 2;
	}
	if (!o.window)
		window = ns ? 100000000ull : 100000ull;
	if (o.interval ? mt_parse_duration(o.interval, ns, &interval) || !interval : 0) {
		mt_err("invalid interval '%s' (%s)", o.interval,
		       ns ? "e.g. 100ms, 1s, 500us" : "an instruction count, e.g. 100000 or 1M");
		return 2;
	}
	if (!o.interval)
		interval = window;
	unsigned shift = 0;
	while ((1ull << shift) < bucket)
		shift++;

	struct report r = { .pid = pid };
	struct wss_config cfg = { origin, window, interval, shift };
	if (wss_init(&r.data, &cfg, err, sizeof(err)) || wss_init(&r.code, &cfg, err, sizeof(err))) {
		mt_err("%s", err);
		return 2;
	}
	r.res = resolver_new();
	const struct trace_scan_ops ops = { on_samples, on_chunk };
	if (trace_scan(path, &ops, &r, o.json, &tr)) {
		rc = 1;
		goto out;
	}
	if (r.samples) {
		uint64_t end = r.data.last_time > r.code.last_time ? r.data.last_time : r.code.last_time;
		wss_finish(&r.data, end);
		wss_finish(&r.code, end);
	}

	struct peak_config pc = peak_defaults;
	pc.g = o.sensitivity;
	r.npeaks = r.peaks_found = peaks_detect(r.data.rows, r.data.nrows, &pc, &r.peaks);
	if (r.npeaks > MAX_PEAKS) {	/* keep the largest, in time order */
		qsort(r.peaks, r.npeaks, sizeof(*r.peaks), peak_by_value);
		r.npeaks = MAX_PEAKS;
		qsort(r.peaks, r.npeaks, sizeof(*r.peaks), peak_by_index);
	}
	r.hot_data = mt_xcalloc(o.top ? o.top : 1, sizeof(*r.hot_data));
	r.hot_code = mt_xcalloc(o.top ? o.top : 1, sizeof(*r.hot_code));
	r.nhot_data = hot_top(&r.data.map, o.top, r.hot_data);
	r.nhot_code = hot_top(&r.code.map, o.top, r.hot_code);
	hot_attr_init(&r.attr_data, r.hot_data, r.nhot_data, shift);
	hot_attr_init(&r.attr_code, r.hot_code, r.nhot_code, shift);
	hot_attr_init(&r.attr_obj, r.hot_data, r.nhot_data, shift);
	if (r.npeaks && r.have_ip) {
		r.peak_from = mt_xcalloc(r.npeaks, sizeof(uint64_t));
		r.peak_to = mt_xcalloc(r.npeaks, sizeof(uint64_t));
		r.peak_ips = mt_xcalloc(r.npeaks, sizeof(struct bucket_map));
		for (size_t p = 0; p < r.npeaks; p++) {
			uint64_t tk = origin + (uint64_t)(r.peaks[p].index + 1) * interval;
			r.peak_to[p] = tk;
			r.peak_from[p] = tk > window ? tk - window : 0;
			bucket_map_init(&r.peak_ips[p]);
		}
	}
	if (r.nhot_data || (r.have_ip && (r.npeaks || r.nhot_code))) {
		const struct trace_scan_ops pops = { on_ip_samples, NULL };
		if (trace_scan(path, &pops, &r, 1, NULL)) {
			rc = 1;
			goto out;
		}
	}
	hot_attr_finish(&r.attr_data);
	hot_attr_finish(&r.attr_code);
	hot_attr_finish(&r.attr_obj);

	if (o.series && write_series(o.series, &r, interval)) {
		rc = 1;
		goto out;
	}

	struct summary sd = summarize(&r.data), sc = summarize(&r.code);
	uint64_t duration = r.samples ? r.last_time - origin : 0;
	const char *end_reason = trace_end_meta(tr, "end_reason");
	const char *dropped = trace_end_meta(tr, "dropped");
	FILE *f = stdout;
	struct hot_point curve[CURVE_POINTS];
	size_t ncurve = hot_curve(&r.data.map, curve, CURVE_POINTS);

	if (o.json) {
		int first = 0;
		fprintf(f, "{\n  \"trace\": ");
		json_str(f, path);
		static const char *const keys[] = { "backend", "source", "event", "sees", "sample_period",
						    "time_unit", "target_pid", "target_comm", "host",
						    "kernel", "cpu_model", NULL };
		for (int i = 0; keys[i]; i++) {
			fprintf(f, ",\n  \"%s\": ", keys[i]);
			json_str(f, meta_or(tr, keys[i], ""));
		}
		fprintf(f, ",\n  \"complete\": %s", trace_has_end(tr) ? "true" : "false");
		fprintf(f, ",\n  \"end_reason\": ");
		json_str(f, end_reason ? end_reason : "");
		fprintf(f, ",\n  \"bucket_size\": %" PRIu64 ",\n  \"window\": %" PRIu64
			   ",\n  \"interval\": %" PRIu64 ",\n  \"intervals\": %zu",
			bucket, window, interval, r.data.nrows);
		fprintf(f, ",\n  \"samples\": %" PRIu64 ",\n  \"lost\": %" PRIu64
			   ",\n  \"throttled\": %" PRIu64 ",\n  \"dropped\": %s,\n  \"duration\": %" PRIu64,
			r.samples, r.lost, r.throttled, dropped ? dropped : "0", duration);
		fprintf(f, ",\n  \"reordered\": %" PRIu64, r.data.reordered);
		fprintf(f, ",\n  \"wss_data\": {\"avg\": %.3f, \"peak\": %" PRIu64 ", \"total\": %" PRIu64
			   ", \"peak_bytes\": %" PRIu64 ", \"total_bytes\": %" PRIu64 "}",
			sd.avg, sd.peak, sd.total, sd.peak << shift, sd.total << shift);
		fprintf(f, ",\n  \"wss_code\": {\"available\": %s, \"avg\": %.3f, \"peak\": %" PRIu64
			   ", \"total\": %" PRIu64 "}",
			r.have_ip ? "true" : "false", sc.avg, sc.peak, sc.total);
		fprintf(f, ",\n  \"hot_wss\": [");
		for (size_t i = 0; i < ncurve; i++)
			fprintf(f, "%s\n    {\"min_count\": %" PRIu64 ", \"buckets\": %" PRIu64
				   ", \"bytes\": %" PRIu64 ", \"accesses\": %" PRIu64 "}",
				i ? "," : "", curve[i].min_count, curve[i].buckets,
				curve[i].buckets << shift, curve[i].accesses);
		fprintf(f, "%s]", ncurve ? "\n  " : "");
		print_hot(f, &r, r.hot_data, r.nhot_data, &r.attr_data, sd.total, shift, 0,
			  "hot_data", 1, &first);
		print_hot(f, &r, r.hot_code, r.nhot_code, &r.attr_code, sc.total, shift, 1,
			  "hot_code", 1, &first);
		fprintf(f, ",\n  \"peaks_found\": %zu", r.peaks_found);
		fprintf(f, ",\n  \"peaks\": [");
		for (size_t p = 0; p < r.npeaks; p++) {
			uint64_t tk = (uint64_t)(r.peaks[p].index + 1) * interval;
			fprintf(f, "%s\n    {\"index\": %zu, \"time\": %" PRIu64 ", \"wss\": %" PRIu64
				   ", \"locations\": [",
				p ? "," : "", r.peaks[p].index, tk, r.peaks[p].value);
			if (r.peak_ips) {
				struct hot_bucket loc[PEAK_LOCATIONS];
				size_t nl = hot_top(&r.peak_ips[p], PEAK_LOCATIONS, loc);
				for (size_t j = 0; j < nl; j++) {
					char where[512];
					resolver_describe(r.res, r.pid, UINT64_MAX, loc[j].bucket, where,
							  sizeof(where));
					fprintf(f, "%s{\"ip\": %" PRIu64 ", \"count\": %" PRIu64 ", \"location\": ",
						j ? ", " : "", loc[j].bucket, loc[j].count);
					json_str(f, where);
					fputc('}', f);
				}
			}
			fprintf(f, "]}");
		}
		fprintf(f, "%s]\n}\n", r.npeaks ? "\n  " : "");
		goto out;
	}

	fprintf(f, "trace:     %s%s\n", path, trace_has_end(tr) ? "" : "  (incomplete)");
	const char *period = meta_or(tr, "sample_period", "?");
	fprintf(f, "source:    %s via %s backend, event %s, %s%s%s\n", meta_or(tr, "source", "?"),
		meta_or(tr, "backend", "?"), meta_or(tr, "event", "?"),
		strcmp(period, "1") ? "one sample every " : "every event",
		strcmp(period, "1") ? period : "", strcmp(period, "1") ? " events" : "");
	fprintf(f, "sees:      %s\n", meta_or(tr, "sees", "?"));
	fprintf(f, "target:    pid %s (%s) on %s, kernel %s\n", meta_or(tr, "target_pid", "?"),
		meta_or(tr, "target_comm", "?"), meta_or(tr, "host", "?"), meta_or(tr, "kernel", "?"));
	fmt_time(duration, ns, t1, sizeof(t1));
	fprintf(f, "samples:   %" PRIu64 " in %s   lost %" PRIu64 "   throttled %" PRIu64
		   "   dropped %s%s%s\n",
		r.samples, t1, r.lost, r.throttled, dropped ? dropped : "0",
		end_reason ? "   ended: " : "", end_reason ? end_reason : "");
	fmt_time(window, ns, t1, sizeof(t1));
	fmt_time(interval, ns, t2, sizeof(t2));
	fprintf(f, "windows:   bucket %s   window %s   interval %s   %zu intervals\n",
		mt_fmt_bytes(bucket, b1, sizeof(b1)), t1, t2, r.data.nrows);
	if (!r.samples) {
		fprintf(f, "\nno samples in this trace\n");
		goto out;
	}
	fprintf(f, "\nData WSS avg/peak/total: %.1f/%" PRIu64 "/%" PRIu64 " buckets (%s/%s/%s)\n",
		sd.avg, sd.peak, sd.total, mt_fmt_bytes((uint64_t)(sd.avg * (double)bucket), b1, sizeof(b1)),
		mt_fmt_bytes(sd.peak << shift, b2, sizeof(b2)),
		mt_fmt_bytes(sd.total << shift, b3, sizeof(b3)));
	if (r.have_ip)
		fprintf(f, "Code WSS avg/peak/total: %.1f/%" PRIu64 "/%" PRIu64 " buckets (%s/%s/%s)\n",
			sc.avg, sc.peak, sc.total,
			mt_fmt_bytes((uint64_t)(sc.avg * (double)bucket), b1, sizeof(b1)),
			mt_fmt_bytes(sc.peak << shift, b2, sizeof(b2)),
			mt_fmt_bytes(sc.total << shift, b3, sizeof(b3)));
	else
		fprintf(f, "Code WSS: not available (no instruction pointers in this trace)\n");
	int first = 1;
	print_hot(f, &r, r.hot_data, r.nhot_data, &r.attr_data, sd.total, shift, 0,
		  "Hot data buckets", 0, &first);
	if (r.have_ip)
		print_hot(f, &r, r.hot_code, r.nhot_code, &r.attr_code, sc.total, shift, 1,
			  "Hot code buckets", 0, &first);
	fprintf(f, "\nHot working set by access frequency:\n  %10s  %10s  %12s  %s\n", ">= accesses",
		"buckets", "size", "share of accesses");
	for (size_t i = 0; i < ncurve; i++)
		fprintf(f, "  %10" PRIu64 "  %10" PRIu64 "  %12s  %5.1f %%\n", curve[i].min_count,
			curve[i].buckets, mt_fmt_bytes(curve[i].buckets << shift, b1, sizeof(b1)),
			100.0 * (double)curve[i].accesses / (double)r.samples);
	if (r.peaks_found > r.npeaks)
		fprintf(f, "\nPeaks of the data WSS (%zu, the %zu largest listed):\n", r.peaks_found,
			r.npeaks);
	else
		fprintf(f, "\nPeaks of the data WSS (%zu):\n", r.npeaks);
	for (size_t p = 0; p < r.npeaks; p++) {
		fmt_time((uint64_t)(r.peaks[p].index + 1) * interval, ns, t1, sizeof(t1));
		fprintf(f, "  [%zu] at %s: %" PRIu64 " buckets (%s)", p, t1, r.peaks[p].value,
			mt_fmt_bytes(r.peaks[p].value << shift, b1, sizeof(b1)));
		if (r.peak_ips) {
			struct hot_bucket loc[PEAK_LOCATIONS];
			size_t nl = hot_top(&r.peak_ips[p], PEAK_LOCATIONS, loc);
			for (size_t j = 0; j < nl; j++) {
				char where[512];
				resolver_describe(r.res, r.pid, UINT64_MAX, loc[j].bucket, where, sizeof(where));
				fprintf(f, "%s %s (%" PRIu64 ")", j ? "," : "  at", where, loc[j].count);
			}
		}
		fputc('\n', f);
	}
out:
	if (tr)
		trace_close(tr);
	if (r.peak_ips)
		for (size_t p = 0; p < r.npeaks; p++)
			bucket_map_free(&r.peak_ips[p]);
	free(r.peak_ips);
	hot_attr_free(&r.attr_data);
	hot_attr_free(&r.attr_code);
	hot_attr_free(&r.attr_obj);
	free(r.hot_data);
	free(r.hot_code);
	free(r.peak_from);
	free(r.peak_to);
	free(r.peaks);
	resolver_free(r.res);
	wss_free(&r.data);
	wss_free(&r.code);
	return rc;
}
