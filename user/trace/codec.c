/* codec.c - per-column offset/delta transform, minimal byte width
 * and byte-plane shuffling of sample columns (docs/trace-format.md). */
#include "trace/codec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/trace.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "util/util.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* The values of one column, n at most ENCODE_BLOCK. */
static void column_gather(const struct memtrace_sample *s, size_t n, int col, uint64_t *v)
{
	size_t i;

	switch (col) {
	case COL_TIME: for (i = 0; i < n; i++) v[i] = s[i].time; break;
	case COL_ADDR: for (i = 0; i < n; i++) v[i] = s[i].addr; break;
	case COL_PID: for (i = 0; i < n; i++) v[i] = s[i].pid; break;
	case COL_TID: for (i = 0; i < n; i++) v[i] = s[i].tid; break;
	case COL_CPU: for (i = 0; i < n; i++) v[i] = s[i].cpu; break;
	case COL_IP: for (i = 0; i < n; i++) v[i] = s[i].ip; break;
	case COL_WEIGHT: for (i = 0; i < n; i++) v[i] = s[i].weight; break;
	default: for (i = 0; i < n; i++) v[i] = s[i].data_src; break;
	}
}

/*
 * Samples go through the encoder in blocks of ENCODE_BLOCK, every column
 * of a block while the block is in cache: a 64 Ki-sample chunk is 3 MiB,
 * and a pass per column over all of it would read it from memory again
 * for each column.
 */
#define ENCODE_BLOCK 1024

struct col_enc {
	uint64_t first, min, max, maxzz, prev;
	unsigned transform, width;
};

/* First pass: minimum, maximum and largest zigzag delta of each column. */
static void encode_scan(const struct memtrace_sample *s, size_t n, uint32_t columns,
			struct col_enc *e)
{
	uint64_t v[ENCODE_BLOCK];

	for (size_t at = 0; at < n; at += ENCODE_BLOCK) {
		size_t k = n - at < ENCODE_BLOCK ? n - at : ENCODE_BLOCK;
		for (int col = 0; col < COL_COUNT; col++) {
			if (!(columns & (1u << col)))
				continue;
			struct col_enc *c = &e[col];
			column_gather(s + at, k, col, v);
			uint64_t min = at ? c->min : v[0], max = at ? c->max : v[0];
			uint64_t maxzz = c->maxzz, prev = at ? c->prev : v[0];
			for (size_t i = 0; i < k; i++) {
				uint64_t x = v[i], zz = zigzag(x - prev);
				min = x < min ? x : min;
				max = x > max ? x : max;
				maxzz = zz > maxzz ? zz : maxzz;
				prev = x;
			}
			*c = (struct col_enc){ .first = at ? c->first : v[0], .min = min, .max = max,
					       .maxzz = maxzz, .prev = prev };
		}
	}
}

/* Second pass: the transformed values of a block as byte planes (plane b
 * holds byte b of every value; plane stride n). */
static void encode_block(const struct memtrace_sample *s, size_t k, int col, struct col_enc *c,
			 unsigned char *p, size_t n)
{
	uint64_t v[ENCODE_BLOCK], t[ENCODE_BLOCK];

	column_gather(s, k, col, v);
	if (c->transform) {
		uint64_t prev = c->prev;
		for (size_t i = 0; i < k; i++) {
			t[i] = zigzag(v[i] - prev);
			prev = v[i];
		}
		c->prev = prev;
	} else {
		for (size_t i = 0; i < k; i++)
			t[i] = v[i] - c->min;
	}
	for (unsigned b = 0; b < c->width; b++, p += n) {
		unsigned shift = 8 * b;
		for (size_t i = 0; i < k; i++)
			p[i] = (unsigned char)(t[i] >> shift);
	}
}

/*
 * Each column: its minimum as base, then either offsets from it or zigzag
 * deltas (the first from the base), whichever needs fewer bytes.
 */
void sample_encode(const struct memtrace_sample *s, size_t n, uint32_t columns,
		   struct bytebuf *out)
{
	unsigned char hdr[8];
	struct col_enc e[COL_COUNT] = { 0 };
	size_t planes[COL_COUNT] = { 0 };	/* offset of each column's planes in out */

