/* maps.c - /proc/PID/maps snapshots (see maps.h). */
#include "resolve/maps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "util/search.h"

static const char deleted_suffix[] = " (deleted)";

struct cursor {
	const char *p;
	const char *end;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* At least one digit, at most 16 (no overflow). */
static bool parse_hex(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	while (c->p < c->end && hexval(*c->p) >= 0) {
		if (++digits > 16)
			return false;
		v = (v << 4) | (uint64_t)hexval(*c->p);
		c->p++;
	}
	*out = v;
	return digits > 0;
}

static bool parse_dec(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		uint64_t d = (uint64_t)(*c->p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		digits++;
		c->p++;
	}
	*out = v;
	return digits > 0;
}

static bool expect(struct cursor *c, char ch)
{
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

static bool skip_blanks(struct cursor *c)
{
	const char *start = c->p;

	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
	return c->p > start;
}

static bool parse_perms(struct cursor *c, uint32_t *perms)
{
	static const char want[3] = { 'r', 'w', 'x' };
	uint32_t v = 0;

	if (c->end - c->p < 4)
		return false;
	for (int i = 0; i < 3; i++) {
		if (c->p[i] == want[i])
			v |= 1u << i;
		else if (c->p[i] != '-')
			return false;
	}
	if (c->p[3] == 's')
		v |= MT_PERM_SHARED;
	else if (c->p[3] != 'p')
		return false;
	c->p += 4;
	*perms = v;
	return true;
}

/*
 * One line [p, end) (without '\n').  The path is copied to *strp.
 * Returns false if the line does not parse.
 */
static bool parse_line(const char *p, const char *end, struct mt_mapping *m,
		       char **strp)
{
	struct cursor c = { p, end };
	uint64_t maj, min;

	memset(m, 0, sizeof(*m));
	if (!parse_hex(&c, &m->start) || !expect(&c, '-') ||
	    !parse_hex(&c, &m->end) || !skip_blanks(&c) ||
	    !parse_perms(&c, &m->perms) || !skip_blanks(&c) ||
	    !parse_hex(&c, &m->offset) || !skip_blanks(&c) ||
	    !parse_hex(&c, &maj) || !expect(&c, ':') || !parse_hex(&c, &min) ||
	    !skip_blanks(&c) || !parse_dec(&c, &m->inode))
		return false;
	if (m->end <= m->start || maj > UINT32_MAX || min > UINT32_MAX)
		return false;
	m->dev_major = (uint32_t)maj;
	m->dev_minor = (uint32_t)min;
	if (c.p < c.end && !skip_blanks(&c))
		return false; /* junk glued to the inode */

	/* The rest of the line is the pathname (may contain spaces). */
	const char *ps = c.p, *pe = c.end;
	if (pe > ps && pe[-1] == '\r')
		pe--;
	size_t plen = (size_t)(pe - ps);
	size_t slen = sizeof(deleted_suffix) - 1;
	if (plen > slen && memcmp(pe - slen, deleted_suffix, slen) == 0) {
		m->deleted = true;
		plen -= slen;
	}
	char *s = *strp;
	memcpy(s, ps, plen);
	s[plen] = '\0';
	*strp += plen + 1;
	m->path = s;
	if (plen == 0) {
		m->kind = MT_MAP_ANON;
		m->name = "[anon]";
	} else if (s[0] == '/') {
		const char *slash = strrchr(s, '/');
		m->kind = MT_MAP_FILE;
		m->name = slash[1] ? slash + 1 : s;
	} else {
		m->kind = MT_MAP_SPECIAL;
		m->name = s;
	}
	m->file = m->name;
	return true;
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct mt_mapping *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

void mt_maps_parse(struct mt_maps *m, const char *text, size_t len)
{
	size_t lines = 0, cap;
	const char *p = text, *end = text + len;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n')
			lines++;
	cap = lines + 1;
	m->v = mt_xcalloc(cap, sizeof(*m->v));
	m->strings = mt_xmalloc(len + cap + 1);
	char *str = m->strings;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le > p) {
			if (parse_line(p, le, &m->v[m->n], &str))
				m->n++;
			else
				m->bad_lines++;
		}
		p = nl ? nl + 1 : end;
	}
	/* The kernel prints in address order; sort anyway (qsort is not
	 * stable, but equal starts are bogus input either way). */
	qsort(m->v, m->n, sizeof(*m->v), cmp_mapping);
}

void mt_maps_destroy(struct mt_maps *m)
{
	if (!m)
		return;
	free(m->v);
	free(m->strings);
	free(m->exe_name);
	memset(m, 0, sizeof(*m));
}

const struct mt_mapping *mt_maps_find(const struct mt_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m ? m->n : 0;

	/* Last mapping with start <= addr. */
	MT_PARTITION_POINT(lo, hi, mid, m->v[mid].start <= addr);
	if (lo == 0)
		return NULL;
	const struct mt_mapping *cand = &m->v[lo - 1];
	return addr < cand->end ? cand : NULL;
}

/* ---- history ---------------------------------------------------------- */

struct pid_maps {
	uint32_t pid;
	size_t n, cap;
	struct mt_maps **snaps; /* sorted by time, equal times in add order */
};

struct pid_comm {
	uint32_t pid;		/* 0: empty slot (pid 0 is never named) */
	char comm[17];
};

struct mt_maps_history {
	size_t n, cap;
	struct pid_maps *pids; /* sorted by pid */
	size_t ncomms, comms_cap;
	struct pid_comm *comms; /* mt_maps_history_set_comm: open addressing by pid */
};

static void name_exe(struct mt_maps *m, const char *comm);

/* The slot of pid in h->comms (h->comms_cap > 0): its entry or the empty one it would take. */
static struct pid_comm *comm_slot(const struct mt_maps_history *h, uint32_t pid)
{
	size_t mask = h->comms_cap - 1, i = (size_t)(pid * 2654435761u) & mask;

