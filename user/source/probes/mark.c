/* mark.c - record --mark (mark_probe.h): probes found, attached, paired into spans. */
#include "source/probes/mark_probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recorder.h"
#include "source/bpf/bpf.h"
#include "source/target.h"
#include "source/probes/probe_tgids.h"
#include "source/probes/usdt_notes.h"
#include "util/util.h"
#include "source/probes/mark.h"
#include "source/probes/sql_label.h"
#include "mark.skel.h"

struct probe {
	char path[PATH_MAX];
	char provider[128];
	char name[256];
	int usdt;		/* else a function: uprobe (start) / uretprobe (end) */
};

struct open_span {
	uint32_t pid, tid;
	uint64_t start;
	char label[MT_MARK_LABEL_MAX + 24];
	size_t len;
};

struct mark_session {
	struct mt_mark_bpf *skel;
	struct ring_buffer *rb;
	struct probe start, end;
	unsigned label_kind;
	char desc[2 * PATH_MAX];
	struct open_span *open;		/* threads inside a span */
	size_t nopen, capopen;
	uint64_t unmatched, spans;
	struct recorder *r;
	int failed;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* BIN: a path, the executable of a -p process or of the command with that
 * name, else found in PATH. */
static int find_binary(const struct record_opts *o, const char *bin, char *out, size_t len,
		       char *err, size_t errlen)
{
	if (strchr(bin, '/')) {
		if (!realpath(bin, out)) {
			snprintf(err, errlen, "--mark: cannot find %s: %s", bin, strerror(errno));
			return -1;
		}
		return 0;
	}
	for (int i = 0; i < o->npids; i++) {
		char link[64];
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)o->pids[i]);
		ssize_t n = readlink(link, out, len - 1);
		if (n <= 0)
			continue;
		out[n] = 0;
		if (!strcmp(base_name(out), bin))
			return 0;
	}
	if (o->argv && !strcmp(base_name(o->argv[0]), bin)) {
		if (strchr(o->argv[0], '/') ? realpath(o->argv[0], out) != NULL
					   : !target_which(bin, out, len))
			return 0;
	}
	if (!target_which(bin, out, len))
		return 0;
	snprintf(err, errlen, "--mark: no binary '%s' (give its path, or -p a process running it)",
		 bin);
	return -1;
}

/* "BIN:NAME" or "BIN:PROVIDER:NAME" (bin NULL: NAME or PROVIDER:NAME in BIN of *base). */
static int parse_probe(const struct record_opts *o, const char *spec, const struct probe *base,
		       struct probe *p, char *err, size_t errlen)
{
	char buf[1024], *colon, *bin = NULL, *prov = NULL, *name;

	snprintf(buf, sizeof(buf), "%s", spec);
	colon = strrchr(buf, ':');
	name = colon ? colon + 1 : buf;
	if (colon) {
		*colon = 0;
		char *c2 = strrchr(buf, ':');
		if (c2) {
			*c2 = 0;
			prov = c2 + 1;
			bin = buf;
		} else if (base) {
			prov = buf;
		} else {
			bin = buf;
		}
	}
	if (!*name || (!bin && !base) || (bin && !*bin) || (prov && !*prov)) {
		snprintf(err, errlen, "--mark %s: expected BINARY:PROBE, BINARY:PROVIDER:PROBE or "
			 "START,END", o->mark);
		return -1;
	}
	memset(p, 0, sizeof(*p));
	if (bin) {
		if (find_binary(o, bin, p->path, sizeof(p->path), err, errlen))
			return -1;
	} else {
		snprintf(p->path, sizeof(p->path), "%s", base->path);
	}
	if (strlen(name) >= sizeof(p->name)) {
		snprintf(err, errlen, "--mark: probe name too long");
		return -1;
	}
	memcpy(p->name, name, strlen(name) + 1);
	int rc = usdt_find(p->path, prov, name, p->provider, sizeof(p->provider), err, errlen);
	if (rc < 0)
		return -1;
	p->usdt = rc;
	if (!rc && prov) {
		snprintf(err, errlen, "--mark: %s has no USDT probe %s:%s", p->path, prov, name);
		return -1;
	}
	return 0;
}

/* No END given: NAME__start's NAME__done (or __end); a function's return. */
static int default_end(const struct record_opts *o, const struct probe *s, struct probe *e,
		       char *err, size_t errlen)
{
	static const char *const ends[] = { "done", "end" };
	size_t n = strlen(s->name);

	*e = *s;
	if (!s->usdt)
		return 0;
	if (n > 5 && !strcmp(s->name + n - 5, "start")) {
		for (size_t i = 0; i < 2; i++) {
			snprintf(e->name, sizeof(e->name), "%.*s%s", (int)(n - 5), s->name, ends[i]);
			if (usdt_find(s->path, s->provider, e->name, e->provider,
				      sizeof(e->provider), err, errlen) == 1)
				return 0;
		}
	}
	snprintf(err, errlen, "--mark %s: no end probe found for %s:%s; give one: --mark "
		 "START,END", o->mark, s->provider, s->name);
	return -1;
}

