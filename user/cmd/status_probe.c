/* status_probe.c - `memtracectl status -p PID`: what each sample source
 * sees of one process on this machine, per kind of mapping, found by
 * recording it for a few seconds with each source in turn (not by a rule:
 * which memory NUMA scanning or DAMON reaches differs between kernels). */
#include "cmd/status_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "util/proc_smaps.h"
#include "util/util.h"

enum map_kind { K_PRIVATE_ANON, K_SHARED_ANON, K_FILE_PRIVATE, K_FILE_SHARED, NKINDS };

static const char *const kind_name[NKINDS] = {
	"private anonymous", "shared anonymous", "file-backed private", "file-backed shared",
};

/* The kind of a mapping from its permissions and path (smaps header line). */
static enum map_kind kind_of(const struct proc_map *x)
{
	bool shared = x->perms[3] == 's';
	const char *path = x->path;
	bool anon = !*path || path[0] == '[' || !strncmp(path, "/dev/zero", 9) ||
		    !strncmp(path, "/SYSV", 5) || !strncmp(path, "/memfd:", 7) || x->deleted;

	if (anon)
		return shared ? K_SHARED_ANON : K_PRIVATE_ANON;
	return shared ? K_FILE_SHARED : K_FILE_PRIVATE;
}

/* The process's mappings, each with its kind (found once, not per sample). */
struct pmaps {
	struct proc_maps m;
	enum map_kind *kind;	/* kind[i]: of m.v[i] */
};

/* /proc/PID/smaps: every mapping with its resident bytes and kind. */
static int read_smaps(pid_t pid, struct pmaps *p)
{
	if (proc_smaps_read(pid, &p->m)) {
		mt_err("status -p %d: /proc/%d/smaps: %s", (int)pid, (int)pid, strerror(errno));
		return -1;
	}
	if (!p->m.n) {
		proc_smaps_free(&p->m);
		mt_err("status -p %d: no mappings (a kernel thread, or the process exited)", (int)pid);
		return -1;
	}
	p->kind = mt_xmalloc(p->m.n * sizeof(*p->kind));
	for (size_t i = 0; i < p->m.n; i++)
		p->kind[i] = kind_of(&p->m.v[i]);
	return 0;
}

static void pmaps_free(struct pmaps *p)
{
	proc_smaps_free(&p->m);
	free(p->kind);
	p->kind = NULL;
}

