/* sample_codec.c - per-column offset/delta transform, minimal byte width
 * and byte-plane shuffling of sample columns (docs/trace-format.md). */
#include "trace/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "util/util.h"

#define COL_HDR_SIZE 16
#define DECODE_BLOCK 512	/* rows decoded at a time: 24 KiB of samples */

void bytebuf_reserve(struct bytebuf *b, size_t extra)
{
	if (b->len + extra <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + extra)
		cap *= 2;
	b->data = mt_xrealloc(b->data, cap);
	b->cap = cap;
}

void bytebuf_put(struct bytebuf *b, const void *p, size_t n)
{
	if (n == 0)	/* an empty buffer has no data pointer to copy into */
		return;
	bytebuf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void bytebuf_free(struct bytebuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static uint64_t column_value(const struct memtrace_sample *s, int col)
{
	switch (col) {
	case COL_TIME: return s->time;
	case COL_ADDR: return s->addr;
	case COL_PID: return s->pid;
	case COL_TID: return s->tid;
	case COL_CPU: return s->cpu;
	case COL_IP: return s->ip;
	case COL_WEIGHT: return s->weight;
	default: return s->data_src;
	}
}

static unsigned width_of(uint64_t max)
{
	if (!max)
		return 0;
	if (max <= 0xff)
		return 1;
	if (max <= 0xffff)
		return 2;
	if (max <= 0xffffffffu)
		return 4;
	return 8;
}

static inline uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t unzigzag(uint64_t x)
{
	return (x >> 1) ^ (0 - (x & 1));
}

static void encode_column(const struct memtrace_sample *s, size_t n, int col,
			  uint64_t *tmp, struct bytebuf *out)
{
	uint64_t min = n ? column_value(&s[0], col) : 0, maxoff = 0, maxzz = 0;
	uint64_t prev;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = column_value(&s[i], col);
		if (v < min)
			min = v;
	}
	prev = min;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = column_value(&s[i], col);
		uint64_t off = v - min, zz = zigzag(v - prev);
		if (off > maxoff)
			maxoff = off;
		if (zz > maxzz)
			maxzz = zz;
		prev = v;
	}
	unsigned woff = width_of(maxoff), wdelta = width_of(maxzz);
	unsigned transform = wdelta < woff ? 1 : 0;
	unsigned width = transform ? wdelta : woff;

	prev = min;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = column_value(&s[i], col);
		tmp[i] = transform ? zigzag(v - prev) : v - min;
		prev = v;
	}

	unsigned char hdr[COL_HDR_SIZE] = { 0 };
	hdr[0] = (unsigned char)transform;
	hdr[1] = (unsigned char)width;
	put_le64(hdr + 8, min);
	bytebuf_put(out, hdr, sizeof(hdr));
	bytebuf_reserve(out, n * width);
	unsigned char *p = out->data + out->len;
	for (unsigned b = 0; b < width; b++) {
		unsigned shift = 8 * b;
		for (size_t i = 0; i < n; i++)
			*p++ = (unsigned char)(tmp[i] >> shift);
	}
	out->len += n * width;
}

void sample_encode(const struct memtrace_sample *s, size_t n, uint32_t columns,
		   struct bytebuf *out)
{
	unsigned char hdr[8];
	uint64_t *tmp = mt_xmalloc((n ? n : 1) * sizeof(*tmp));

	columns = (columns | COLS_REQUIRED) & COLS_ALL;
	put_le32(hdr, (uint32_t)n);
	put_le32(hdr + 4, columns);
	bytebuf_put(out, hdr, sizeof(hdr));
	for (int col = 0; col < COL_COUNT; col++)
		if (columns & (1u << col))
			encode_column(s, n, col, tmp, out);
	free(tmp);
}

