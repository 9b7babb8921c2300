/* reader.c - framing checks, CRC32C, zstd and truncated-tail recovery. */
#include "trace/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "trace/crc32c.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "util/util.h"

struct kv {
	char **keys, **vals;
	size_t n;
};

struct trace_reader {
	FILE *f;
	char *path;
	uint64_t size, pos;
	uint64_t truncated;
	bool end_seen;
	unsigned char *stored, *raw;
	size_t stored_cap, raw_cap;
	ZSTD_DCtx *zd;
	struct kv meta, end;
	struct trace_chunk first;	/* HEADER, handed out again by trace_next */
	int first_pending;
	uint64_t after_header;		/* offset of the chunk after the HEADER */
	unsigned minor;
	unsigned skip;			/* chunk types passed over unread (1u << type) */
	unsigned skipped;		/* those met so far */
	uint64_t skipped_records[32];	/* their chunks' counts, per type */
};

static void kv_parse(struct kv *kv, const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;
		while (j < len && p[j] != '\n')
			j++;
		const unsigned char *eq = memchr(p + i, '=', j - i);
		if (eq) {
			kv->keys = mt_xrealloc(kv->keys, (kv->n + 1) * sizeof(char *));
			kv->vals = mt_xrealloc(kv->vals, (kv->n + 1) * sizeof(char *));
			kv->keys[kv->n] = strndup((const char *)p + i, (size_t)(eq - p - i));
			kv->vals[kv->n] = strndup((const char *)eq + 1, (size_t)(p + j - eq - 1));
			kv->n++;
		}
		i = j + 1;
	}
}

static const char *kv_get(const struct kv *kv, const char *key)
{
	for (size_t i = kv->n; i-- > 0;)
		if (!strcmp(kv->keys[i], key))
			return kv->vals[i];
	return NULL;
}

static void kv_free(struct kv *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->keys[i]);
		free(kv->vals[i]);
	}
	free(kv->keys);
	free(kv->vals);
}

static void grow(unsigned char **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return;
	*buf = mt_xrealloc(*buf, need);
	*cap = need;
}

int trace_next_frame(struct trace_reader *r, struct trace_frame *f, unsigned char **buf,
		     size_t *cap, char *err, size_t errlen)
{
	unsigned char h[CHUNK_HDR_SIZE];
	uint64_t at;

again:
	at = r->pos;

	if (r->pos == r->size)
		return 0;
	if (r->size - r->pos < CHUNK_HDR_SIZE) {
		r->truncated = r->size - r->pos;
		return 0;
	}
	if (fseeko(r->f, (off_t)r->pos, SEEK_SET) || fread(h, 1, sizeof(h), r->f) != sizeof(h)) {
		snprintf(err, errlen, "%s: read error at offset %llu", r->path,
			 (unsigned long long)at);
		return -1;
	}
	if (get_le32(h) != CHUNK_MAGIC || crc32c(0, h, 24) != get_le32(h + 24) ||
	    get_le32(h + 28) != 0) {
		snprintf(err, errlen, "%s: corrupt chunk header at offset %llu", r->path,
			 (unsigned long long)at);
		return -1;
	}
	unsigned type = get_le16(h + 4), codec = get_le16(h + 6);
	uint32_t stored = get_le32(h + 8), rawlen = get_le32(h + 12);
	if (stored > CHUNK_MAX_LEN || rawlen > CHUNK_MAX_LEN || codec > CODEC_ZSTD ||
	    (codec == CODEC_STORED && stored != rawlen)) {
		snprintf(err, errlen, "%s: corrupt chunk header at offset %llu", r->path,
			 (unsigned long long)at);
		return -1;
	}
	if (r->size - r->pos - CHUNK_HDR_SIZE < stored) {
		r->truncated = r->size - r->pos;
		return 0;
	}
	if ((type == CHUNK_HEADER || type == CHUNK_END) && rawlen > TRACE_MAX_META_LEN) {
		snprintf(err, errlen, "%s: %s chunk at offset %llu holds %u bytes of text (at most %u)",
			 r->path, type == CHUNK_HEADER ? "HEADER" : "END", (unsigned long long)at,
			 rawlen, TRACE_MAX_META_LEN);
		return -1;
	}
	if (type < 32 && (r->skip & (1u << type))) {
		r->skipped |= 1u << type;
		r->skipped_records[type] += get_le32(h + 16);
		r->pos += CHUNK_HDR_SIZE + stored;
		goto again;
	}
	grow(buf, cap, stored ? stored : 1);
	if (fread(*buf, 1, stored, r->f) != stored) {
		snprintf(err, errlen, "%s: read error at offset %llu", r->path,
			 (unsigned long long)at);
		return -1;
	}
	r->pos += CHUNK_HDR_SIZE + stored;
	*f = (struct trace_frame){ .type = type, .codec = codec, .stored = stored,
				   .rawlen = rawlen, .count = get_le32(h + 16),
				   .crc = get_le32(h + 20), .offset = at };
	return 1;
}

