/* perf_unzip.h - the records inside PERF_RECORD_COMPRESSED (`perf record
 * -z`): one zstd stream across all of them, whose records may straddle two
 * compressed records (source/import/perf_file.c). */
#ifndef MEMTRACE_SOURCE_IMPORT_PERF_UNZIP_H
#define MEMTRACE_SOURCE_IMPORT_PERF_UNZIP_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

struct perf_unzip {
	ZSTD_DStream *zs;
	unsigned char *buf;
	size_t len, at, cap;		/* buf[at..len) decompressed, not handed out */
};

/* Decompresses one record's payload.  0, or -1 after a one-line error. */
int perf_unzip_feed(struct perf_unzip *z, const char *name, const void *p, size_t n);

/*
 * The next whole decompressed record, copied to bounce (64 KiB, aligned):
 * 1 with *rec set, 0 when none is complete, -1 after a one-line error.
 */
int perf_unzip_next(struct perf_unzip *z, const char *name, uint64_t *bounce,
		    const struct perf_event_header **rec);

/* Bytes left over (a cut record at the end of the input). */
size_t perf_unzip_pending(const struct perf_unzip *z);

void perf_unzip_free(struct perf_unzip *z);

#endif