	columns = (columns | COLS_REQUIRED) & COLS_ALL;
	put_le32(hdr, (uint32_t)n);
	put_le32(hdr + 4, columns);
	bytebuf_put(out, hdr, sizeof(hdr));
	encode_scan(s, n, columns, e);
	for (int col = 0; col < COL_COUNT; col++) {
		if (!(columns & (1u << col)))
			continue;
		struct col_enc *c = &e[col];
		if (n && zigzag(c->first - c->min) > c->maxzz)	/* the first delta is from the base */
			c->maxzz = zigzag(c->first - c->min);
		unsigned woff = width_of(c->max - c->min), wdelta = width_of(c->maxzz);
		c->transform = wdelta < woff ? 1 : 0;
		c->width = c->transform ? wdelta : woff;
		c->prev = c->min;
		unsigned char h[COL_HDR_SIZE] = { 0 };
		h[0] = (unsigned char)c->transform;
		h[1] = (unsigned char)c->width;
		put_le64(h + 8, c->min);
		bytebuf_put(out, h, sizeof(h));
		bytebuf_reserve(out, n * c->width);
		planes[col] = out->len;
		out->len += n * c->width;
	}
	for (size_t at = 0; at < n; at += ENCODE_BLOCK) {
		size_t k = n - at < ENCODE_BLOCK ? n - at : ENCODE_BLOCK;
		for (int col = 0; col < COL_COUNT; col++)
			if (columns & (1u << col) && e[col].width)
				encode_block(s + at, k, col, &e[col], out->data + planes[col] + at, n);
	}
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
 * The plane bytes of values [0, m) put together and plus add: dst[i] =
 * add + (p[i] | p[n + i] << 8 | ...), width bytes from width planes of
 * stride n.  SSE2 (every x86-64) interleaves 16 values at a time: two
 * planes' bytes into 16-bit, then 32-bit, then 64-bit lanes.
 */
static void planes_gather(const unsigned char *p, unsigned width, uint32_t n, uint32_t m,
			  uint64_t add, uint64_t *dst)
{
	uint32_t i = 0;
	size_t sn = n;

#if defined(__SSE2__)
	const __m128i z = _mm_setzero_si128(), vadd = _mm_set1_epi64x((long long)add);
	/* the 64-bit lanes of four 32-bit lanes each in v[0..3] (each 4 values) */
#define STORE32(v, d)                                                                  \
	do {                                                                           \
		for (int q_ = 0; q_ < 4; q_++) {                                       \
			_mm_storeu_si128((__m128i *)((d) + 4 * q_),                    \
					 _mm_add_epi64(_mm_unpacklo_epi32((v)[q_], z), vadd)); \
			_mm_storeu_si128((__m128i *)((d) + 4 * q_ + 2),                \
					 _mm_add_epi64(_mm_unpackhi_epi32((v)[q_], z), vadd)); \
		}                                                                      \
	} while (0)
	if (width == 1) {
		for (; i + 16 <= m; i += 16) {
			__m128i a = _mm_loadu_si128((const __m128i *)(p + i));
			__m128i lo = _mm_unpacklo_epi8(a, z), hi = _mm_unpackhi_epi8(a, z);
			__m128i v[4] = { _mm_unpacklo_epi16(lo, z), _mm_unpackhi_epi16(lo, z),
					 _mm_unpacklo_epi16(hi, z), _mm_unpackhi_epi16(hi, z) };
			STORE32(v, dst + i);
		}
	} else if (width == 2) {
		for (; i + 16 <= m; i += 16) {
			__m128i a = _mm_loadu_si128((const __m128i *)(p + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(p + sn + i));
			__m128i lo = _mm_unpacklo_epi8(a, b), hi = _mm_unpackhi_epi8(a, b);
			__m128i v[4] = { _mm_unpacklo_epi16(lo, z), _mm_unpackhi_epi16(lo, z),
					 _mm_unpacklo_epi16(hi, z), _mm_unpackhi_epi16(hi, z) };
			STORE32(v, dst + i);
		}
	} else if (width == 4) {
		for (; i + 16 <= m; i += 16) {
			__m128i a = _mm_loadu_si128((const __m128i *)(p + i));
			__m128i b = _mm_loadu_si128((const __m128i *)(p + sn + i));
			__m128i c = _mm_loadu_si128((const __m128i *)(p + 2 * sn + i));
			__m128i d = _mm_loadu_si128((const __m128i *)(p + 3 * sn + i));
			__m128i ablo = _mm_unpacklo_epi8(a, b), abhi = _mm_unpackhi_epi8(a, b);
			__m128i cdlo = _mm_unpacklo_epi8(c, d), cdhi = _mm_unpackhi_epi8(c, d);
			__m128i v[4] = { _mm_unpacklo_epi16(ablo, cdlo), _mm_unpackhi_epi16(ablo, cdlo),
					 _mm_unpacklo_epi16(abhi, cdhi), _mm_unpackhi_epi16(abhi, cdhi) };
			STORE32(v, dst + i);
		}
	} else if (width == 8) {
		for (; i + 16 <= m; i += 16) {
			__m128i b[8], w[8], d[8];
			for (int k = 0; k < 8; k++)
				b[k] = _mm_loadu_si128((const __m128i *)(p + k * sn + i));
			for (int k = 0; k < 4; k++) {	/* bytes 2k, 2k+1 of each value: 16 bits */
				w[2 * k] = _mm_unpacklo_epi8(b[2 * k], b[2 * k + 1]);
				w[2 * k + 1] = _mm_unpackhi_epi8(b[2 * k], b[2 * k + 1]);
			}
			/* low and high 32 bits: values 0-3, 4-7, 8-11, 12-15 */
			for (int h = 0; h < 2; h++) {
				d[4 * h + 0] = _mm_unpacklo_epi16(w[4 * h], w[4 * h + 2]);
				d[4 * h + 1] = _mm_unpackhi_epi16(w[4 * h], w[4 * h + 2]);
				d[4 * h + 2] = _mm_unpacklo_epi16(w[4 * h + 1], w[4 * h + 3]);
				d[4 * h + 3] = _mm_unpackhi_epi16(w[4 * h + 1], w[4 * h + 3]);
			}
			for (int q = 0; q < 4; q++) {
				_mm_storeu_si128((__m128i *)(dst + i + 4 * q),
						 _mm_add_epi64(_mm_unpacklo_epi32(d[q], d[4 + q]), vadd));
				_mm_storeu_si128((__m128i *)(dst + i + 4 * q + 2),
						 _mm_add_epi64(_mm_unpackhi_epi32(d[q], d[4 + q]), vadd));
			}
		}
	}
#undef STORE32
#endif
	for (; i < m; i++) {
		uint64_t x = 0;
		for (unsigned b = 0; b < width; b++)
			x |= (uint64_t)p[(size_t)b * sn + i] << (8 * b);
		dst[i] = x + add;
	}
}

/*
 * Values [from, from + m) of a parsed column of n into dst[0..m).  *prev
 * carries a delta column's running value from block to block (the base
 * before the first).
 */
static void col_decode_part(const struct col_desc *d, uint32_t n, uint32_t from, uint32_t m,
			    uint64_t *dst, uint64_t *prev)
{
	if (!d->present) {	/* no plane */
		memset(dst, 0, (size_t)m * sizeof(*dst));
		return;
	}
	if (!d->width) {	/* offsets and deltas all 0: every value is the base */
		for (uint32_t i = 0; i < m; i++)
			dst[i] = d->base;
		return;
	}
	if (!d->transform) {
		planes_gather(d->plane + from, d->width, n, m, d->base, dst);
		return;
	}
	planes_gather(d->plane + from, d->width, n, m, 0, dst);
	uint64_t v = *prev;
	for (uint32_t i = 0; i < m; i++) {
		v += unzigzag(dst[i]);
		dst[i] = v;
	}
	*prev = v;
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

/* Sets field col of t to v. */
static void set_field(struct memtrace_sample *t, int col, uint64_t v)
{
	switch (col) {
	case COL_TIME: t->time = v; break;
	case COL_ADDR: t->addr = v; break;
	case COL_PID: t->pid = (uint32_t)v; break;
	case COL_TID: t->tid = (uint32_t)v; break;
	case COL_CPU: t->cpu = (uint32_t)v; break;
	case COL_IP: t->ip = v; break;
	case COL_WEIGHT: t->weight = (uint32_t)v; break;
	default: t->data_src = v; break;
	}
}

int sample_rows_start(struct sample_rows *r, const unsigned char *raw, size_t len,
		      uint32_t want, char *err, size_t errlen)
{
	if (sample_parse(raw, len, &r->n, &r->columns, r->desc, err, errlen))
		return -1;
	/*
	 * Fields that are the same in every row of the chunk (absent, not
	 * wanted: 0; width 0: the base) go into a template row copied to each
	 * row; the others are decoded a block at a time and stored into it.
	 */
	r->from = 0;
	r->nvary = 0;
	memset(&r->tmpl, 0, sizeof(r->tmpl));
	for (int col = 0; col < COL_COUNT; col++) {
		r->prev[col] = r->desc[col].base;
		if (!r->desc[col].present || !(want & (1u << col)))
			continue;
		if (r->desc[col].width)
			r->vary[r->nvary++] = col;
		else
			set_field(&r->tmpl, col, r->desc[col].base);
	}
	return 0;
}

size_t sample_rows_next(struct sample_rows *r, struct memtrace_sample *s, size_t max,
			uint64_t *tmp)
{
	size_t done = 0;

	/* a block of rows at a time, so that its rows stay in the cache for every column */
	while (r->from < r->n && done < max) {
		uint32_t m = r->n - r->from < DECODE_BLOCK ? r->n - r->from : DECODE_BLOCK;
		if (m > max - done)
			m = (uint32_t)(max - done);
		struct memtrace_sample *row = s + done;
		if (r->nvary < COL_COUNT)
			for (uint32_t i = 0; i < m; i++)
				row[i] = r->tmpl;
		for (int v = 0; v < r->nvary; v++) {
			int col = r->vary[v];
			col_decode_part(&r->desc[col], r->n, r->from, m, tmp, &r->prev[col]);
			scatter_column(row, m, col, tmp);
		}
		r->from += m;
		done += m;
	}
	return done;
}

int sample_decode_into(const unsigned char *raw, size_t len, uint32_t want,
		       struct memtrace_sample *s, uint64_t *tmp, size_t *n_out,
		       uint32_t *columns_out, char *err, size_t errlen)
{
	struct sample_rows r;

	if (sample_rows_start(&r, raw, len, want, err, errlen))
		return -1;
	*n_out = sample_rows_next(&r, s, r.n, tmp);
	if (columns_out)
		*columns_out = r.columns;
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

/* A SAMPLES chunk parsed, its sample count checked against the chunk header's. */
int codec_parse_chunk(const struct trace_chunk *c, struct col_desc *d, uint32_t *n, char *err,
		      size_t errlen)
{
	uint32_t columns;
	char why[200];

	if (sample_parse(c->data, c->len, n, &columns, d, why, sizeof(why))) {
		snprintf(err, errlen, "samples chunk at offset %" PRIu64 ": %s", c->offset, why);
		return -1;
	}
	if (*n != c->count) {
		snprintf(err, errlen, "samples chunk at offset %" PRIu64
			 ": %u samples in payload, chunk count %u", c->offset, *n, c->count);
		return -1;
	}
	return 0;
}

/* Decodes every wanted column of a parsed chunk into out at index at. */
void codec_decode_columns(const struct col_desc *d, uint32_t n, struct memtrace_columns *out,
			  size_t at, uint64_t *tmp)
{
	uint64_t *u64[COL_COUNT] = { [COL_TIME] = out->time, [COL_ADDR] = out->addr,
				     [COL_IP] = out->ip, [COL_DATA_SRC] = out->data_src };
	uint32_t *u32[COL_COUNT] = { [COL_PID] = out->pid, [COL_TID] = out->tid,
				     [COL_CPU] = out->cpu, [COL_WEIGHT] = out->weight };

	for (int col = 0; col < COL_COUNT; col++) {
		if (u64[col])
			col_decode_u64(&d[col], n, u64[col] + at);
		else if (u32[col])
			col_decode_u32(&d[col], n, u32[col] + at, tmp);
	}
}