	while (h->comms[i].pid && h->comms[i].pid != pid)
		i = (i + 1) & mask;
	return &h->comms[i];
}

static const char *comm_of(const struct mt_maps_history *h, uint32_t pid)
{
	const struct pid_comm *c = h->comms_cap && pid ? comm_slot(h, pid) : NULL;

	return c && c->pid ? c->comm : NULL;
}

struct mt_maps_history *mt_maps_history_new(void)
{
	return mt_xcalloc(1, sizeof(struct mt_maps_history));
}

void mt_maps_history_free(struct mt_maps_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++) {
		for (size_t j = 0; j < h->pids[i].n; j++) {
			mt_maps_destroy(h->pids[i].snaps[j]);
			free(h->pids[i].snaps[j]);
		}
		free(h->pids[i].snaps);
	}
	free(h->pids);
	free(h->comms);
	free(h);
}

/* Index of the first entry with pid >= pid. */
static size_t pid_lower_bound(const struct mt_maps_history *h, uint32_t pid)
{
	size_t lo = 0, hi = h->n;

	MT_PARTITION_POINT(lo, hi, mid, h->pids[mid].pid < pid);
	return lo;
}

static const struct pid_maps *find_pid(const struct mt_maps_history *h,
				       uint32_t pid)
{
	size_t i = h ? pid_lower_bound(h, pid) : 0;

	if (!h || i == h->n || h->pids[i].pid != pid)
		return NULL;
	return &h->pids[i];
}

const struct mt_maps *mt_maps_history_add(struct mt_maps_history *h,
					  uint64_t time, uint32_t pid,
					  const char *text, size_t len)
{
	size_t i = pid_lower_bound(h, pid);

	if (i == h->n || h->pids[i].pid != pid) {
		if (h->n == h->cap) {
			h->cap = h->cap ? h->cap * 2 : 8;
			h->pids = mt_xrealloc(h->pids,
					      h->cap * sizeof(*h->pids));
		}
		memmove(&h->pids[i + 1], &h->pids[i],
			(h->n - i) * sizeof(*h->pids));
		memset(&h->pids[i], 0, sizeof(h->pids[i]));
		h->pids[i].pid = pid;
		h->n++;
	}
	struct pid_maps *pm = &h->pids[i];
	struct mt_maps *m = mt_xmalloc(sizeof(*m));
	mt_maps_parse(m, text, len);
	m->time = time;
	m->pid = pid;
	const char *comm = comm_of(h, pid);
	if (comm)
		name_exe(m, comm);

	if (pm->n == pm->cap) {
		pm->cap = pm->cap ? pm->cap * 2 : 4;
		pm->snaps = mt_xrealloc(pm->snaps, pm->cap * sizeof(*pm->snaps));
	}
	/* Insert after every snapshot with time <= this one. */
	size_t j = pm->n;
	while (j > 0 && pm->snaps[j - 1]->time > time)
		j--;
	memmove(&pm->snaps[j + 1], &pm->snaps[j],
		(pm->n - j) * sizeof(*pm->snaps));
	pm->snaps[j] = m;
	pm->n++;
	return m;
}

/* Whether comm is the name of file: equal, or file cut to a comm's 15 bytes. */
static bool comm_is(const char *comm, const char *file)
{
	size_t n = strlen(comm);

	return !strcmp(comm, file) || (n == 15 && !strncmp(comm, file, n));
}

/* A shared library's name: "libc.so.6", "ld-linux-x86-64.so.2", "libx.so". */
static bool is_solib(const char *file)
{
	const char *s = strstr(file, ".so");

	for (; s; s = strstr(s + 1, ".so"))
		if (s[3] == '\0' || s[3] == '.')
			return true;
	return false;
}

