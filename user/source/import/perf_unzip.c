/* perf_unzip.c - records of `perf record -z` files (perf_unzip.h). */
#include "source/import/perf_unzip.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define UNZIP_MAX	(256u << 20)	/* one compressed record never holds more */

int perf_unzip_feed(struct perf_unzip *z, const char *name, const void *p, size_t n)
{
	ZSTD_inBuffer in = { p, n, 0 };

	if (!z->zs) {
		z->zs = ZSTD_createDStream();
		if (!z->zs || ZSTD_isError(ZSTD_initDStream(z->zs))) {
			mt_err("%s: cannot start the zstd decoder", name);
			return -1;
		}
	}
	if (z->at) {
		memmove(z->buf, z->buf + z->at, z->len - z->at);
		z->len -= z->at;
		z->at = 0;
	}
	while (in.pos < in.size) {
		if (z->cap - z->len < 65536) {
			if (z->cap >= UNZIP_MAX) {
				mt_err("%s: a compressed record unpacks to more than %u MiB", name,
				       UNZIP_MAX >> 20);
				return -1;
			}
			z->cap = z->cap ? 2 * z->cap : 1u << 20;
			z->buf = mt_xrealloc(z->buf, z->cap);
		}
		ZSTD_outBuffer out = { z->buf, z->cap, z->len };
		size_t rc = ZSTD_decompressStream(z->zs, &out, &in);

		if (ZSTD_isError(rc)) {
			mt_err("%s: compressed records: %s", name, ZSTD_getErrorName(rc));
			return -1;
		}
		z->len = out.pos;
		if (!rc)	/* a frame ended; the next one starts afresh */
			ZSTD_initDStream(z->zs);
	}
	return 0;
}

int perf_unzip_next(struct perf_unzip *z, const char *name, uint64_t *bounce,
		    const struct perf_event_header **rec)
{
	struct perf_event_header h;

	if (z->len - z->at < sizeof(h))
		return 0;
	memcpy(&h, z->buf + z->at, sizeof(h));
	if (h.size < sizeof(h)) {
		mt_err("%s: bad record size %u inside a compressed record", name, h.size);
		return -1;
	}
	if (z->len - z->at < h.size)
		return 0;
	memcpy(bounce, z->buf + z->at, h.size);
	z->at += h.size;
	*rec = (const void *)bounce;
	return 1;
}

size_t perf_unzip_pending(const struct perf_unzip *z)
{
	return z->len - z->at;
}

void perf_unzip_free(struct perf_unzip *z)
{
	if (z->zs)
		ZSTD_freeDStream(z->zs);
	free(z->buf);
	memset(z, 0, sizeof(*z));
}
