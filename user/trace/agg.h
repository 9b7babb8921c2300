/* agg.h - AGG chunks (record --aggregate, trace/format.h): one interval's
 * bucket counts.  Header (AGG_HDR_SIZE): interval length, its end time,
 * samples the kernel counted in it, those of them in no row (bucket map
 * full), the number of rows, the bucket shift; then rows (AGG_ROW_SIZE):
 * bucket address, count, pid. */
#ifndef MEMTRACE_TRACE_AGG_H
#define MEMTRACE_TRACE_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "trace/format.h"

struct trace_agg {
	uint64_t interval;	/* the interval (time unit of the trace) */
	uint64_t time;		/* its end: start + k * interval */
	uint64_t samples;	/* accesses counted in the interval */
	uint64_t full;		/* of them, not in a row: the bucket map was full */
	uint64_t rows;		/* distinct (pid, bucket) pairs of the interval */
	unsigned shift;		/* log2(bucket size) */
	const unsigned char *row;	/* rows * AGG_ROW_SIZE bytes */
};

/* 0, or -1 when the payload is not a well-formed AGG chunk. */
int trace_agg_parse(const unsigned char *p, size_t len, struct trace_agg *a);

/* Writers: the header from a (row unused) into p[0..AGG_HDR_SIZE), and
 * one row into p[0..AGG_ROW_SIZE) (the reserved word zeroed). */
static inline void trace_agg_put_header(unsigned char *p, const struct trace_agg *a)
{
	put_le64(p, a->interval);
	put_le64(p + 8, a->time);
	put_le64(p + 16, a->samples);
	put_le64(p + 24, a->full);
	put_le64(p + 32, a->rows);
	put_le32(p + 40, a->shift);
	put_le32(p + 44, 0);
}

static inline void trace_agg_put_row(unsigned char *p, uint64_t addr, uint64_t count, uint32_t pid)
{
	put_le64(p, addr);
	put_le64(p + 8, count);
	put_le32(p + 16, pid);
	put_le32(p + 20, 0);
}

static inline uint64_t trace_agg_addr(const struct trace_agg *a, size_t i)
{
	return get_le64(a->row + i * AGG_ROW_SIZE);
}

static inline uint64_t trace_agg_count(const struct trace_agg *a, size_t i)
{
	return get_le64(a->row + i * AGG_ROW_SIZE + 8);
}

static inline uint32_t trace_agg_pid(const struct trace_agg *a, size_t i)
{
	return get_le32(a->row + i * AGG_ROW_SIZE + 16);
}

#endif
