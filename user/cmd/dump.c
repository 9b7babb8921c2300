/* dump.c - `memtracectl dump`: every sample as a CSV line (like perf script). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "trace/agg.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "trace/scan.h"
#include "util/util.h"

struct dump {
	FILE *out;
	int header;
	int maps;
	int regions;	/* --regions: REGIONS rows instead of samples */
	int agg;	/* --agg: AGG rows (record --aggregate) instead of samples */
};

/* --agg: "# interval" line per AGG chunk, then its rows time,pid,addr,count */
static void dump_agg(struct dump *d, const struct trace_chunk *c)
{
	struct trace_agg a;

	if (trace_agg_parse(c->data, c->len, &a)) {
		fprintf(d->out, "# malformed AGG chunk at offset %llu\n", (unsigned long long)c->offset);
		return;
	}
	fprintf(d->out, "# interval end=%" PRIu64 " length=%" PRIu64 " samples=%" PRIu64
		" full=%" PRIu64 " rows=%" PRIu64 "\n", a.time, a.interval, a.samples, a.full,
		a.rows);
	for (size_t i = 0; i < a.rows; i++)
		fprintf(d->out, "%" PRIu64 ",%" PRIu32 ",0x%" PRIx64 ",%" PRIu64 "\n", a.time,
			trace_agg_pid(&a, i), trace_agg_addr(&a, i), trace_agg_count(&a, i));
}

static void on_samples(void *ctx, const struct memtrace_sample *s, size_t n, uint32_t columns)
{
	struct dump *d = ctx;

	(void)columns;
	if (d->regions || d->agg)
		return;
	for (size_t i = 0; i < n; i++)
		fprintf(d->out, "%llu,%u,%u,%u,0x%llx,0x%llx,%u,0x%llx\n",
			(unsigned long long)s[i].time, s[i].pid, s[i].tid, s[i].cpu,
			(unsigned long long)s[i].addr, (unsigned long long)s[i].ip, s[i].weight,
			(unsigned long long)s[i].data_src);
}

static void on_chunk(void *ctx, const struct trace_chunk *c)
{
	struct dump *d = ctx;

	if (d->agg && c->type == CHUNK_AGG)
		dump_agg(d, c);
	if (d->maps && c->type == CHUNK_MAPS && c->len >= MAPS_HDR_SIZE)
		fprintf(d->out, "# maps time=%" PRIu64 " pid=%" PRIu32 "\n%.*s", get_le64(c->data),
			get_le32(c->data + 8), (int)(c->len - MAPS_HDR_SIZE),
			(const char *)c->data + MAPS_HDR_SIZE);
	if (d->regions && c->type == CHUNK_REGIONS && c->len == (size_t)c->count * REGION_REC_SIZE)
		for (uint32_t i = 0; i < c->count; i++) {
			const unsigned char *p = c->data + (size_t)i * REGION_REC_SIZE;
			fprintf(d->out, "%" PRIu64 ",%u,0x%" PRIx64 ",0x%" PRIx64 ",%u,%u\n",
				get_le64(p), get_le32(p + 24), get_le64(p + 8), get_le64(p + 16),
				get_le32(p + 28), get_le32(p + 32));
		}
	if (d->maps && (c->type == CHUNK_HEADER || c->type == CHUNK_END))
		fprintf(d->out, "# %s\n%.*s", c->type == CHUNK_HEADER ? "header" : "end", (int)c->len,
			(const char *)c->data);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "meta", no_argument, NULL, 'm' },
		{ "regions", no_argument, NULL, 'r' },
		{ "agg", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct dump d = { .out = stdout };
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "mh", opts, NULL)) != -1) {
		switch (c) {
		case 'm': d.maps = 1; break;
		case 'r': d.regions = 1; break;
		case 'A': d.agg = 1; break;
		case 'h':
			printf("usage: memtracectl dump FILE [--meta] [--regions | --agg]\n\n"
			       "Prints every sample as CSV: time,pid,tid,cpu,addr,ip,weight,data_src\n"
			       "(time in the trace's unit). --meta also prints the header, the memory\n"
			       "maps snapshots and the end record as lines starting with '#'.\n"
			       "--regions prints the DAMON regions of a -e damon trace instead:\n"
			       "time,pid,start,end,nr_accesses,age (one row per region per aggregation).\n"
			       "--agg prints the counts of a record --aggregate trace instead: per\n"
			       "interval a line '# interval end=T length=L samples=S full=F rows=R' (S\n"
			       "accesses counted, F of them not kept: bucket map full), then its rows\n"
			       "time,pid,addr,count (time: the interval's end; addr: the bucket's).\n");
			return 0;
		default:
			fprintf(stderr, "memtracectl: see 'memtracectl dump --help'\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		mt_err("dump needs exactly one trace file");
		return 2;
	}
	char err[512];
	struct trace_reader *hdr = trace_open(argv[optind], err, sizeof(err));
	int agg = hdr && trace_meta(hdr, "aggregate") && !d.regions && !d.agg;
	if (!hdr) {	/* before any output (a FIFO, a missing file) */
		mt_err("%s", err);
		return 1;
	}
	trace_close(hdr);
	if (agg) {
		mt_err("%s: an aggregated trace (record --aggregate) holds per-interval bucket "
		       "counts, no samples to dump (dump --agg prints the counts)", argv[optind]);
		return 1;
	}
	const struct trace_scan_ops ops = { on_samples, on_chunk };
	fprintf(d.out, d.regions ? "time,pid,start,end,nr_accesses,age\n"
		       : d.agg	 ? "time,pid,addr,count\n"
				 : "time,pid,tid,cpu,addr,ip,weight,data_src\n");
	if (trace_scan(argv[optind], &ops, &d, 0, NULL))
		return 1;
	if (fflush(stdout)) {
		mt_errno("writing the output");
		return 1;
	}
	return 0;
}
