/* perf_file.h - a reader of perf.data files and pipe-mode streams.
 *
 * Format: tools/perf/Documentation/perf.data-file-format.txt.  A file
 * ("PERFILE2" header with attr and data sections, features after the data)
 * or a pipe-mode stream (16-byte header, attrs and features as records)
 * is read sequentially; perf_file_next() hands out the records of the data
 * section one at a time and keeps the attrs and the features it needs
 * (hostname, os release, arch, cpu, event names); the records of `perf record
 * -z` are decompressed (perf_unzip.c).  Little-endian files only.
 * Used by `memtracectl import --format perf` (source/import/perf_import.c).
 */
#ifndef MEMTRACE_SOURCE_IMPORT_PERF_FILE_H
#define MEMTRACE_SOURCE_IMPORT_PERF_FILE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source/import/perf_unzip.h"

/* user-space record types (tools/perf/util/event.h) */
#define PERF_FILE_HEADER_ATTR		64
#define PERF_FILE_HEADER_TRACING_DATA	66
#define PERF_FILE_FINISHED_ROUND	68
#define PERF_FILE_AUXTRACE		71
#define PERF_FILE_HEADER_FEATURE	80
#define PERF_FILE_COMPRESSED		81
#define PERF_FILE_COMPRESSED2		83	/* u64 data_size, then the data */

struct perf_file_attr {
	struct perf_event_attr attr;	/* zero beyond what the file holds */
	char name[64];			/* from EVENT_DESC, else made up */
};

/* What a PERF_RECORD_SAMPLE or a sample_id trailer holds. */
struct perf_file_sample {
	const struct perf_file_attr *attr;	/* NULL: unknown id */
	uint64_t id, ip, time, addr, period, weight, data_src;
	uint32_t pid, tid, cpu;
	bool has_time, has_cpu, has_tid;
};

struct perf_id_map {
	uint64_t id;
	uint32_t attr;
};

struct perf_file {
	const char *name;
	int fd;
	bool pipe;
	uint64_t pos;			/* bytes of the input consumed */
	uint64_t data_end;		/* file mode: end of the data section */
	unsigned char *buf;
	size_t len, at;			/* buf[at..len) unread */
	uint64_t *bounce;		/* a record at an odd offset, copied aligned */
	struct perf_unzip unzip;	/* records of perf record -z */
	bool eof;
	struct perf_file_attr *attrs;
	size_t nattrs;
	struct perf_id_map *ids;	/* sorted by id */
	size_t nids, ids_cap;
	bool ids_sorted;
	char hostname[128], osrelease[128], arch[32], cpudesc[256];
	uint64_t records, skipped_bytes;
	uint64_t unknown_ids;		/* samples of ids no attr lists (left out) */
};

/*
 * Opens name ("-": stdin) and reads the header (file mode: attrs, ids and
 * features too).  -1 after a one-line error (not a perf.data file, cut,
 * big-endian, unreadable).
 */
int perf_file_open(struct perf_file *f, const char *name);

/*
 * The next record of the data section: 1 with *rec pointing at it (valid
 * until the next call; at least sizeof(header) bytes, header.size in all),
 * 0 at the end, -1 after a one-line error (cut record, bad size).  Attrs
 * and features that come as records (pipe mode) are taken in and skipped.
 */
int perf_file_next(struct perf_file *f, const struct perf_event_header **rec);

/* The attr of a sample id (NULL: unknown); the only attr if there is one. */
const struct perf_file_attr *perf_file_attr_of_id(struct perf_file *f, uint64_t id);

/* perf_sample.c: decodes a PERF_RECORD_SAMPLE.  0, or -1 if it is cut or its id unknown. */
int perf_file_sample(struct perf_file *f, const struct perf_event_header *rec,
		     struct perf_file_sample *s);

/* The sample_id trailer (time, cpu, pid/tid) of any other kernel record. */
void perf_file_sample_id(struct perf_file *f, const struct perf_event_header *rec,
			 struct perf_file_sample *s);

void perf_file_close(struct perf_file *f);

#endif
