/*
 * encode_bench - what the recorder's last step costs for a recorded stream:
 * the samples of TRACE re-encoded (column transform + zstd, as
 * trace_write_samples does) in chunks of N samples at zstd level L, for a
 * grid of N and L.  Prints bytes per sample (chunk headers included) and
 * CPU ns per sample (encode + compress + CRC, one core), medians of RUNS.
 * This is how bench/record's chunk size and level were chosen
 * (docs/performance.md, "Recording").
 *
 *   encode_bench TRACE [RUNS [CHUNK LEVEL]]   (default 5 runs, the grid)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "memtrace/trace.h"
#include "trace/codec.h"
#include "trace/crc32c.h"
#include "trace/format.h"

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static struct memtrace_sample *load(const char *path, size_t *n, uint32_t *columns)
{
	char err[256];
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	struct memtrace_trace_info info;

	if (!t || memtrace_trace_info(t, &info, err, sizeof(err))) {
		fprintf(stderr, "encode_bench: %s\n", err);
		exit(1);
	}
	size_t cap = info.samples ? info.samples : 1;
	struct memtrace_columns c = {
		malloc(cap * 8), malloc(cap * 8), malloc(cap * 8), malloc(cap * 8),
		malloc(cap * 4), malloc(cap * 4), malloc(cap * 4), malloc(cap * 4), cap
	};
	if (memtrace_trace_read(t, NULL, &c, n, err, sizeof(err))) {
		fprintf(stderr, "encode_bench: %s\n", err);
		exit(1);
	}
	struct memtrace_sample *s = calloc(cap, sizeof(*s));
	for (size_t i = 0; i < *n; i++)
		s[i] = (struct memtrace_sample){ .time = c.time[i], .addr = c.addr[i], .ip = c.ip[i],
						 .data_src = c.data_src[i], .pid = c.pid[i],
						 .tid = c.tid[i], .cpu = c.cpu[i],
						 .weight = c.weight[i] };
	const char *fields = memtrace_trace_meta(t, "fields");
	*columns = COLS_REQUIRED;
	if (fields && strstr(fields, "ip"))
		*columns |= 1u << COL_IP;
	if (fields && strstr(fields, "weight"))
		*columns |= 1u << COL_WEIGHT;
	if (fields && strstr(fields, "data_src"))
		*columns |= 1u << COL_DATA_SRC;
	free(c.time), free(c.addr), free(c.ip), free(c.data_src);
	free(c.pid), free(c.tid), free(c.cpu), free(c.weight);
	memtrace_trace_close(t);
	return s;
}

/* One pass: bytes written for the whole stream; *ns its CPU time. */
static size_t pass(const struct memtrace_sample *s, size_t n, uint32_t columns, size_t chunk,
		   int level, ZSTD_CCtx *zc, struct bytebuf *raw, struct bytebuf *out, double *ns)
{
	size_t bytes = 0;
	double t0 = cpu_ns();

	for (size_t at = 0; at < n; at += chunk) {
		size_t k = n - at < chunk ? n - at : chunk;
		raw->len = 0;
		sample_encode(s + at, k, columns, raw);
		out->len = 0;
		bytebuf_reserve(out, ZSTD_compressBound(raw->len));
		size_t z = ZSTD_compressCCtx(zc, out->data, out->cap, raw->data, raw->len, level);
		if (ZSTD_isError(z) || z >= raw->len)
			z = raw->len;
		crc32c(0, out->data, z);
		bytes += CHUNK_HDR_SIZE + z;
	}
	*ns = cpu_ns() - t0;
	return bytes;
}

int main(int argc, char **argv)
{
	static const size_t chunks[] = { 4096, 16384, 32768, 65536 };
	static const int levels[] = { -1, 1, 2, 3, 5 };
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	size_t one_chunk = argc > 4 ? (size_t)atol(argv[3]) : 0;
	int one_level = argc > 4 ? atoi(argv[4]) : 0;
	size_t n;
	uint32_t columns;

	if (argc < 2 || runs < 1 || (argc > 4 && (one_chunk < 1 || one_chunk > CHUNK_MAX_SAMPLES))) {
		fprintf(stderr, "usage: encode_bench TRACE [RUNS [CHUNK LEVEL]]\n");
		return 2;
	}
	struct memtrace_sample *s = load(argv[1], &n, &columns);
	ZSTD_CCtx *zc = ZSTD_createCCtx();
	struct bytebuf raw = { 0 }, out = { 0 };
	double *t = calloc((size_t)runs, sizeof(*t));

	printf("%zu samples, columns 0x%x; bytes/sample and CPU ns/sample (median of %d)\n", n,
	       columns, runs);
	printf("%8s %6s %10s %10s\n", "chunk", "level", "B/sample", "ns/sample");
	for (size_t c = 0; c < sizeof(chunks) / sizeof(*chunks); c++)
		for (size_t l = 0; l < sizeof(levels) / sizeof(*levels); l++) {
			size_t chunk = one_chunk ? one_chunk : chunks[c], bytes = 0;
			int level = one_chunk ? one_level : levels[l];
			for (int r = 0; r < runs; r++)
				bytes = pass(s, n, columns, chunk, level, zc, &raw, &out, &t[r]);
			qsort(t, (size_t)runs, sizeof(*t), cmp_double);
			printf("%8zu %6d %10.3f %10.1f\n", chunk, level, (double)bytes / n,
			       t[runs / 2] / n);
			if (one_chunk)
				goto done;
		}
done:
	ZSTD_freeCCtx(zc);
	bytebuf_free(&raw);
	bytebuf_free(&out);
	free(t);
	free(s);
	return 0;
}
