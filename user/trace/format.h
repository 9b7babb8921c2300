/* format.h - on-disk constants of the trace file (docs/trace-format.md). */
#ifndef MEMTRACE_TRACE_FORMAT_H
#define MEMTRACE_TRACE_FORMAT_H

#include <stdint.h>
#include <string.h>

#define TRACE_MAGIC		"MEMTRACE"
#define TRACE_MAJOR		1
#define TRACE_MINOR		4
#define TRACE_FILE_HDR_SIZE	16

#define CHUNK_MAGIC		0x4B43544Du	/* "MTCK" little-endian */
#define CHUNK_HDR_SIZE		32
#define CHUNK_MAX_LEN		(64u << 20)
#define CHUNK_MAX_SAMPLES	65536

enum chunk_type {
	CHUNK_HEADER = 1,
	CHUNK_SAMPLES = 2,
	CHUNK_MAPS = 3,
	CHUNK_THREADS = 4,
	CHUNK_LOST = 5,
	CHUNK_WINDOWS = 6,
	CHUNK_END = 7,
	CHUNK_REGIONS = 8,	/* DAMON regions, one row per region per aggregation */
	CHUNK_AGG = 9,		/* record --aggregate: per-interval bucket counts */
	CHUNK_WINDOWS2 = 10,	/* WINDOWS with the estimator's counts */
	CHUNK_ALLOCS = 11,	/* allocator events and their stacks (record --allocs) */
	CHUNK_SPANS = 12,	/* --mark: per-thread spans between two probes */
	CHUNK_LABELS = 13,	/* --labels: the labels file's text */
	CHUNK_SPANS2 = 14,	/* SPANS with a label dictionary, delta-coded columns */
	CHUNK_PASSES = 15,	/* a pass-based source's observation passes (minor 3) */
	CHUNK_GAPS = 16,	/* record --pidfile: stretches without a target (minor 3) */
};

enum chunk_codec {
	CODEC_STORED = 0,
	CODEC_ZSTD = 1,
};

/* Sample columns, bit numbers of the SAMPLES column mask. */
enum sample_column {
	COL_TIME, COL_ADDR, COL_PID, COL_TID, COL_CPU,
	COL_IP, COL_WEIGHT, COL_DATA_SRC,
	COL_COUNT
};

#define COLS_REQUIRED	((1u << COL_TIME) | (1u << COL_ADDR) | (1u << COL_PID) | \
			 (1u << COL_TID) | (1u << COL_CPU))
#define COLS_ALL	((1u << COL_COUNT) - 1)

#define THREAD_REC_SIZE	32
#define LOST_REC_SIZE	32
#define WINDOW_HDR_SIZE	24
#define WINDOW_REC_SIZE	24
#define WINDOW2_REC_SIZE	48	/* WINDOWS2: + samples, f1, f2 of the data row */
#define MAPS_HDR_SIZE	16
#define REGION_REC_SIZE	40	/* REGIONS: time, start, end, pid, nr_accesses, age, 0 */
#define AGG_HDR_SIZE	48	/* AGG: one interval: length, end, samples, full, rows, shift */
#define AGG_ROW_SIZE	24	/* AGG row: bucket address, count, pid, 0 */
#define SPAN_REC_HDR	28	/* SPANS: start, end, pid, tid, label length; label */
#define SPAN_LABEL_MAX	4096
#define SPAN_OPEN	(1u << 31)	/* in the length word: the span never ended */
#define SPAN2_HDR_SIZE	24	/* SPANS2: flags, base, labels, threads, t0 */
#define SPAN2_RESET	1u	/* SPANS2 flags: the label dictionary starts empty */
#define SPAN2_GRAIN_SHIFT	8	/* SPANS2 flags bits 8..13: log2 of the time grain */
#define SPAN2_GRAIN_MASK	(0x3fu << SPAN2_GRAIN_SHIFT)
#define SPAN2_GRAIN_LOG_MAX	31	/* a grain of at most 2^31 time units */
#define SPAN2_MAX_SPANS	CHUNK_MAX_SAMPLES	/* spans in one SPANS2 chunk */
#define PASS_REC_SIZE	16	/* PASSES: time, pid (0: every target), what */
#define GAP_REC_SIZE	24	/* GAPS: from, to, pid (the target that left), what */

struct chunk_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t codec;
	uint32_t stored_len;
	uint32_t raw_len;
	uint32_t count;
	uint32_t payload_crc;
	uint32_t header_crc;
	uint32_t reserved;
};

/* Little-endian helpers (the format is little-endian on every host). */
static inline void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint16_t get_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t get_le64(const unsigned char *p)
{
	return (uint64_t)get_le32(p) | ((uint64_t)get_le32(p + 4) << 32);
}

#endif
