/* perf_file.c - perf.data files and pipe-mode streams, read sequentially
 * (perf_file.h; tools/perf/Documentation/perf.data-file-format.txt). */
#include "source/import/perf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/format.h"
#include "util/util.h"

#define PERF_MAGIC	0x32454c4946524550ull	/* "PERFILE2" little-endian */
#define PERF_MAGIC_BE	0x50455246494c4532ull
#define FILE_HDR_SIZE	104
#define FEAT_OFFSET	72			/* adds_features bitmap in the file header */
#define BUF_CAP		(2u << 20)
#define FEAT_HOSTNAME	3
#define FEAT_OSRELEASE	4
#define FEAT_ARCH	6
#define FEAT_CPUDESC	8
#define FEAT_EVENT_DESC	12

static int id_cmp(const void *a, const void *b)
{
	const struct perf_id_map *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static void default_name(struct perf_file_attr *a)
{
	const struct perf_event_attr *e = &a->attr;

	if (e->type == PERF_TYPE_SOFTWARE && e->config == PERF_COUNT_SW_PAGE_FAULTS)
		snprintf(a->name, sizeof(a->name), "page-faults");
	else if (e->type == PERF_TYPE_SOFTWARE && e->config == PERF_COUNT_SW_PAGE_FAULTS_MIN)
		snprintf(a->name, sizeof(a->name), "minor-faults");
	else if (e->type == PERF_TYPE_SOFTWARE && e->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ)
		snprintf(a->name, sizeof(a->name), "major-faults");
	else
		snprintf(a->name, sizeof(a->name), "type=%u,config=0x%llx", e->type,
			 (unsigned long long)e->config);
}

/* An attr as the file holds it (attr.size bytes, at most len), and its ids. */
static int add_attr(struct perf_file *f, const unsigned char *p, size_t len,
		    const unsigned char *ids, size_t nids)
{
	uint32_t size = len >= 8 ? get_le32(p + 4) : 0;

	if (size < PERF_ATTR_SIZE_VER0 || size > len) {
		mt_err("%s: bad event attribute (size %u)", f->name, size);
		return -1;
	}
	f->attrs = mt_xrealloc(f->attrs, (f->nattrs + 1) * sizeof(*f->attrs));
	struct perf_file_attr *a = &f->attrs[f->nattrs];

	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, p, size < sizeof(a->attr) ? size : sizeof(a->attr));
	default_name(a);
	if (f->nids + nids > f->ids_cap) {
		f->ids_cap = (f->nids + nids) * 2;
		f->ids = mt_xrealloc(f->ids, f->ids_cap * sizeof(*f->ids));
	}
	for (size_t i = 0; i < nids; i++)
		f->ids[f->nids++] = (struct perf_id_map){ get_le64(ids + 8 * i), (uint32_t)f->nattrs };
	f->ids_sorted = false;
	f->nattrs++;
	return 0;
}

const struct perf_file_attr *perf_file_attr_of_id(struct perf_file *f, uint64_t id)
{
	if (f->nattrs == 1)
		return &f->attrs[0];
	if (!f->ids_sorted) {
		qsort(f->ids, f->nids, sizeof(*f->ids), id_cmp);
		f->ids_sorted = true;
	}
	struct perf_id_map key = { id, 0 };
	const struct perf_id_map *m = bsearch(&key, f->ids, f->nids, sizeof(*f->ids), id_cmp);

	return m ? &f->attrs[m->attr] : NULL;
}

/* A perf_header_string: u32 len, then len bytes (NUL-padded). */
static size_t header_string(const unsigned char *p, size_t len, char *out, size_t outlen)
{
	if (len < 4 || get_le32(p) > len - 4)
		return 0;
	uint32_t n = get_le32(p);

	snprintf(out, outlen, "%.*s", (int)strnlen((const char *)p + 4, n), (const char *)p + 4);
	return 4 + (size_t)n;
}

static void event_desc(struct perf_file *f, const unsigned char *p, size_t len)
{
	if (len < 8)
		return;
	uint32_t nr = get_le32(p), asz = get_le32(p + 4);
	size_t at = 8;

	for (uint32_t i = 0; i < nr && at + asz + 4 <= len; i++) {
		uint32_t nids = get_le32(p + at + asz);
		char name[64];
		size_t sl = header_string(p + at + asz + 4, len - at - asz - 4, name, sizeof(name));

		if (!sl)
			return;
		at += asz + 4 + sl;
		if (at + 8ull * nids > len)
			return;
		if (nids && f->nattrs) {
			const struct perf_file_attr *a = perf_file_attr_of_id(f, get_le64(p + at));
			if (a)
				snprintf(((struct perf_file_attr *)a)->name, sizeof(a->name), "%s", name);
		} else if (nr == f->nattrs) {
			snprintf(f->attrs[i].name, sizeof(f->attrs[i].name), "%s", name);
		}
		at += 8ull * nids;
	}
}

