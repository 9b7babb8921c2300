/* bufreq_layout.c - block -> address of a buffer-request trace, and the
 * maps that name the addresses (bufreq_layout.h). */
#include "source/bufreq/bufreq_layout.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/codec.h"
#include "util/util.h"

static uint64_t seg_hash(const struct bufreq_seg *s)
{
	uint64_t h = ((uint64_t)s->spc * 0x9e3779b97f4a7c15ull) ^ s->db;

	h = (h * 0x9e3779b97f4a7c15ull) ^ s->rel;
	h = (h * 0x9e3779b97f4a7c15ull) ^ (uint32_t)s->fork;
	h = (h * 0x9e3779b97f4a7c15ull) ^ s->seg;
	return h ^ (h >> 29);
}

static int seg_eq(const struct bufreq_seg *a, const struct bufreq_seg *b)
{
	return a->spc == b->spc && a->db == b->db && a->rel == b->rel && a->fork == b->fork &&
	       a->seg == b->seg;
}

static void rehash(struct bufreq_layout *l)
{
	size_t cap = l->hcap ? 2 * l->hcap : 64;

	free(l->hash);
	l->hash = mt_xcalloc(cap, sizeof(*l->hash));
	l->hcap = cap;
	for (size_t i = 0; i < l->n; i++) {
		size_t j = seg_hash(&l->segs[i]) & (cap - 1);
		while (l->hash[j])
			j = (j + 1) & (cap - 1);
		l->hash[j] = (uint32_t)i + 1;
	}
}

uint64_t bufreq_addr(struct bufreq_layout *l, uint32_t spc, uint32_t db, uint32_t rel,
		     int32_t fork, uint32_t block)
{
	struct bufreq_seg k = { spc, db, rel, fork, block / BUFREQ_SEG_BLOCKS };

	if (2 * (l->n + 1) > l->hcap)
		rehash(l);
	size_t j = seg_hash(&k) & (l->hcap - 1);
	while (l->hash[j] && !seg_eq(&l->segs[l->hash[j] - 1], &k))
		j = (j + 1) & (l->hcap - 1);
	if (!l->hash[j]) {
		if (l->n >= BUFREQ_MAX_SEGS)
			return 0;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->segs = mt_xrealloc(l->segs, l->cap * sizeof(*l->segs));
		}
		l->segs[l->n++] = k;
		l->hash[j] = (uint32_t)l->n;
	}
	return ((uint64_t)l->hash[j] << BUFREQ_SEG_SHIFT) +
	       (uint64_t)(block % BUFREQ_SEG_BLOCKS) * BUFREQ_BLOCK;
}

/* The PG_* directory of a tablespace (its catalog version), or "" */
static void tblspc_version(const char *datadir, uint32_t spc, char *buf, size_t len)
{
	char dir[4096];

	buf[0] = 0;
	if (!datadir)
		return;
	snprintf(dir, sizeof(dir), "%s/pg_tblspc/%u", datadir, spc);
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (!strncmp(e->d_name, "PG_", 3)) {
			snprintf(buf, len, "%s", e->d_name);
			break;
		}
	closedir(d);
}

void bufreq_relpath(const struct bufreq_seg *s, const char *datadir, char *buf, size_t len)
{
	static const char *const forks[] = { "", "_fsm", "_vm", "_init" };
	const char *fork = s->fork >= 0 && s->fork < 4 ? forks[s->fork] : "_fork?";
	char seg[16] = "", ver[256];

	if (s->seg)
		snprintf(seg, sizeof(seg), ".%u", s->seg);
	if (s->spc == 1664)
		snprintf(buf, len, "global/%u%s%s", s->rel, fork, seg);
	else if (s->spc == 1663)
		snprintf(buf, len, "base/%u/%u%s%s", s->db, s->rel, fork, seg);
	else {
		tblspc_version(datadir, s->spc, ver, sizeof(ver));
		snprintf(buf, len, "pg_tblspc/%u/%s%s%u/%u%s%s", s->spc, ver, ver[0] ? "/" : "",
			 s->db, s->rel, fork, seg);
	}
}

char *bufreq_maps_text(struct bufreq_layout *l, const char *datadir, size_t *len)
{
	struct bytebuf b = { 0 };
	char path[512], line[PATH_MAX + sizeof(path) + 80];

	for (size_t i = 0; i < l->n; i++) {
		uint64_t start = (uint64_t)(i + 1) << BUFREQ_SEG_SHIFT;
		bufreq_relpath(&l->segs[i], datadir, path, sizeof(path));
		int n = snprintf(line, sizeof(line), "%llx-%llx rw-s 00000000 00:00 0 %s%s%s\n",
				 (unsigned long long)start,
				 (unsigned long long)(start + (1ull << BUFREQ_SEG_SHIFT)),
				 datadir ? datadir : "", datadir ? "/" : "", path);
		bytebuf_put(&b, line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : 0);
	}
	*len = b.len;
	bytebuf_put(&b, "", 1);	/* the NUL */
	l->written = l->n;
	return (char *)b.data;
}

void bufreq_layout_free(struct bufreq_layout *l)
{
	free(l->segs);
	free(l->hash);
	memset(l, 0, sizeof(*l));
}