int trace_frame_payload(const struct trace_reader *r, const struct trace_frame *f,
			const unsigned char *stored, struct ZSTD_DCtx_s *zd, unsigned char **raw,
			size_t *rawcap, struct trace_chunk *c, char *err, size_t errlen)
{
	if (crc32c(0, stored, f->stored) != f->crc) {
		snprintf(err, errlen, "%s: checksum mismatch in chunk at offset %llu",
			 r->path, (unsigned long long)f->offset);
		return -1;
	}
	const unsigned char *payload = stored;
	if (f->codec == CODEC_ZSTD) {
		grow(raw, rawcap, f->rawlen ? f->rawlen : 1);
		size_t z = ZSTD_decompressDCtx(zd, *raw, f->rawlen, stored, f->stored);
		if (ZSTD_isError(z) || z != f->rawlen) {
			snprintf(err, errlen, "%s: undecodable chunk at offset %llu", r->path,
				 (unsigned long long)f->offset);
			return -1;
		}
		payload = *raw;
	}
	c->type = f->type;
	c->count = f->count;
	c->offset = f->offset;
	c->data = payload;
	c->len = f->rawlen;
	c->stored = f->stored;
	return 0;
}

void trace_note_chunk(struct trace_reader *r, const struct trace_chunk *c)
{
	if (c->type != CHUNK_END)
		return;
	r->end_seen = true;
	kv_free(&r->end);
	memset(&r->end, 0, sizeof(r->end));
	kv_parse(&r->end, c->data, c->len);
}

/* 1 chunk read, 0 end/truncated, -1 corrupt. */
static int read_chunk(struct trace_reader *r, struct trace_chunk *c, char *err,
		      size_t errlen)
{
	struct trace_frame f;
	int rc = trace_next_frame(r, &f, &r->stored, &r->stored_cap, err, errlen);

	if (rc <= 0)
		return rc;
	if (trace_frame_payload(r, &f, r->stored, r->zd, &r->raw, &r->raw_cap, c, err, errlen))
		return -1;
	trace_note_chunk(r, c);
	return 1;
}

struct trace_reader *trace_open(const char *path, char *err, size_t errlen)
{
	struct stat st;
	unsigned char h[TRACE_FILE_HDR_SIZE];
	/* O_NONBLOCK: a FIFO without a writer opens at once (and is refused
	 * below) instead of blocking the open forever; regular files ignore it */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (a trace is read more than once: "
			 "a pipe, FIFO or device cannot be)", path);
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	size_t got = fread(h, 1, sizeof(h), f);
	if (got < 8 || memcmp(h, TRACE_MAGIC, 8)) {
		if (got == 0)
			snprintf(err, errlen, "%s: empty file, not a memtrace trace", path);
		else
			snprintf(err, errlen, "%s: not a memtrace trace (bad magic)", path);
		fclose(f);
		return NULL;
	}
	if (got < sizeof(h)) {
		snprintf(err, errlen, "%s: truncated memtrace trace (no complete file header)",
			 path);
		fclose(f);
		return NULL;
	}
	if (get_le16(h + 8) != TRACE_MAJOR) {
		snprintf(err, errlen, "%s: trace format version %u is not supported (this is %u)",
			 path, get_le16(h + 8), TRACE_MAJOR);
		fclose(f);
		return NULL;
	}
	struct trace_reader *r = mt_xcalloc(1, sizeof(*r));
	r->f = f;
	r->path = mt_xstrdup(path);
	r->size = (uint64_t)st.st_size;
	r->pos = TRACE_FILE_HDR_SIZE;
	r->zd = ZSTD_createDCtx();
	int rc = read_chunk(r, &r->first, err, errlen);
	if (rc == 0) {
		snprintf(err, errlen, "%s: truncated memtrace trace (no complete header chunk)",
			 path);
		trace_close(r);
		return NULL;
	}
	if (rc < 0) {
		trace_close(r);
		return NULL;
	}
	if (r->first.type != CHUNK_HEADER) {
		snprintf(err, errlen, "%s: corrupt trace (first chunk is not a header)", path);
		trace_close(r);
		return NULL;
	}
	kv_parse(&r->meta, r->first.data, r->first.len);
	r->first_pending = 1;
	r->after_header = r->pos;
	r->minor = get_le16(h + 10);
	return r;
}