/* memtracectl record -e EVENT -p PID -d SECS -o OUT; its last stderr line into why. */
static int record(const char *self, const char *event, pid_t pid, unsigned secs, const char *out,
		  char *why, size_t whylen)
{
	char p[16], d[16], errpath[] = "/tmp/memtrace-probe-err.XXXXXX";
	int efd = mkstemp(errpath);

	if (efd < 0) {
		snprintf(why, whylen, "temporary file: %s", strerror(errno));
		return -1;
	}
	unlink(errpath);
	snprintf(p, sizeof(p), "%d", (int)pid);
	snprintf(d, sizeof(d), "%u", secs);
	pid_t c = fork();
	if (c == 0) {
		int nul = open("/dev/null", O_RDWR);
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(efd, 2);
		execl(self, self, "record", "-e", event, "-p", p, "-d", d, "-o", out, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	if (c < 0 || waitpid(c, &st, 0) < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(efd);
		return -1;
	}
	/* the last line of what record printed: its error, or its summary */
	char buf[8192];
	ssize_t k = pread(efd, buf, sizeof(buf) - 1, 0);
	close(efd);
	buf[k > 0 ? k : 0] = 0;
	while (k > 0 && buf[k - 1] == '\n')
		buf[--k] = 0;
	char *last = strrchr(buf, '\n');
	last = last ? last + 1 : buf;
	if (!strncmp(last, "memtracectl: ", 13))
		last += 13;
	snprintf(why, whylen, "%.*s", (int)(whylen - 1), last);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Distinct pages a source saw, per kind: seen[kind] (re-accesses) and first[kind]. */
struct seen {
	uint64_t reaccess[NKINDS], first[NKINDS], samples;
	bool fault_kinds;	/* the source tells first touches from re-accesses */
};

struct span {
	uint64_t start, end;
	enum map_kind kind;
};

static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* DAMON: the pages of regions found accessed (nr_accesses > 0) in some aggregation. */
static int tally_regions(struct memtrace_trace *t, pid_t pid, const struct pmaps *p,
			 struct seen *s, char *why, size_t whylen)
{
	const struct memtrace_damon_region *r;
	char err[512];
	long n = memtrace_trace_damon_regions(t, &r, err, sizeof(err));
	struct span *v = NULL;
	size_t nv = 0, cap = 0;

	if (n < 0) {
		snprintf(why, whylen, "%s", err);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		if (!r[i].nr_accesses)
			continue;
		s->samples++;
		for (size_t j = 0; j < p->m.n; j++) {
			const struct proc_map *x = &p->m.v[j];
			enum map_kind k = p->kind[j];
			uint64_t lo = r[i].start > x->start ? r[i].start : x->start;
			uint64_t hi = r[i].end < x->end ? r[i].end : x->end;
			if (lo >= hi || (r[i].pid != (uint32_t)pid && k != K_SHARED_ANON &&
					 k != K_FILE_SHARED))
				continue;
			if (nv == cap) {
				cap = cap ? 2 * cap : 256;
				v = mt_xrealloc(v, cap * sizeof(*v));
			}
			v[nv++] = (struct span){ lo, hi, k };
		}
	}
	qsort(v, nv, sizeof(*v), by_start);
	uint64_t at = 0;	/* end of what is counted so far (mappings do not overlap) */
	for (size_t i = 0; i < nv; i++) {
		uint64_t lo = v[i].start > at ? v[i].start : at;
		if (v[i].end > lo)
			s->reaccess[v[i].kind] += (v[i].end - lo + 4095) / 4096;
		if (v[i].end > at)
			at = v[i].end;
	}
	free(v);
	return 0;
}

/*
 * The samples of out in m's mappings: pid's own everywhere, its
 * descendants' in its shared mappings (the same addresses after fork).
 */
static int tally(const char *path, pid_t pid, const struct pmaps *p, struct seen *s, char *why,
		 size_t whylen)
{
	char err[512];
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));
	struct memtrace_trace_info info;

	if (!t || memtrace_trace_info(t, &info, err, sizeof(err))) {
		snprintf(why, whylen, "%s", err);
		if (t)
			memtrace_trace_close(t);
		return -1;
	}
	size_t n = info.samples ? info.samples : 1;
	struct memtrace_columns c = {
		.addr = mt_xcalloc(n, 8), .pid = mt_xcalloc(n, 4), .data_src = mt_xcalloc(n, 8),
		.cap = n,
	};
	uint64_t *pages[2] = { mt_xcalloc(n, 8), mt_xcalloc(n, 8) };	/* re-access, first */
	size_t np[2] = { 0, 0 };
	int rc = memtrace_trace_read(t, NULL, &c, &n, err, sizeof(err));

	if (rc)
		snprintf(why, whylen, "%s", err);
	for (size_t i = 0; !rc && i < n; i++) {
		const struct proc_map *x = proc_smaps_at(&p->m, c.addr[i]);
		if (!x)
			continue;
		enum map_kind k = p->kind[x - p->m.v];
		if (c.pid[i] != (uint32_t)pid && k != K_SHARED_ANON && k != K_FILE_SHARED)
			continue;
		unsigned fk = MEMTRACE_FAULT_KIND(c.data_src[i]);
		int first = fk == MEMTRACE_FAULT_FIRST_TOUCH;
		if (fk != MEMTRACE_FAULT_UNKNOWN)
			s->fault_kinds = true;
		/* key: the page with its mapping's kind in the low bits */
		pages[first][np[first]++] = (c.addr[i] & ~4095ull) | (uint64_t)k;
		s->samples++;
	}
	for (int f = 0; f < 2; f++) {
		qsort(pages[f], np[f], 8, cmp_u64);
		for (size_t i = 0; i < np[f]; i++)
			if (!i || pages[f][i] != pages[f][i - 1])
				(f ? s->first : s->reaccess)[pages[f][i] & 4095]++;
		free(pages[f]);
	}
	free(c.addr);
	free(c.pid);
	free(c.data_src);
	if (!rc)
		rc = tally_regions(t, pid, p, s, why, whylen);
	memtrace_trace_close(t);
	return rc;
}

static void size_str(char *b, size_t len, uint64_t bytes)
{
	if (bytes >= 10ull << 30)
		snprintf(b, len, "%" PRIu64 " GiB", bytes >> 30);
	else if (bytes >= 10ull << 20)
		snprintf(b, len, "%" PRIu64 " MiB", bytes >> 20);
	else
		snprintf(b, len, "%" PRIu64 " KiB", bytes >> 10);
}

/* What each source is, in the words of its samples. */
static const struct probe_source {
	const char *event, *what;
} probe_sources[] = {
	{ "loads", "PMU load samples" },
	{ "accessed", "memtrace.ko accessed bits" },
	{ "damon", "DAMON accessed regions" },
	{ "hint-faults", "NUMA hint faults" },
	{ "page-faults", "page faults" },
};

int status_probe(const char *self, pid_t pid, unsigned secs)
{
	struct pmaps m = { 0 };
	uint64_t rss[NKINDS] = { 0 }, maps[NKINDS] = { 0 };
	char out[] = "/tmp/memtrace-probe.XXXXXX", sz[32];
	int fd, rc = 0;

	if (read_smaps(pid, &m))
		return 1;
	for (size_t i = 0; i < m.m.n; i++) {
		rss[m.kind[i]] += m.m.v[i].rss;
		maps[m.kind[i]]++;
	}
	if ((fd = mkstemp(out)) < 0) {
		mt_err("status -p: temporary file: %s", strerror(errno));
		pmaps_free(&m);
		return 1;
	}
	close(fd);
	printf("process %d: what each sample source sees of it here, recorded %u s each "
	       "(pages of its mappings with a sample; shared mappings: its descendants' samples too)\n",
	       (int)pid, secs);
	printf("  %-20s %5s %10s\n", "mapping kind", "maps", "resident");
	for (int k = 0; k < NKINDS; k++) {
		size_str(sz, sizeof(sz), rss[k]);
		printf("  %-20s %5" PRIu64 " %10s\n", kind_name[k], maps[k], sz);
	}
	for (size_t j = 0; j < sizeof(probe_sources) / sizeof(probe_sources[0]); j++) {
		const struct probe_source *ps = &probe_sources[j];
		char why[1024];
		struct seen s = { 0 };

		unlink(out);
		if (record(self, ps->event, pid, secs, out, why, sizeof(why))) {
			printf("%s: cannot record here: %s\n", ps->event, why);
			continue;
		}
		if (tally(out, pid, &m, &s, why, sizeof(why))) {
			printf("%s: its trace is unreadable: %s\n", ps->event, why);
			rc = 1;
			continue;
		}
		if (!s.samples) {
			printf("%s (%s): saw none of its pages in %u s\n", ps->event, ps->what, secs);
			continue;
		}
		printf("%s (%s): %" PRIu64 " %s in its mappings\n", ps->event, ps->what, s.samples,
		       !strcmp(ps->event, "damon") ? "accessed regions" : "samples");
		for (int k = 0; k < NKINDS; k++) {
			if (!rss[k] && !s.reaccess[k] && !s.first[k])
				continue;
			uint64_t res = rss[k] / 4096;
			if (s.fault_kinds)
				printf("  %-20s re-accesses seen on %" PRIu64 " of %" PRIu64
				       " resident pages, first touches on %" PRIu64 "%s\n",
				       kind_name[k], s.reaccess[k], res, s.first[k],
				       !s.reaccess[k] && res ? ": its re-accesses are not seen" : "");
			else
				printf("  %-20s %" PRIu64 " of %" PRIu64 " resident pages seen\n",
				       kind_name[k], s.reaccess[k] + s.first[k], res);
		}
	}
	unlink(out);
	pmaps_free(&m);
	return rc;
}
