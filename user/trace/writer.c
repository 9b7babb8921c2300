/* writer.c - chunk framing, CRC32C and zstd compression. */
#include "trace/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "trace/crc32c.h"
#include "trace/codec.h"
#include "trace/format.h"
#include "util/util.h"

#define ZSTD_LEVEL 3

struct trace_writer {
	int fd;
	int failed;
	int quiet;			/* errors go to errbuf only */
	char errbuf[256];
	char *path;
	char *tmp;			/* trace_writer_open_new: the file until published */
	unsigned flags;			/* WRITER_* */
	uint64_t bytes;
	ZSTD_CCtx *zc;
	struct bytebuf raw, out;
};

static int write_all(struct trace_writer *w, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(w->fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!w->failed) {
				snprintf(w->errbuf, sizeof(w->errbuf), "writing %s: %s", w->path,
					 k < 0 ? strerror(errno) : "short write");
				if (!w->quiet)
					mt_err("%s", w->errbuf);
			}
			w->failed = 1;
			return -1;
		}
		c += k;
		n -= (size_t)k;
		w->bytes += (size_t)k;
	}
	return 0;
}

/* A new file .NAME.XXXXXX in path's directory (O_EXCL: no link is followed),
 * mode 0644 less the umask; its fd, or -1 with errno set. */
static int open_temp(const char *path, char **tmp)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path) + 16;
	char *t = mt_xmalloc(len);

	snprintf(t, len, "%.*s.%s.XXXXXX", (int)dirlen, path, path + dirlen);
	int fd = mkostemp(t, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(t);
		errno = e;
		return -1;
	}
	mode_t mask = umask(022);
	umask(mask);
	if (fchmod(fd, 0644 & ~mask)) {
		int e = errno;
		close(fd);
		unlink(t);
		free(t);
		errno = e;
		return -1;
	}
	*tmp = t;
	return fd;
}

/* The fd for path: stdout, the path itself (the plain writer; with
 * WRITER_NEW a device or FIFO), or a temporary name (WRITER_NEW). */