static void feature(struct perf_file *f, uint64_t feat, const unsigned char *p, size_t len)
{
	switch (feat) {
	case FEAT_HOSTNAME:
		header_string(p, len, f->hostname, sizeof(f->hostname));
		break;
	case FEAT_OSRELEASE:
		header_string(p, len, f->osrelease, sizeof(f->osrelease));
		break;
	case FEAT_ARCH:
		header_string(p, len, f->arch, sizeof(f->arch));
		break;
	case FEAT_CPUDESC:
		header_string(p, len, f->cpudesc, sizeof(f->cpudesc));
		break;
	case FEAT_EVENT_DESC:
		event_desc(f, p, len);
		break;
	}
}

static int pread_all(struct perf_file *f, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(f->fd, buf, len, (off_t)off);

	if (n == (ssize_t)len)
		return 0;
	mt_err("%s: %s at offset %" PRIu64, f->name, n < 0 ? strerror(errno) : "file is cut",
	       off);
	return -1;
}

/* File mode: attrs with their ids, features (best effort), data bounds. */
static int open_file_mode(struct perf_file *f, const unsigned char *h)
{
	uint64_t attr_size = get_le64(h + 16), attrs_off = get_le64(h + 24), attrs_len = get_le64(h + 32);
	uint64_t data_off = get_le64(h + 40), data_len = get_le64(h + 48);
	struct stat st;

	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		mt_err("%s: a perf.data file must be a regular file to read (`perf record -o -` "
		       "writes the pipe format, which streams)", f->name);
		return -1;
	}
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096 ||
	    attrs_len / attr_size > 4096 || data_off + data_len < data_off ||
	    data_off + data_len > (uint64_t)st.st_size) {
		mt_err("%s: corrupt perf.data header", f->name);
		return -1;
	}
	unsigned char *a = mt_xmalloc(attr_size);

	for (uint64_t i = 0; i < attrs_len / attr_size; i++) {
		if (pread_all(f, a, attr_size, attrs_off + i * attr_size)) {
			free(a);
			return -1;
		}
		uint64_t ids_off = get_le64(a + attr_size - 16), ids_len = get_le64(a + attr_size - 8);
		if (ids_len > (uint64_t)st.st_size || ids_len % 8) {
			mt_err("%s: corrupt event id list", f->name);
			free(a);
			return -1;
		}
		unsigned char *ids = mt_xmalloc(ids_len + 1);
		int rc = pread_all(f, ids, ids_len, ids_off);

		if (!rc)
			rc = add_attr(f, a, attr_size - 16, ids, ids_len / 8);
		free(ids);
		if (rc) {
			free(a);
			return -1;
		}
	}
	free(a);
	/* features: one section per bit set in adds_features, after the data */
	uint64_t sec = data_off + data_len;

	for (unsigned bit = 1; bit < 256; bit++) {
		if (!(get_le64(h + FEAT_OFFSET + 8 * (bit / 64)) >> (bit % 64) & 1))
			continue;
		unsigned char s[16];
		if (pread(f->fd, s, 16, (off_t)sec) != 16)
			break;
		sec += 16;
		uint64_t off = get_le64(s), len = get_le64(s + 8);
		if (len > (1u << 24) || off + len > (uint64_t)st.st_size)
			continue;
		unsigned char *p = mt_xmalloc(len + 1);
		if (pread(f->fd, p, len, (off_t)off) == (ssize_t)len)
			feature(f, bit, p, len);
		free(p);
	}
	if (lseek(f->fd, (off_t)data_off, SEEK_SET) < 0) {
		mt_err("%s: %s", f->name, strerror(errno));
		return -1;
	}
	f->pos = data_off;
	f->data_end = data_off + data_len;
	return 0;
}

int perf_file_open(struct perf_file *f, const char *name)
{
	unsigned char h[FILE_HDR_SIZE];
	size_t got = 0;

	memset(f, 0, sizeof(*f));
	f->name = strcmp(name, "-") ? name : "stdin";
	f->fd = strcmp(name, "-") ? open(name, O_RDONLY | O_CLOEXEC) : 0;
	if (f->fd < 0) {
		mt_err("%s: %s", name, strerror(errno));
		return -1;
	}
	f->buf = mt_xmalloc(BUF_CAP);
	f->bounce = mt_xmalloc(65536);
	while (got < 16) {
		ssize_t n = read(f->fd, h + got, 16 - got);
		if (n <= 0) {
			mt_err("%s: %s", f->name, n < 0 ? strerror(errno) : "not a perf.data file (too short)");
			return -1;
		}
		got += (size_t)n;
	}
	if (get_le64(h) == PERF_MAGIC_BE) {
		mt_err("%s: a big-endian perf.data file (not supported)", f->name);
		return -1;
	}
	if (get_le64(h) != PERF_MAGIC) {
		mt_err("%s: not a perf.data file (no PERFILE2 magic)", f->name);
		return -1;
	}
	if (get_le64(h + 8) == 16) {	/* pipe mode: attrs and features come as records */
		f->pipe = true;
		f->pos = 16;
		f->data_end = UINT64_MAX;
		return 0;
	}
	if (get_le64(h + 8) < FILE_HDR_SIZE || pread_all(f, h, FILE_HDR_SIZE, 0))
		return -1;
	return open_file_mode(f, h);
}

