/* api_util.h - helpers of the trace API tests: temp paths, a byte builder
 * for crafted files (own column encoder, explicit transform and width). */
#ifndef MEMTRACE_TEST_API_UTIL_H
#define MEMTRACE_TEST_API_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "memtrace/trace.h"
#include "trace/crc32c.h"
#include "trace/format.h"

__attribute__((unused)) static char *tpath(const char *name)
{
	static char dir[64];
	static char buf[8][128];
	static int k;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/mt-api-XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

struct bld { unsigned char *p; size_t len, cap; };

__attribute__((unused)) static void bput(struct bld *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

__attribute__((unused)) static void bput_u16(struct bld *b, uint16_t v) { unsigned char x[2]; put_le16(x, v); bput(b, x, 2); }
__attribute__((unused)) static void bput_u32(struct bld *b, uint32_t v) { unsigned char x[4]; put_le32(x, v); bput(b, x, 4); }
__attribute__((unused)) static void bput_u64(struct bld *b, uint64_t v) { unsigned char x[8]; put_le64(x, v); bput(b, x, 8); }

__attribute__((unused)) static void file_hdr(struct bld *b, uint16_t major, uint16_t minor)
{
	bput(b, "MEMTRACE", 8);
	bput_u16(b, major);
	bput_u16(b, minor);
	bput_u32(b, 0);
}

/* A chunk; codec 1 compresses with zstd. */
__attribute__((unused)) static void add_chunk(struct bld *b, unsigned type, unsigned codec, const void *raw, size_t len,
		      uint32_t count, int bad_crc)
{
	unsigned char h[CHUNK_HDR_SIZE] = { 0 };
	void *stored = (void *)raw;
	size_t slen = len;

	if (codec == 1) {
		stored = malloc(ZSTD_compressBound(len));
		slen = ZSTD_compress(stored, ZSTD_compressBound(len), raw, len, 3);
	}
	put_le32(h, CHUNK_MAGIC);
	put_le16(h + 4, (uint16_t)type);
	put_le16(h + 6, (uint16_t)codec);
	put_le32(h + 8, (uint32_t)slen);
	put_le32(h + 12, (uint32_t)len);
	put_le32(h + 16, count);
	put_le32(h + 20, crc32c(0, stored, slen) ^ (bad_crc ? 1u : 0u));
	put_le32(h + 24, crc32c(0, h, 24));
	bput(b, h, sizeof(h));
	bput(b, stored, slen);
	if (codec == 1)
		free(stored);
}

__attribute__((unused)) static void add_text(struct bld *b, unsigned type, const char *text)
{
	uint32_t lines = 0;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	add_chunk(b, type, 0, text, strlen(text), lines, 0);
}

#define STD_HEADER "time_unit=ns\nstart_time=0\ntarget_pid=100\ntarget_comm=test\n"

/* Column of n values; width -1 = smallest that fits. */
__attribute__((unused)) static void enc_column(struct bld *b, const uint64_t *v, size_t n, unsigned transform, int width)
{
	uint64_t *x = calloc(n ? n : 1, sizeof(*x)), base = 0, need = 0;

	if (transform == 0) {
		base = n ? v[0] : 0;
		for (size_t i = 0; i < n; i++)
			base = v[i] < base ? v[i] : base;
		for (size_t i = 0; i < n; i++)
			x[i] = v[i] - base;
	} else {
		base = n ? v[0] : 0;
		uint64_t prev = base;
		for (size_t i = 0; i < n; i++) {
			uint64_t d = v[i] - prev;
			x[i] = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
			prev = v[i];
		}
	}
	for (size_t i = 0; i < n; i++)
		need = x[i] > need ? x[i] : need;
	if (width < 0)
		width = !need ? 0 : need <= 0xff ? 1 : need <= 0xffff ? 2 : need <= 0xffffffffu ? 4 : 8;
	unsigned char h[16] = { (unsigned char)transform, (unsigned char)width };
	put_le64(h + 8, base);
	bput(b, h, 16);
	for (int k = 0; k < width; k++)
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)(x[i] >> (8 * k));
			bput(b, &c, 1);
		}
	free(x);
}

__attribute__((unused)) static const char *bld_write(const struct bld *b, const char *name)
{
	const char *p = tpath(name);
	FILE *f = fopen(p, "wb");
	if (!f)
		abort();
	if (b->len)
		fwrite(b->p, 1, b->len, f);
	fclose(f);
	return p;
}

__attribute__((unused)) static void *xcalloc_t(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s);
	if (!p)
		abort();
	return p;
}

/* Owned column buffers of cap entries. */
struct cols {
	struct memtrace_columns c;
};

__attribute__((unused)) static void cols_alloc(struct memtrace_columns *c, size_t cap)
{
	c->time = xcalloc_t(cap, 8);
	c->addr = xcalloc_t(cap, 8);
	c->ip = xcalloc_t(cap, 8);
	c->data_src = xcalloc_t(cap, 8);
	c->pid = xcalloc_t(cap, 4);
	c->tid = xcalloc_t(cap, 4);
	c->cpu = xcalloc_t(cap, 4);
	c->weight = xcalloc_t(cap, 4);
	c->cap = cap;
}

__attribute__((unused)) static void cols_free(struct memtrace_columns *c)
{
	free(c->time);
	free(c->addr);
	free(c->ip);
	free(c->data_src);
	free(c->pid);
	free(c->tid);
	free(c->cpu);
	free(c->weight);
	memset(c, 0, sizeof(*c));
}

#endif