int sample_parse(const unsigned char *raw, size_t len, uint32_t *n_out, uint32_t *columns_out,
		 struct col_desc *desc, char *err, size_t errlen)
{
	if (len < 8) {
		snprintf(err, errlen, "samples chunk too short");
		return -1;
	}
	uint32_t n = get_le32(raw), columns = get_le32(raw + 4);
	if (n > CHUNK_MAX_SAMPLES) {
		snprintf(err, errlen, "samples chunk claims %u samples (max %u)", n,
			 CHUNK_MAX_SAMPLES);
		return -1;
	}
	if ((columns & COLS_REQUIRED) != COLS_REQUIRED || (columns & ~COLS_ALL)) {
		snprintf(err, errlen, "samples chunk has bad column mask 0x%x", columns);
		return -1;
	}
	size_t pos = 8;
	for (int col = 0; col < COL_COUNT; col++) {
		struct col_desc *d = &desc[col];
		memset(d, 0, sizeof(*d));
		if (!(columns & (1u << col)))
			continue;
		if (len - pos < COL_HDR_SIZE) {
			snprintf(err, errlen, "samples chunk shorter than its columns");
			return -1;
		}
		unsigned transform = raw[pos], width = raw[pos + 1];
		if (transform > 1 || (width != 0 && width != 1 && width != 2 &&
				      width != 4 && width != 8)) {
			snprintf(err, errlen, "samples column %d has bad encoding %u/%u",
				 col, transform, width);
			return -1;
		}
		d->present = 1;
		d->transform = transform;
		d->width = width;
		d->base = get_le64(raw + pos + 8);
		pos += COL_HDR_SIZE;
		if ((len - pos) / (width ? width : 1) < (width ? n : 0)) {
			snprintf(err, errlen, "samples chunk shorter than its columns");
			return -1;
		}
		d->plane = raw + pos;
		pos += (size_t)width * n;
	}
	if (pos != len) {
		snprintf(err, errlen, "samples chunk has %zu trailing bytes", len - pos);
		return -1;
	}
	*n_out = n;
	*columns_out = columns;
	return 0;
}

/*
 * Values [from, from + m) of a parsed column of n into dst[0..m).  *prev
 * carries a delta column's running value from block to block (the base
 * before the first).
 */
static void col_decode_part(const struct col_desc *d, uint32_t n, uint32_t from, uint32_t m,
			    uint64_t *dst, uint64_t *prev)
{
	uint64_t base = d->base;

	if (!d->present) {	/* no plane */
		memset(dst, 0, (size_t)m * sizeof(*dst));
		return;
	}
	const unsigned char *p = d->plane + from;
	switch (d->width) {
	case 0:		/* offsets and deltas all 0: every value is the base */
		for (uint32_t i = 0; i < m; i++)
			dst[i] = base;
		return;
	case 1:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = p[i];
		break;
	case 2:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = (uint64_t)p[i] | (uint64_t)p[n + i] << 8;
		break;
	case 4:
		for (uint32_t i = 0; i < m; i++)
			dst[i] = (uint64_t)p[i] | (uint64_t)p[n + i] << 8 |
				 (uint64_t)p[2 * (size_t)n + i] << 16 |
				 (uint64_t)p[3 * (size_t)n + i] << 24;
		break;
	default:
		for (uint32_t i = 0; i < m; i++) {
			uint64_t x = 0;
			for (unsigned b = 0; b < 8; b++)
				x |= (uint64_t)p[(size_t)b * n + i] << (8 * b);
			dst[i] = x;
		}
		break;
	}
	if (d->transform) {
		uint64_t v = *prev;
		for (uint32_t i = 0; i < m; i++) {
			v += unzigzag(dst[i]);
			dst[i] = v;
		}
		*prev = v;
	} else {
		for (uint32_t i = 0; i < m; i++)
			dst[i] += base;
	}
}

void col_decode_u64(const struct col_desc *d, uint32_t n, uint64_t *dst)
{
	uint64_t prev = d->base;

	col_decode_part(d, n, 0, n, dst, &prev);
}

void col_decode_u32(const struct col_desc *d, uint32_t n, uint32_t *dst, uint64_t *tmp)
{
	col_decode_u64(d, n, tmp);
	for (uint32_t i = 0; i < n; i++)
		dst[i] = (uint32_t)tmp[i];
}