static int open_output(struct trace_writer *w, const char *path, int is_new)
{
	struct stat st;

	if (!strcmp(path, "-"))
		return STDOUT_FILENO;
	if (!is_new)
		return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (lstat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	return open_temp(path, &w->tmp);
}

static struct trace_writer *writer_open(const char *path, int quiet, char *err,
				       size_t errlen, int is_new, unsigned flags)
{
	struct trace_writer *w = mt_xcalloc(1, sizeof(*w));
	unsigned char hdr[TRACE_FILE_HDR_SIZE] = { 0 };

	w->quiet = quiet;
	w->flags = flags;
	w->fd = open_output(w, path, is_new);
	{
		if (w->fd < 0) {
			if (quiet)
				snprintf(err, errlen, "cannot create %s: %s", path,
					 strerror(errno));
			else
				mt_errno("cannot create %s", path);
			free(w);
			return NULL;
		}
	}
	w->path = mt_xstrdup(path);
	w->zc = ZSTD_createCCtx();
	memcpy(hdr, TRACE_MAGIC, 8);
	put_le16(hdr + 8, TRACE_MAJOR);
	put_le16(hdr + 10, TRACE_MINOR);
	if (write_all(w, hdr, sizeof(hdr))) {
		if (quiet)
			snprintf(err, errlen, "%s", w->errbuf);
		trace_writer_close(w);
		return NULL;
	}
	return w;
}

struct trace_writer *trace_writer_open(const char *path)
{
	return writer_open(path, 0, NULL, 0, 0, 0);
}

struct trace_writer *trace_writer_open_new(const char *path, unsigned flags)
{
	return writer_open(path, 0, NULL, 0, 1, flags);
}

struct trace_writer *trace_writer_open_quiet(const char *path, char *err, size_t errlen)
{
	return writer_open(path, 1, err, errlen, 0, 0);
}

static int publish_fail(struct trace_writer *w, const char *what, const char *name)
{
	snprintf(w->errbuf, sizeof(w->errbuf), "%s %s: %s", what, name, strerror(errno));
	if (!w->quiet)
		mt_err("%s", w->errbuf);
	w->failed = 1;
	return -1;
}

int trace_writer_publish(struct trace_writer *w)
{
	if (!w->tmp)
		return 0;
	if (!(w->flags & WRITER_FORCE)) {
		size_t len = strlen(w->path) + 5;
		char *old = mt_xmalloc(len);

		snprintf(old, len, "%s.old", w->path);
		int rc = rename(w->path, old);
		free(old);
		if (rc && errno != ENOENT)
			return publish_fail(w, "cannot rename the existing", w->path);
	}
	if (rename(w->tmp, w->path))
		return publish_fail(w, "cannot create", w->path);
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

const char *trace_writer_error(const struct trace_writer *w)
{
	return w->errbuf[0] ? w->errbuf : "trace writer failed";
}

int trace_write_chunk(struct trace_writer *w, unsigned type, unsigned codec,
		      const void *raw, size_t len, uint32_t count)
{
	const void *payload = raw;
	size_t stored = len;

	if (w->failed)
		return -1;
	if (len > CHUNK_MAX_LEN) {
		snprintf(w->errbuf, sizeof(w->errbuf), "chunk of %zu bytes is too large (max %u)",
			 len, CHUNK_MAX_LEN);
		if (!w->quiet)
			mt_err("internal error: %s", w->errbuf);
		return -1;
	}
	w->out.len = 0;
	bytebuf_reserve(&w->out, CHUNK_HDR_SIZE);
	w->out.len = CHUNK_HDR_SIZE;
	if (codec == CODEC_ZSTD && len) {
		size_t bound = ZSTD_compressBound(len);
		bytebuf_reserve(&w->out, bound);
		size_t z = ZSTD_compressCCtx(w->zc, w->out.data + CHUNK_HDR_SIZE, bound,
					     raw, len, ZSTD_LEVEL);
		if (!ZSTD_isError(z) && z < len) {
			payload = w->out.data + CHUNK_HDR_SIZE;
			stored = z;
		} else {
			codec = CODEC_STORED;
		}
	} else {
		codec = CODEC_STORED;
	}
	if (codec == CODEC_STORED)
		bytebuf_put(&w->out, raw, len);
	else
		w->out.len += stored;

	unsigned char *h = w->out.data;
	put_le32(h, CHUNK_MAGIC);
	put_le16(h + 4, (uint16_t)type);
	put_le16(h + 6, (uint16_t)codec);
	put_le32(h + 8, (uint32_t)stored);
	put_le32(h + 12, (uint32_t)len);
	put_le32(h + 16, count);
	put_le32(h + 20, crc32c(0, payload == raw ? raw : h + CHUNK_HDR_SIZE, stored));
	put_le32(h + 24, crc32c(0, h, 24));
	put_le32(h + 28, 0);
	uint64_t at = w->bytes;
	if (write_all(w, w->out.data, w->out.len)) {
		/* the file ends with the last complete chunk (not for a pipe) */
		if (w->bytes != at && w->fd != STDOUT_FILENO && ftruncate(w->fd, (off_t)at) == 0)
			w->bytes = at;
		return -1;
	}
	return 0;
}

int trace_write_samples(struct trace_writer *w, const struct memtrace_sample *s,
			size_t n, uint32_t columns)
{
	w->raw.len = 0;
	sample_encode(s, n, columns, &w->raw);
	return trace_write_chunk(w, CHUNK_SAMPLES, CODEC_ZSTD, w->raw.data,
				 w->raw.len, (uint32_t)n);
}

uint64_t trace_writer_bytes(const struct trace_writer *w)
{
	return w->bytes;
}

int trace_writer_close(struct trace_writer *w)
{
	return trace_writer_close_quiet(w, NULL, 0);
}

int trace_writer_close_quiet(struct trace_writer *w, char *err, size_t errlen)
{
	int rc = w->failed ? -1 : 0;

	if (w->fd != STDOUT_FILENO && close(w->fd) && !rc) {
		snprintf(w->errbuf, sizeof(w->errbuf), "closing %s: %s", w->path, strerror(errno));
		if (!w->quiet)
			mt_err("%s", w->errbuf);
		rc = -1;
	}
	if (rc && err)
		snprintf(err, errlen, "%s", trace_writer_error(w));
	if (w->tmp) {		/* never published: leave path as it was */
		unlink(w->tmp);
		free(w->tmp);
	}
	ZSTD_freeCCtx(w->zc);
	bytebuf_free(&w->raw);
	bytebuf_free(&w->out);
	free(w->path);
	free(w);
	return rc;
}

void trace_thread_rec_put(struct bytebuf *b, uint64_t time, uint32_t pid, uint32_t tid,
			  const char *comm)
{
	unsigned char rec[THREAD_REC_SIZE] = { 0 };

	put_le64(rec, time);
	put_le32(rec + 8, pid);
	put_le32(rec + 12, tid);
	strncpy((char *)rec + 16, comm ? comm : "", 15);
	bytebuf_put(b, rec, sizeof(rec));
}

void trace_lost_rec_put(struct bytebuf *b, uint64_t time, uint32_t cpu, uint64_t lost,
			uint64_t throttled)
{
	unsigned char rec[LOST_REC_SIZE] = { 0 };

	put_le64(rec, time);
	put_le32(rec + 8, cpu);
	put_le64(rec + 16, lost);
	put_le64(rec + 24, throttled);
	bytebuf_put(b, rec, sizeof(rec));
}

void trace_region_rec_put(struct bytebuf *b, uint64_t time, uint64_t start, uint64_t end,
			  uint32_t pid, uint32_t nr_accesses, uint32_t age)
{
	unsigned char rec[REGION_REC_SIZE] = { 0 };

	put_le64(rec, time);
	put_le64(rec + 8, start);
	put_le64(rec + 16, end);
	put_le32(rec + 24, pid);
	put_le32(rec + 28, nr_accesses);
	put_le32(rec + 32, age);
	bytebuf_put(b, rec, sizeof(rec));
}

void trace_pass_rec_put(struct bytebuf *b, uint64_t time, uint32_t pid, uint32_t what)
{
	unsigned char rec[PASS_REC_SIZE];

	put_le64(rec, time);
	put_le32(rec + 8, pid);
	put_le32(rec + 12, what);
	bytebuf_put(b, rec, sizeof(rec));
}

void trace_gap_rec_put(struct bytebuf *b, uint64_t from, uint64_t to, uint32_t pid, uint32_t what)
{
	unsigned char rec[GAP_REC_SIZE];

	put_le64(rec, from);
	put_le64(rec + 8, to);
	put_le32(rec + 16, pid);
	put_le32(rec + 20, what);
	bytebuf_put(b, rec, sizeof(rec));
}

int trace_write_maps(struct trace_writer *w, uint64_t time, uint32_t pid, const char *text,
		     size_t len)
{
	unsigned char hdr[MAPS_HDR_SIZE] = { 0 };
	struct bytebuf b = { 0 };
	uint32_t lines = 0;

	for (size_t j = 0; j < len; j++)
		lines += text[j] == '\n';
	put_le64(hdr, time);
	put_le32(hdr + 8, pid);
	bytebuf_put(&b, hdr, sizeof(hdr));
	bytebuf_put(&b, text, len);
	int rc = trace_write_chunk(w, CHUNK_MAPS, CODEC_ZSTD, b.data, b.len, lines);
	bytebuf_free(&b);
	return rc;
}

void trace_span_rec_put(struct bytebuf *b, uint64_t start, uint64_t end, uint32_t pid,
			uint32_t tid, const char *label, size_t len, int open)
{
	unsigned char h[SPAN_REC_HDR];

	if (len > SPAN_LABEL_MAX)
		len = SPAN_LABEL_MAX;
	put_le64(h, start);
	put_le64(h + 8, end);
	put_le32(h + 16, pid);
	put_le32(h + 20, tid);
	put_le32(h + 24, (uint32_t)len | (open ? SPAN_OPEN : 0));
	bytebuf_put(b, h, sizeof(h));
	bytebuf_put(b, label, len);
}