static void name_exe(struct mt_maps *m, const char *comm)
{
	const struct mt_mapping *exe = NULL;

	/* the executable: the lowest executable file mapping that is no shared
	 * library (a data file mapped lower, e.g. a buffer-request trace's
	 * data files, is not it) */
	for (size_t i = 0; i < m->n && !exe; i++)
		if (m->v[i].kind == MT_MAP_FILE && (m->v[i].perms & MT_PERM_X) &&
		    !is_solib(m->v[i].file))
			exe = &m->v[i];
	if (!exe)
		return;
	char *old = m->exe_name, *name = NULL;
	if (*comm && !comm_is(comm, exe->file)) {
		size_t len = strlen(comm) + strlen(exe->file) + 4;
		name = mt_xmalloc(len);
		snprintf(name, len, "%s (%s)", comm, exe->file);
	}
	const char *path = exe->path;
	uint64_t inode = exe->inode;
	for (size_t i = 0; i < m->n; i++) {
		struct mt_mapping *x = &m->v[i];
		if (x->kind == MT_MAP_FILE && x->inode == inode && !strcmp(x->path, path))
			x->name = name ? name : x->file;
	}
	m->exe_name = name;
	free(old);
}

void mt_maps_history_set_comm(struct mt_maps_history *h, uint32_t pid, const char *comm)
{
	if (!pid)
		return;
	if (2 * (h->ncomms + 1) > h->comms_cap) {
		struct pid_comm *old = h->comms;
		size_t cap = h->comms_cap;
		h->comms_cap = cap ? 2 * cap : 16;
		h->comms = mt_xcalloc(h->comms_cap, sizeof(*h->comms));
		for (size_t k = 0; k < cap; k++)
			if (old[k].pid)
				*comm_slot(h, old[k].pid) = old[k];
		free(old);
	}
	struct pid_comm *c = comm_slot(h, pid);
	if (!c->pid) {
		c->pid = pid;
		h->ncomms++;
	} else if (!strncmp(c->comm, comm, sizeof(c->comm) - 1)) {
		return;		/* named so already: the snapshots are */
	}
	snprintf(c->comm, sizeof(c->comm), "%s", comm);
	const struct pid_maps *pm = find_pid(h, pid);
	for (size_t j = 0; pm && j < pm->n; j++)
		name_exe(pm->snaps[j], c->comm);
}

/* Index of the snapshot to use for time (pm->n > 0). */
static size_t snap_index(const struct pid_maps *pm, uint64_t time)
{
	size_t lo = 0, hi = pm->n;

	/* First snapshot with time > time. */
	MT_PARTITION_POINT(lo, hi, mid, pm->snaps[mid]->time <= time);
	return lo ? lo - 1 : 0;
}

const struct mt_maps *mt_maps_history_at(const struct mt_maps_history *h,
					 uint32_t pid, uint64_t time)
{
	const struct pid_maps *pm = find_pid(h, pid);

	if (!pm || pm->n == 0)
		return NULL;
	return pm->snaps[snap_index(pm, time)];
}

const struct mt_mapping *mt_maps_history_find(const struct mt_maps_history *h,
					      uint32_t pid, uint64_t time,
					      uint64_t addr,
					      const struct mt_maps **snap)
{
	const struct pid_maps *pm = find_pid(h, pid);

	if (snap)
		*snap = NULL;
	if (!pm || pm->n == 0)
		return NULL;
	size_t first = snap_index(pm, time);
	/* the chosen snapshot, then later ones, then earlier ones (newest
	 * first): k = first, first+1, ..., n-1, first-1, ..., 0 */
	for (size_t k = 0; k < pm->n; k++) {
		size_t i = first + k < pm->n ? first + k : pm->n - 1 - k;
		const struct mt_mapping *m = mt_maps_find(pm->snaps[i], addr);
		if (m) {
			if (snap)
				*snap = pm->snaps[i];
			return m;
		}
	}
	return NULL;
}

size_t mt_maps_history_count(const struct mt_maps_history *h, uint32_t pid)
{
	const struct pid_maps *pm = find_pid(h, pid);

	return pm ? pm->n : 0;
}

size_t mt_maps_history_snapshots(const struct mt_maps_history *h, uint32_t pid,
				 const struct mt_maps *const **v)
{
	const struct pid_maps *pm = find_pid(h, pid);

	*v = pm ? (const struct mt_maps *const *)pm->snaps : NULL;
	return pm ? pm->n : 0;
}

size_t mt_maps_history_npids(const struct mt_maps_history *h)
{
	return h ? h->n : 0;
}

uint32_t mt_maps_history_pid(const struct mt_maps_history *h, size_t i)
{
	return h->pids[i].pid;
}

uint32_t mt_maps_history_main_pid(const struct mt_maps_history *h)
{
	uint32_t best = 0;
	size_t most = 0;

	for (size_t i = 0; h && i < h->n; i++)
		if (h->pids[i].n > most) {
			most = h->pids[i].n;
			best = h->pids[i].pid;
		}
	return best;
}
