/* sample_codec.c - per-column offset/delta transform, minimal byte width
 * and byte-plane shuffling of sample columns (docs/trace-format.md). */
#include "trace/codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/format.h"
#include "util/util.h"

#define COL_HDR_SIZE 16

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

static void set_column(struct memtrace_sample *s, int col, uint64_t v)
{
	switch (col) {
	case COL_TIME: s->time = v; break;
	case COL_ADDR: s->addr = v; break;
	case COL_PID: s->pid = (uint32_t)v; break;
	case COL_TID: s->tid = (uint32_t)v; break;
	case COL_CPU: s->cpu = (uint32_t)v; break;
	case COL_IP: s->ip = v; break;
	case COL_WEIGHT: s->weight = (uint32_t)v; break;
	default: s->data_src = v; break;
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

/* tmp[i] = column col of s[i]: one switch per column, not per value. */
static void gather_column(const struct memtrace_sample *s, size_t n, int col, uint64_t *tmp)
{
#define GATHER(field) for (size_t i = 0; i < n; i++) tmp[i] = s[i].field; break
	switch (col) {
	case COL_TIME: GATHER(time);
	case COL_ADDR: GATHER(addr);
	case COL_PID: GATHER(pid);
	case COL_TID: GATHER(tid);
	case COL_CPU: GATHER(cpu);
	case COL_IP: GATHER(ip);
	case COL_WEIGHT: GATHER(weight);
	default: GATHER(data_src);
	}
#undef GATHER
}

static void encode_column(const struct memtrace_sample *s, size_t n, int col,
			  uint64_t *tmp, struct bytebuf *out)
{
	uint64_t min = 0, max = 0, maxzz = 0;
	uint64_t prev;

	gather_column(s, n, col, tmp);
	if (n)
		min = max = tmp[0];
	for (size_t i = 1; i < n; i++) {
		uint64_t v = tmp[i], zz = zigzag(v - tmp[i - 1]);

		min = v < min ? v : min;
		max = v > max ? v : max;
		maxzz = zz > maxzz ? zz : maxzz;
	}
	/* the first value's delta is from min */
	if (n && zigzag(tmp[0] - min) > maxzz)
		maxzz = zigzag(tmp[0] - min);
	unsigned woff = width_of(max - min), wdelta = width_of(maxzz);
	unsigned transform = wdelta < woff ? 1 : 0;
	unsigned width = transform ? wdelta : woff;

	prev = min;
	if (transform) {
		for (size_t i = 0; i < n; i++) {
			uint64_t v = tmp[i];

			tmp[i] = zigzag(v - prev);
			prev = v;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			tmp[i] -= min;
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

void col_decode_u64(const struct col_desc *d, uint32_t n, uint64_t *dst)
{
	const unsigned char *p = d->plane;
	uint64_t base = d->base;

	if (!d->present) {
		memset(dst, 0, (size_t)n * sizeof(*dst));
		return;
	}
	switch (d->width) {
	case 0:
		for (uint32_t i = 0; i < n; i++)
			dst[i] = 0;
		break;
	case 1:
		for (uint32_t i = 0; i < n; i++)
			dst[i] = p[i];
		break;
	case 2:
		for (uint32_t i = 0; i < n; i++)
			dst[i] = (uint64_t)p[i] | (uint64_t)p[n + i] << 8;
		break;
	case 4:
		for (uint32_t i = 0; i < n; i++)
			dst[i] = (uint64_t)p[i] | (uint64_t)p[n + i] << 8 |
				 (uint64_t)p[2 * n + i] << 16 | (uint64_t)p[3 * n + i] << 24;
		break;
	default:
		for (uint32_t i = 0; i < n; i++) {
			uint64_t x = 0;
			for (unsigned b = 0; b < 8; b++)
				x |= (uint64_t)p[(size_t)b * n + i] << (8 * b);
			dst[i] = x;
		}
		break;
	}
	if (d->transform) {
		uint64_t prev = base;
		for (uint32_t i = 0; i < n; i++) {
			prev += unzigzag(dst[i]);
			dst[i] = prev;
		}
	} else {
		for (uint32_t i = 0; i < n; i++)
			dst[i] += base;
	}
}

void col_decode_u32(const struct col_desc *d, uint32_t n, uint32_t *dst, uint64_t *tmp)
{
	col_decode_u64(d, n, tmp);
	for (uint32_t i = 0; i < n; i++)
		dst[i] = (uint32_t)tmp[i];
}

int sample_decode(const unsigned char *raw, size_t len,
		  struct memtrace_sample **out, size_t *n_out, uint32_t *columns_out,
		  char *err, size_t errlen)
{
	struct col_desc desc[COL_COUNT];
	uint32_t n, columns;

	if (sample_parse(raw, len, &n, &columns, desc, err, errlen))
		return -1;
	struct memtrace_sample *s = mt_xcalloc(n ? n : 1, sizeof(*s));
	uint64_t *tmp = mt_xmalloc((n ? n : 1) * sizeof(*tmp));
	for (int col = 0; col < COL_COUNT; col++) {
		if (!desc[col].present)
			continue;
		col_decode_u64(&desc[col], n, tmp);
		for (uint32_t i = 0; i < n; i++)
			set_column(&s[i], col, tmp[i]);
	}
	free(tmp);
	*out = s;
	*n_out = n;
	if (columns_out)
		*columns_out = columns;
	return 0;
}
