/* render_sites.c - `memtracectl report --by-site`: the allocation sites
 * (memtrace/sites.h) as text or JSON, and the hot data buckets of the
 * report with the site most of their samples were charged to. */
#include <inttypes.h>
#include <stdio.h>

#include "cmd/render.h"
#include "util/util.h"

static void fmt_time(double t, int ns, char *buf, size_t len)
{
	if (!ns)
		snprintf(buf, len, "%.0f insn", t);
	else if (t >= 1e9)
		snprintf(buf, len, "%.2f s", t / 1e9);
	else if (t >= 1e6)
		snprintf(buf, len, "%.2f ms", t / 1e6);
	else
		snprintf(buf, len, "%.1f us", t / 1e3);
}

void render_text_sites(FILE *f, const char *path, const struct memtrace_report *r,
		       const struct memtrace_sites *s, uint32_t pid)
{
	const struct memtrace_words *w = memtrace_words_of_meta(r->meta);
	char b1[32], b2[32], life[32];

	fprintf(f, "Allocation sites of %s\n", path);
	fprintf(f, "  %llu allocation records; small blocks sampled one per %llu bytes on average, "
		"blocks >= %llu bytes all\n", (unsigned long long)s->events,
		(unsigned long long)s->sample_bytes, (unsigned long long)s->large_bytes);
	fprintf(f, "  %llu of %llu %s charged to a recorded block (%.1f %%); buckets of %llu bytes\n\n",
		(unsigned long long)s->attributed, (unsigned long long)s->samples, w->samples,
		s->samples ? 100.0 * (double)s->attributed / (double)s->samples : 0.0,
		(unsigned long long)s->bucket);
	fprintf(f, "  %-44s %10s %10s %6s %8s %8s %7s %11s\n", "site", "allocated", "blocks",
		"live", w->count, "buckets", "share", "lifetime");
	for (size_t i = 0; i < s->n; i++) {
		const struct memtrace_site *x = &s->sites[i];
		mt_fmt_bytes((uint64_t)(x->bytes + 0.5), b1, sizeof(b1));
		snprintf(b2, sizeof(b2), "%.0f", x->est_blocks);
		if (x->freed)
			fmt_time(x->mean_lifetime, r->time_is_ns, life, sizeof(life));
		else
			snprintf(life, sizeof(life), "-");
		fprintf(f, "  %-44s %10s %10s %6llu %8llu %8llu %6.1f%% %11s\n", x->name, b1, b2,
			(unsigned long long)x->live, (unsigned long long)x->samples,
			(unsigned long long)x->buckets, 100.0 * x->hot_share, life);
	}
	if (r->nhot_data) {
		struct render_addr a;
		render_addr_open(&a, r, pid);
		fprintf(f, "\n  %s data buckets and their sites:\n", w->hot);
		for (size_t i = 0; i < r->nhot_data; i++) {
			const struct memtrace_hot_bucket *h = &r->hot_data[i];
			uint64_t n = 0;
			long site = memtrace_sites_of_bucket(s, h->addr, &n);
			fprintf(f, "  %#18llx %8llu  %-30s %s",
				(unsigned long long)render_addr(&a, h->addr, NULL),
				(unsigned long long)h->count, h->where,
				site >= 0 ? s->sites[site].name : "(no recorded block)");
			if (site >= 0 && n != h->count)
				fprintf(f, " (%llu of them)", (unsigned long long)n);
			fputc('\n', f);
		}
	}
}

void render_json_sites(FILE *f, const char *path, const struct memtrace_report *r,
		       const struct memtrace_sites *s, uint32_t pid)
{
	struct render_addr a;

	fprintf(f, "{\"file\": ");
	render_json_str(f, path);
	fprintf(f, ", \"samples\": %" PRIu64 ", \"attributed\": %" PRIu64 ", \"events\": %" PRIu64
		", \"alloc_sample_bytes\": %" PRIu64 ", \"alloc_large_bytes\": %" PRIu64
		", \"bucket\": %" PRIu64 ",\n \"sites\": [", s->samples, s->attributed, s->events,
		s->sample_bytes, s->large_bytes, s->bucket);
	for (size_t i = 0; i < s->n; i++) {
		const struct memtrace_site *x = &s->sites[i];
		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		render_json_str(f, x->name);
		fprintf(f, ", \"function\": ");
		render_json_str(f, x->function);
		fprintf(f, ", \"file\": ");
		render_json_str(f, x->file);
		fprintf(f, ", \"line\": %u, \"blocks\": %" PRIu64 ", \"est_blocks\": %.15g"
			", \"bytes\": %.15g, \"live\": %" PRIu64 ", \"live_bytes\": %.15g"
			", \"freed\": %" PRIu64 ", \"mean_lifetime\": %.6g, \"samples\": %" PRIu64
			", \"buckets\": %" PRIu64 ", \"hot_share\": %.6g}", x->line, x->blocks,
			x->est_blocks, x->bytes, x->live, x->live_bytes, x->freed, x->mean_lifetime,
			x->samples, x->buckets, x->hot_share);
	}
	fprintf(f, "],\n \"hot_data\": [");
	render_addr_open(&a, r, pid);
	for (size_t i = 0; i < r->nhot_data; i++) {
		const struct memtrace_hot_bucket *h = &r->hot_data[i];
		uint64_t n = 0;
		long site = memtrace_sites_of_bucket(s, h->addr, &n);
		uint32_t p;
		uint64_t addr = render_addr(&a, h->addr, &p);
		fprintf(f, "%s\n  {\"address\": %" PRIu64 ", \"pid\": %u, \"key\": %" PRIu64
			", \"count\": %" PRIu64 ", \"location\": ", i ? "," : "", addr, p, h->addr,
			h->count);
		render_json_str(f, h->where);
		fprintf(f, ", \"site\": ");
		if (site >= 0)
			render_json_str(f, s->sites[site].name);
		else
			fprintf(f, "null");
		fprintf(f, ", \"site_samples\": %" PRIu64 "}", n);
	}
	fprintf(f, "]}\n");
}
