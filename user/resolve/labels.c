/* labels.c - parse --labels files and LABELS chunks (labels.h). */
#include "resolve/labels.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/maps.h"
#include "util/util.h"

#define LABELS_MAX_FILE	(16u << 20)

/* A decimal or 0x number filling [p, e). */
static int parse_num(const char *p, const char *e, uint64_t *out)
{
	int base = 10;
	uint64_t v = 0;

	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (p == e)
		return -1;
	for (; p < e; p++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = tolower((unsigned char)*p) - 'a' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static const char *skip_blank(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *token_end(const char *p, const char *e)
{
	while (p < e && *p != ' ' && *p != '\t')
		p++;
	return p;
}

/*
 * "SIZE NAME" from p (after the location and its blanks): 0 and *name_at,
 * *name_end, or -1 with the reason.
 */
static int parse_size_name(const char *p, const char *e, uint64_t *size, const char **name_at,
			   const char **name_end, const char **why)
{
	const char *t = token_end(p, e);

	if (p == t) {
		*why = "no size";
		return -1;
	}
	if (parse_num(p, t, size)) {
		*why = "size is not a number (decimal or 0x hex)";
		return -1;
	}
	if (!*size) {
		*why = "size is 0";
		return -1;
	}
	p = skip_blank(t, e);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (p == e) {
		*why = "no name";
		return -1;
	}
	if (e - p > MT_LABEL_NAME_MAX) {
		*why = "name longer than 200 bytes";
		return -1;
	}
	*name_at = p;
	*name_end = e;
	return 0;
}

/*
 * MAPPING+OFFSET SIZE NAME: the mapping may hold spaces and '+', so the
 * location ends at the first '+' that is followed by a number, blanks, a
 * second number and blanks.
 */
static int parse_mapping_line(const char *p, const char *e, struct mt_label *l,
			      const char **map_end, const char **name_at, const char **name_end,
			      const char **why)
{
	for (const char *q = p + 1; q < e; q++) {
		if (*q != '+')
			continue;
		const char *ne = token_end(q + 1, e);
		uint64_t off;
		if (ne == e || parse_num(q + 1, ne, &off))
			continue;
		const char *s = skip_blank(ne, e);
		const char *se = token_end(s, e);
		uint64_t size;
		if (s == se || parse_num(s, se, &size))
			continue;
		l->start = off;
		*map_end = q;
		return parse_size_name(s, e, &l->size, name_at, name_end, why);
	}
	*why = "expected START SIZE NAME or MAPPING+OFFSET SIZE NAME";
	return -1;
}

static int parse_line(const char *p, const char *e, struct mt_label *l, char **mapping,
		      char **name, const char **why)
{
	const char *t = token_end(p, e), *na, *nz, *me = NULL;
	uint64_t start;

	memset(l, 0, sizeof(*l));
	if (!parse_num(p, t, &start)) {
		l->start = start;
		if (t == e) {
			*why = "no size";
			return -1;
		}
		if (parse_size_name(skip_blank(t, e), e, &l->size, &na, &nz, why))
			return -1;
	} else if (parse_mapping_line(p, e, l, &me, &na, &nz, why)) {
		return -1;
	}
	if (l->start + l->size < l->start) {
		*why = "START + SIZE is past the end of the address space";
		return -1;
	}
	if (me) {
		*mapping = mt_xmalloc((size_t)(me - p) + 1);
		memcpy(*mapping, p, (size_t)(me - p));
		(*mapping)[me - p] = 0;
	}
	*name = mt_xmalloc((size_t)(nz - na) + 1);
	memcpy(*name, na, (size_t)(nz - na));
	(*name)[nz - na] = 0;
	return 0;
}

static void drop_from(struct mt_labels *l, size_t n0)
{
	for (size_t i = n0; i < l->n; i++) {
		free((char *)l->v[i].mapping);
		free((char *)l->v[i].name);
	}
	l->n = n0;
}

int mt_labels_parse(struct mt_labels *out, const char *text, size_t len, const char *origin,
		    char *err, size_t errlen)
{
	size_t n0 = out->n, cap = out->n, lineno = 0;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *why = NULL;
		lineno++;
		if (memchr(p, 0, (size_t)(e - p))) {
			snprintf(err, errlen, "%s:%zu: NUL byte in the line", origin, lineno);
			goto fail;
		}
		const char *s = skip_blank(p, e), *z = e;
		while (z > s && (z[-1] == ' ' || z[-1] == '\t' || z[-1] == '\r'))
			z--;
		p = nl ? nl + 1 : end;
		if (s == z || *s == '#')
			continue;
		if (out->n >= MT_LABELS_MAX) {
			snprintf(err, errlen, "%s:%zu: more than %u labels", origin, lineno,
				 MT_LABELS_MAX);
			goto fail;
		}
		struct mt_label l;
		char *mapping = NULL, *name = NULL;
		if (parse_line(s, z, &l, &mapping, &name, &why)) {
			snprintf(err, errlen, "%s:%zu: %s", origin, lineno, why);
			goto fail;
		}
		if (out->n == cap) {
			cap = cap ? 2 * cap : 16;
			out->v = mt_xrealloc(out->v, cap * sizeof(*out->v));
		}
		l.mapping = mapping;
		l.name = name;
		out->v[out->n++] = l;
	}
	out->text = mt_xrealloc(out->text, out->len + len + 2);
	memcpy(out->text + out->len, text, len);
	out->len += len;
	if (len && text[len - 1] != '\n')
		out->text[out->len++] = '\n';
	out->text[out->len] = 0;
	return 0;
fail:
	drop_from(out, n0);
	return -1;
}

int mt_labels_load(struct mt_labels *out, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(err, errlen, "cannot open labels file %s: %s", path, strerror(errno));
		return -1;
	}
	char *buf = mt_xmalloc(LABELS_MAX_FILE + 1);
	size_t len = fread(buf, 1, LABELS_MAX_FILE + 1, f);
	int bad = ferror(f);
	fclose(f);
	int rc = -1;
	if (bad)
		snprintf(err, errlen, "cannot read labels file %s", path);
	else if (len > LABELS_MAX_FILE)
		snprintf(err, errlen, "labels file %s is larger than 16 MiB", path);
	else
		rc = mt_labels_parse(out, buf, len, path, err, errlen);
	free(buf);
	return rc;
}

void mt_labels_free(struct mt_labels *l)
{
	drop_from(l, 0);
	free(l->v);
	free(l->text);
	memset(l, 0, sizeof(*l));
}

static int names_mapping(const struct mt_label *l, const struct mt_mapping *m)
{
	size_t n = strlen(m->path);

	/* the display name ("redis-server (redis-check-rdb)"), the file's, or the path */
	if (!strcmp(l->mapping, m->name) || !strcmp(l->mapping, m->file) ||
	    (n && !strcmp(l->mapping, m->path)))
		return 1;
	return n && m->deleted && !strncmp(l->mapping, m->path, n) &&
	       !strcmp(l->mapping + n, " (deleted)");
}

/* Offset memtrace prints after the mapping's name for its first byte. */
static uint64_t base_off(const struct mt_mapping *m)
{
	return m->kind == MT_MAP_FILE ? m->offset : 0;
}

int mt_label_span(const struct mt_label *l, const struct mt_mapping *m, int target,
		  uint64_t m_lo, uint64_t m_hi, uint64_t *lo, uint64_t *hi)
{
	uint64_t a, b;

	if (l->mapping) {
		if (!names_mapping(l, m))
			return 0;
		uint64_t base = base_off(m), end = l->start + l->size;
		if (end <= base)
			return 0;
		a = l->start > base ? m->start + (l->start - base) : m->start;
		b = m->start + (end - base);
		if (b < m->start)	/* past the address space */
			b = UINT64_MAX;
	} else {
		if (!target)
			return 0;
		a = l->start;
		b = l->start + l->size;
	}
	if (a < m_lo)
		a = m_lo;
	if (b > m_hi)
		b = m_hi;
	if (a >= b)
		return 0;
	*lo = a;
	*hi = b;
	return 1;
}

const struct mt_label *mt_labels_find(const struct mt_labels *l, const struct mt_mapping *m,
				      int target, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct mt_label *x = &l->v[i];
		uint64_t lo, hi;
		if (!mt_label_span(x, m, target, addr, addr + 1, &lo, &hi))
			continue;
		/* the label's own offset of addr */
		if (x->mapping)
			*off = addr - m->start + base_off(m) - x->start;
		else
			*off = addr - x->start;
		return x;
	}
	return NULL;
}