static int parse_spec(struct mark_session *m, const struct record_opts *o, char *err,
		      size_t errlen)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "%s", o->mark);
	char *comma = strchr(buf, ',');
	if (comma)
		*comma = 0;
	if (parse_probe(o, buf, NULL, &m->start, err, errlen))
		return -1;
	if (!comma)
		return default_end(o, &m->start, &m->end, err, errlen);
	const char *end = comma + 1, *c1 = strchr(end, ':');
	/* PROVIDER:PROBE of the start's binary, else BINARY:PROBE */
	if (c1 && !strchr(c1 + 1, ':') &&
	    parse_probe(o, end, &m->start, &m->end, err, errlen) == 0 && m->end.usdt)
		return 0;
	return parse_probe(o, end, c1 ? NULL : &m->start, &m->end, err, errlen);
}

static struct bpf_link *attach(struct bpf_program *usdt, struct bpf_program *up,
			       const struct probe *p, int ret)
{
	if (p->usdt)
		return bpf_program__attach_usdt(usdt, -1, p->path, p->provider, p->name, NULL);
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = p->name, .retprobe = ret);
	return bpf_program__attach_uprobe_opts(up, -1, p->path, 0, &uo);
}

int mark_add_pid(struct mark_session *m, int pid)
{
	return probe_tgids_add(m->skel->maps.tgids, pid);
}

int mark_del_pid(struct mark_session *m, int pid)
{
	return probe_tgids_del(m->skel->maps.tgids, pid);
}

static int add_trees(struct mark_session *m, const struct record_opts *o, char *err,
		     size_t errlen)
{
	if (!probe_tgids_add_trees(m->skel->maps.tgids, o))
		return 0;
	snprintf(err, errlen, "--mark: the BPF tgid map: %s", strerror(errno));
	return -1;
}

static int load(struct mark_session *m, const struct record_opts *o, char *err, size_t errlen)
{
	struct mt_mark_bpf *s;

	bpf_quiet_libbpf();
	m->skel = s = mt_mark_bpf__open();
	if (!s) {
		snprintf(err, errlen, "--mark: cannot open the BPF programs: %s", bpf_last_error());
		return -1;
	}
	s->rodata->label_kind = m->label_kind == MT_MARK_LABEL_SQL ? MT_MARK_LABEL_STR : m->label_kind;
	s->rodata->arg_index = o->mark_arg;
	s->rodata->filter_tgids = o->npids > 0 || o->argv;
	bpf_program__set_autoload(s->progs.probe_fork, o->npids > 0 || o->argv);
	bpf_program__set_autoload(s->progs.usdt_start, m->start.usdt);
	bpf_program__set_autoload(s->progs.uprobe_start, !m->start.usdt);
	bpf_program__set_autoload(s->progs.usdt_end, m->end.usdt);
	bpf_program__set_autoload(s->progs.uprobe_end, !m->end.usdt);
	if (mt_mark_bpf__load(s)) {
		snprintf(err, errlen, "--mark: cannot load the BPF programs: %s", bpf_last_error());
		return -1;
	}
	struct bpf_link *l = attach(s->progs.usdt_start, s->progs.uprobe_start, &m->start, 0);
	if (!l) {
		snprintf(err, errlen, "--mark: cannot attach to %s in %s: %s", m->start.name,
			 m->start.path, bpf_last_error());
		return -1;
	}
	*(m->start.usdt ? &s->links.usdt_start : &s->links.uprobe_start) = l;
	l = attach(s->progs.usdt_end, s->progs.uprobe_end, &m->end, !m->end.usdt);
	if (!l) {
		snprintf(err, errlen, "--mark: cannot attach to %s in %s: %s", m->end.name,
			 m->end.path, bpf_last_error());
		return -1;
	}
	*(m->end.usdt ? &s->links.usdt_end : &s->links.uprobe_end) = l;
	if ((o->npids || o->argv) && !(s->links.probe_fork = bpf_program__attach(s->progs.probe_fork))) {
		snprintf(err, errlen, "--mark: cannot attach to sched_process_fork: %s",
			 bpf_last_error());
		return -1;
	}
	return o->npids ? add_trees(m, o, err, errlen) : 0;
}

static struct open_span *find_open(struct mark_session *m, uint32_t tid)
{
	for (size_t i = 0; i < m->nopen; i++)
		if (m->open[i].tid == tid)
			return &m->open[i];
	return NULL;
}

static void emit(struct mark_session *m, const struct open_span *o, uint64_t end, int open)
{
	if (recorder_add_span(m->r, o->start, end, o->pid, o->tid, o->label, o->len, open))
		m->failed = 1;
	m->spans++;
}