/* Column col of every sample: dst[i].field = v[i] (one loop per field, no switch per sample). */
static void scatter_column(struct memtrace_sample *s, uint32_t n, int col, const uint64_t *v)
{
	switch (col) {
	case COL_TIME: for (uint32_t i = 0; i < n; i++) s[i].time = v[i]; break;
	case COL_ADDR: for (uint32_t i = 0; i < n; i++) s[i].addr = v[i]; break;
	case COL_PID: for (uint32_t i = 0; i < n; i++) s[i].pid = (uint32_t)v[i]; break;
	case COL_TID: for (uint32_t i = 0; i < n; i++) s[i].tid = (uint32_t)v[i]; break;
	case COL_CPU: for (uint32_t i = 0; i < n; i++) s[i].cpu = (uint32_t)v[i]; break;
	case COL_IP: for (uint32_t i = 0; i < n; i++) s[i].ip = v[i]; break;
	case COL_WEIGHT: for (uint32_t i = 0; i < n; i++) s[i].weight = (uint32_t)v[i]; break;
	default: for (uint32_t i = 0; i < n; i++) s[i].data_src = v[i]; break;
	}
}

static void zero_column(struct memtrace_sample *s, uint32_t n, int col)
{
	switch (col) {
	case COL_TIME: for (uint32_t i = 0; i < n; i++) s[i].time = 0; break;
	case COL_ADDR: for (uint32_t i = 0; i < n; i++) s[i].addr = 0; break;
	case COL_PID: for (uint32_t i = 0; i < n; i++) s[i].pid = 0; break;
	case COL_TID: for (uint32_t i = 0; i < n; i++) s[i].tid = 0; break;
	case COL_CPU: for (uint32_t i = 0; i < n; i++) s[i].cpu = 0; break;
	case COL_IP: for (uint32_t i = 0; i < n; i++) s[i].ip = 0; break;
	case COL_WEIGHT: for (uint32_t i = 0; i < n; i++) s[i].weight = 0; break;
	default: for (uint32_t i = 0; i < n; i++) s[i].data_src = 0; break;
	}
}

int sample_decode_into(const unsigned char *raw, size_t len, uint32_t want,
		       struct memtrace_sample *s, uint64_t *tmp, size_t *n_out,
		       uint32_t *columns_out, char *err, size_t errlen)
{
	struct col_desc desc[COL_COUNT];
	uint32_t n, columns;

	if (sample_parse(raw, len, &n, &columns, desc, err, errlen))
		return -1;
	uint64_t prev[COL_COUNT];
	for (int col = 0; col < COL_COUNT; col++)
		prev[col] = desc[col].base;
	/* a block of rows at a time, so that its rows stay in the cache for every column */
	for (uint32_t from = 0; from < n; from += DECODE_BLOCK) {
		uint32_t m = n - from < DECODE_BLOCK ? n - from : DECODE_BLOCK;
		for (int col = 0; col < COL_COUNT; col++) {
			if (!desc[col].present || !(want & (1u << col))) {
				zero_column(s + from, m, col);
				continue;
			}
			col_decode_part(&desc[col], n, from, m, tmp, &prev[col]);
			scatter_column(s + from, m, col, tmp);
		}
	}
	*n_out = n;
	if (columns_out)
		*columns_out = columns;
	return 0;
}

int sample_decode(const unsigned char *raw, size_t len,
		  struct memtrace_sample **out, size_t *n_out, uint32_t *columns_out,
		  char *err, size_t errlen)
{
	struct memtrace_sample *s = mt_xmalloc(CHUNK_MAX_SAMPLES * sizeof(*s));
	uint64_t *tmp = mt_xmalloc(CHUNK_MAX_SAMPLES * sizeof(*tmp));
	int rc = sample_decode_into(raw, len, COLS_ALL, s, tmp, n_out, columns_out, err, errlen);

	free(tmp);
	if (rc) {
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}