int trace_next(struct trace_reader *r, struct trace_chunk *c, char *err,
	       size_t errlen)
{
	if (r->first_pending) {
		r->first_pending = 0;
		*c = r->first;
		return 1;
	}
	return read_chunk(r, c, err, errlen);
}

int trace_take_first(struct trace_reader *r, struct trace_chunk *c)
{
	if (!r->first_pending)
		return 0;
	r->first_pending = 0;
	*c = r->first;
	return 1;
}

void trace_rewind(struct trace_reader *r)
{
	r->first_pending = 0;
	r->pos = r->after_header;
	r->truncated = 0;
}

void trace_skip(struct trace_reader *r, unsigned type_mask)
{
	r->skip = type_mask & ~(1u << CHUNK_HEADER);
}

const char *trace_path(const struct trace_reader *r)
{
	return r->path;
}

unsigned trace_version_minor(const struct trace_reader *r)
{
	return r->minor;
}

const char *trace_meta(const struct trace_reader *r, const char *key)
{
	return kv_get(&r->meta, key);
}

uint64_t trace_meta_u64(const struct trace_reader *r, const char *key, uint64_t dflt, int end)
{
	const char *s = end ? trace_end_meta(r, key) : trace_meta(r, key);
	char *e;

	if (!s || !*s)
		return dflt;
	unsigned long long v = strtoull(s, &e, 10);
	return *e || s[0] == '-' ? dflt : (uint64_t)v;
}

void trace_header_numbers(const struct trace_reader *r, struct trace_header_numbers *out)
{
	uint64_t b = trace_meta_u64(r, "bucket_default", 4096, 0);
	uint64_t pid = trace_meta_u64(r, "target_pid", 0, 0);

	out->sample_period = trace_meta_u64(r, "sample_period", 1, 0);
	if (!out->sample_period)
		out->sample_period = 1;
	out->bucket_default = b < 64 || b > (2u << 20) || (b & (b - 1)) ? 4096 : b;
	out->target_pid = pid > UINT32_MAX ? 0 : (uint32_t)pid;
}

const char *trace_end_meta(const struct trace_reader *r, const char *key)
{
	return kv_get(&r->end, key);
}

uint64_t trace_bytes_left(const struct trace_reader *r)
{
	return r->size - r->pos;
}

uint64_t trace_truncated(const struct trace_reader *r)
{
	return r->truncated;
}

unsigned trace_skipped(const struct trace_reader *r)
{
	return r->skipped;
}

uint64_t trace_skipped_records(const struct trace_reader *r, unsigned type)
{
	return type < 32 ? r->skipped_records[type] : 0;
}

bool trace_has_end(const struct trace_reader *r)
{
	return r->end_seen;
}

bool trace_time_is_ns(const struct trace_reader *r)
{
	const char *u = trace_meta(r, "time_unit");

	return !u || strcmp(u, "insn") != 0;
}

uint64_t trace_start_time(const struct trace_reader *r)
{
	const char *s = trace_meta(r, "start_time");

	return s ? strtoull(s, NULL, 10) : 0;
}

size_t trace_text_lines(const unsigned char *p, size_t len)
{
	size_t n = 0;
	const unsigned char *end = p + len, *nl;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p = nl + 1;
	}
	return n + (p < end);
}

int trace_chunk_samples(const struct trace_chunk *c, struct memtrace_sample **s,
			size_t *n, uint32_t *columns, char *err, size_t errlen)
{
	if (sample_decode(c->data, c->len, s, n, columns, err, errlen))
		return -1;
	if (*n != c->count) {
		snprintf(err, errlen, "samples chunk at offset %llu: count mismatch",
			 (unsigned long long)c->offset);
		free(*s);
		*s = NULL;
		return -1;
	}
	return 0;
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	ZSTD_freeDCtx(r->zd);
	free(r->stored);
	free(r->raw);
	free(r->path);
	kv_free(&r->meta);
	kv_free(&r->end);
	free(r);
}