static void set_label(struct mark_session *m, struct open_span *o, const struct mt_mark_rec *b)
{
	if (m->label_kind == MT_MARK_LABEL_INT)
		o->len = (size_t)snprintf(o->label, sizeof(o->label), "%" PRId64, (int64_t)b->value);
	else if (m->label_kind == MT_MARK_LABEL_NONE)
		o->len = 0;
	else if (b->len < 0)	/* not a readable string */
		o->len = (size_t)snprintf(o->label, sizeof(o->label), "?0x%" PRIx64,
					  (uint64_t)b->value);
	else if (m->label_kind == MT_MARK_LABEL_SQL)
		o->len = sql_label_normalize(b->label, b->len < MT_MARK_LABEL_MAX ? (size_t)b->len :
					     MT_MARK_LABEL_MAX - 1, o->label, sizeof(o->label));
	else {
		o->len = b->len < MT_MARK_LABEL_MAX ? (size_t)b->len : MT_MARK_LABEL_MAX - 1;
		memcpy(o->label, b->label, o->len);
	}
}

static int on_mark(void *ctx, void *data, size_t len)
{
	struct mark_session *m = ctx;
	const struct mt_mark_rec *b = data;

	if (len < sizeof(*b))
		return 0;
	struct open_span *o = find_open(m, b->tid);
	if (b->kind == MT_MARK_END) {
		if (!o) {
			m->unmatched++;
			return 0;
		}
		emit(m, o, b->time, 0);
		*o = m->open[--m->nopen];
		return 0;
	}
	if (o) {	/* a second start before an end: the first one ends here */
		emit(m, o, b->time, 1);
	} else {
		if (m->nopen == m->capopen) {
			m->capopen = m->capopen ? 2 * m->capopen : 64;
			m->open = mt_xrealloc(m->open, m->capopen * sizeof(*m->open));
		}
		o = &m->open[m->nopen++];
	}
	o->pid = b->pid;
	o->tid = b->tid;
	o->start = b->time;
	set_label(m, o, b);
	return 0;
}

/* A database's query-start probe: its argument is the query text. */
static int query_probe(const struct probe *p)
{
	return p->usdt && !strcmp(p->name, "query__start") &&
	       (!strcmp(p->provider, "postgresql") || !strcmp(p->provider, "mysql"));
}

struct mark_session *mark_open(const struct record_opts *o, char *err, size_t errlen)
{
	struct mark_session *m = mt_xcalloc(1, sizeof(*m));

	const char *kind = o->mark_label;

	m->label_kind = !kind || !strcmp(kind, "str") ? MT_MARK_LABEL_STR
			: !strcmp(kind, "int") ? MT_MARK_LABEL_INT
			: !strcmp(kind, "sql") ? MT_MARK_LABEL_SQL : MT_MARK_LABEL_NONE;
	if (parse_spec(m, o, err, errlen)) {
		mark_close(m);
		return NULL;
	}
	if (!kind && query_probe(&m->start))
		m->label_kind = MT_MARK_LABEL_SQL;	/* one label per statement, not per constant */
	if (load(m, o, err, errlen)) {
		mark_close(m);
		return NULL;
	}
	m->rb = ring_buffer__new(bpf_map__fd(m->skel->maps.marks), on_mark, m, NULL);
	if (!m->rb) {
		snprintf(err, errlen, "--mark: cannot map the ring buffer: %s", strerror(errno));
		mark_close(m);
		return NULL;
	}
	snprintf(m->desc, sizeof(m->desc), "%s %s%s%s to %s %s%s%s in %s%s",
		 m->start.usdt ? "usdt" : "uprobe", m->start.provider, m->start.usdt ? ":" : "",
		 m->start.name, m->end.usdt ? "usdt" : "uretprobe", m->end.provider,
		 m->end.usdt ? ":" : "", m->end.name, m->start.path,
		 m->label_kind == MT_MARK_LABEL_SQL ? "; labels: query texts, constants as $n" : "");
	return m;
}

int mark_fd(const struct mark_session *m)
{
	return ring_buffer__epoll_fd(m->rb);
}

const char *mark_describe(const struct mark_session *m)
{
	return m->desc;
}

int mark_drain(struct mark_session *m, struct recorder *r)
{
	m->r = r;
	if (ring_buffer__consume(m->rb) < 0)
		return 0;	/* EINTR and the like: next round */
	return m->failed ? -1 : 0;
}

static uint64_t lost_records(struct mark_session *m)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t sum = 0;
	uint32_t k = 0;

	if (ncpu <= 0)
		return 0;
	uint64_t *v = mt_xcalloc((size_t)ncpu, sizeof(*v));
	if (!bpf_map_lookup_elem(bpf_map__fd(m->skel->maps.lost), &k, v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

int mark_finish(struct mark_session *m, struct recorder *r)
{
	m->r = r;
	ring_buffer__consume(m->rb);
	uint64_t now = mt_now_ns();
	for (size_t i = 0; i < m->nopen; i++)
		emit(m, &m->open[i], now > m->open[i].start ? now : m->open[i].start, 1);
	m->nopen = 0;
	uint64_t lost = lost_records(m);
	if (lost)
		mt_warn("--mark: %" PRIu64 " probe records lost (ring buffer full): some spans "
			"are missing or open", lost);
	return m->failed ? -1 : 0;
}

void mark_close(struct mark_session *m)
{
	if (!m)
		return;
	ring_buffer__free(m->rb);
	mt_mark_bpf__destroy(m->skel);
	free(m->open);
	free(m);
}