/* Makes buf[at..at+n) readable: 0, 1 at a clean end (nothing left), -1 cut. */
static int ensure(struct perf_file *f, size_t n)
{
	if (f->len - f->at >= n)
		return 0;
	memmove(f->buf, f->buf + f->at, f->len - f->at);
	f->len -= f->at;
	f->at = 0;
	while (f->len < n && !f->eof) {
		uint64_t left = f->data_end - (f->pos + f->len);
		size_t want = BUF_CAP - f->len;

		if (!f->pipe && left < want)
			want = (size_t)left;
		if (!want)
			break;
		ssize_t k = read(f->fd, f->buf + f->len, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			mt_err("%s: %s", f->name, strerror(errno));
			return -1;
		}
		if (!k)
			f->eof = true;
		f->len += (size_t)k;
	}
	if (f->len >= n)
		return 0;
	if (!f->len)
		return 1;
	mt_err("%s: cut in the middle of a record (%zu bytes at offset %" PRIu64 " ignored)",
	       f->name, f->len, f->pos);
	return -1;
}

static void consume(struct perf_file *f, size_t n)
{
	f->at += n;
	f->pos += n;
}

/* Bytes that follow some records outside their header.size. */
static int skip(struct perf_file *f, uint64_t n)
{
	while (n) {
		size_t k = n < BUF_CAP ? (size_t)n : BUF_CAP;
		if (ensure(f, k))
			return -1;
		consume(f, k);
		f->skipped_bytes += k;
		n -= k;
	}
	return 0;
}

int perf_file_next(struct perf_file *f, const struct perf_event_header **rec)
{
	for (;;) {
		int rc = perf_unzip_next(&f->unzip, f->name, f->bounce, rec);
		if (rc)
			return rc;
		rc = ensure(f, sizeof(struct perf_event_header));
		if (rc > 0 && perf_unzip_pending(&f->unzip)) {
			mt_err("%s: cut in the middle of a compressed record (%zu bytes ignored)",
			       f->name, perf_unzip_pending(&f->unzip));
			return -1;
		}
		if (rc)
			return rc > 0 ? 0 : -1;
		struct perf_event_header hdr;

		memcpy(&hdr, f->buf + f->at, sizeof(hdr));
		size_t size = hdr.size;
		if (size < sizeof(hdr)) {
			mt_err("%s: bad record size %zu at offset %" PRIu64, f->name, size, f->pos);
			return -1;
		}
		if (ensure(f, size))
			return -1;
		const struct perf_event_header *h = (const void *)(f->buf + f->at);
		const unsigned char *p = (const unsigned char *)h;
		uint64_t extra = 0;

		f->records++;
		switch (hdr.type) {
		case PERF_FILE_HEADER_ATTR: {
			uint32_t asz = size >= 16 ? get_le32(p + 12) : 0;
			if (asz > size - 8) {
				mt_err("%s: bad attribute record", f->name);
				return -1;
			}
			if (add_attr(f, p + 8, size - 8, p + 8 + asz, (size - 8 - asz) / 8))
				return -1;
			break;
		}
		case PERF_FILE_HEADER_FEATURE:
			if (size >= 16)
				feature(f, get_le64(p + 8), p + 16, size - 16);
			break;
		case PERF_FILE_HEADER_TRACING_DATA:
			extra = size >= 12 ? (get_le32(p + 8) + 7ull) & ~7ull : 0;
			break;
		case PERF_FILE_AUXTRACE:
			extra = size >= 16 ? get_le64(p + 8) : 0;
			break;
		case PERF_FILE_COMPRESSED:
		case PERF_FILE_COMPRESSED2: {
			size_t at = hdr.type == PERF_FILE_COMPRESSED ? 8 : 16;
			size_t n = size - (size < at ? size : at);
			if (hdr.type == PERF_FILE_COMPRESSED2 && size >= 16 && get_le64(p + 8) < n)
				n = (size_t)get_le64(p + 8);
			if (size < at || perf_unzip_feed(&f->unzip, f->name, p + at, n))
				return -1;
			consume(f, size);
			rc = perf_unzip_next(&f->unzip, f->name, f->bounce, rec);
			if (rc)
				return rc;
			continue;
		}
		default:
			if ((uintptr_t)h % 8) {	/* sizes are multiples of 8 but for damage */
				memcpy(f->bounce, h, size);
				h = (const void *)f->bounce;
			}
			*rec = h;
			consume(f, size);
			return 1;
		}
		consume(f, size);
		if (extra && skip(f, extra))
			return -1;
	}
}

void perf_file_close(struct perf_file *f)
{
	if (f->fd > 0)
		close(f->fd);
	free(f->buf);
	free(f->bounce);
	perf_unzip_free(&f->unzip);
	free(f->attrs);
	free(f->ids);
	memset(f, 0, sizeof(*f));
}
