/*
 * resolve.c - the public resolve API (include/memtrace/resolve.h) over the
 * internal resolver: the MAPS chunks of a trace file, pid 0 = the trace's
 * HEADER target_pid (or, when the header names none, the pid with the most
 * snapshots).
 */
#include "memtrace/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/labels.h"
#include "resolve/resolve.h"
#include "resolve/spaces.h"
#include "trace/format.h"
#include "trace/reader.h"
#include "util/util.h"

struct memtrace_resolver {
	struct resolver *res;
	uint32_t target;
};

static uint32_t header_target(struct trace_reader *t)
{
	const char *v = trace_meta(t, "target_pid");
	char *end;
	unsigned long long p;

	if (!v)
		return 0;
	p = strtoull(v, &end, 10);
	return *end == '\0' && p <= UINT32_MAX ? (uint32_t)p : 0;
}

static struct memtrace_resolver *resolver_open_api(const char *path, const char *root,
						   const char *debug_dir, char *err, size_t errlen)
{
	char dummy[8];
	struct trace_chunk c;
	int rc;

	if (!err || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!path) {
		snprintf(err, errlen, "no trace path");
		return NULL;
	}
	struct trace_reader *t = trace_open(path, err, errlen);
	if (!t)
		return NULL;
	struct memtrace_resolver *r = mt_xcalloc(1, sizeof(*r));
	r->res = resolver_new();
	resolver_set_root(r->res, root);
	resolver_set_debug_dir(r->res, debug_dir);
	r->target = header_target(t);
	resolver_set_label_pid(r->res, r->target);
	/* only MAPS, LABELS and THREADS (process names): the others are passed over unread
	 * (framing checked) */
	trace_skip(t, ~((1u << CHUNK_MAPS) | (1u << CHUNK_LABELS) | (1u << CHUNK_THREADS) |
			(1u << CHUNK_END)));
	while ((rc = trace_next(t, &c, err, errlen)) == 1) {
		if (c.type == CHUNK_MAPS && c.len >= MAPS_HDR_SIZE)
			resolver_add_maps(r->res, get_le64(c.data), get_le32(c.data + 8),
					  (const char *)c.data + MAPS_HDR_SIZE,
					  c.len - MAPS_HDR_SIZE);
		if (c.type == CHUNK_THREADS)
			resolver_add_threads(r->res, c.data, c.len);
		if (c.type != CHUNK_LABELS)
			continue;
		char where[64];
		snprintf(where, sizeof(where), "LABELS chunk at offset %llu",
			 (unsigned long long)c.offset);
		if (resolver_add_labels(r->res, (const char *)c.data, c.len, where, 0, err, errlen)) {
			rc = -1;
			break;
		}
	}
	const char *tc = trace_end_meta(t, "target_comm");	/* the target's name last */
	if (!tc || !*tc)
		tc = trace_meta(t, "target_comm");
	if (rc >= 0 && tc && *tc && r->target)
		resolver_set_comm(r->res, r->target, tc);
	trace_close(t);
	if (rc < 0) {
		memtrace_resolver_close(r);
		return NULL;
	}
	return r;
}

int memtrace_resolver_labels(struct memtrace_resolver *r, const char *path, char *err,
			     size_t errlen)
{
	struct mt_labels l = { 0 };
	char dummy[8];

	if (!err || errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	int rc = mt_labels_load(&l, path, err, errlen) ||
		 resolver_add_labels(r->res, l.text, l.len, path, 1, err, errlen) ? -1 : 0;
	mt_labels_free(&l);
	return rc;
}

void memtrace_resolver_close(struct memtrace_resolver *r)
{
	if (!r)
		return;
	resolver_free(r->res);
	free(r);
}

static uint32_t pick_pid(const struct memtrace_resolver *r, uint32_t pid)
{
	return pid ? pid : r->target; /* 0 again: resolver's main pid */
}

int memtrace_resolve(struct memtrace_resolver *r, uint32_t pid, uint64_t time,
		     uint64_t addr, struct memtrace_location *out)
{
	struct resolved res;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!r) {
		out->mapping = "?";
		out->path = "";
		return MEMTRACE_UNMAPPED;
	}
	pid = pick_pid(r, pid);
	ret = resolver_lookup(r->res, pid, time, addr, &res);
	out->mapping = res.region;
	out->mapping_off = res.region_off;
	out->path = res.map ? res.map->path : "";
	if (res.map) {
		out->map_start = res.map->start;
		out->map_end = res.map->end;
	}
	out->symbol = res.sym;
	out->symbol_off = res.sym ? res.sym_off : 0;
	out->symbol_size = res.sym ? res.sym_size : 0;
	out->file = res.file;
	out->line = res.line;
	out->ninlined = res.ninlined;
	out->inlined = res.inlined;
	return ret;
}

int memtrace_describe(struct memtrace_resolver *r, uint32_t pid, uint64_t time,
		      uint64_t addr, char *buf, size_t len)
{
	if (!r) {
		if (len)
			snprintf(buf, len, "?");
		return MEMTRACE_UNMAPPED;
	}
	return resolver_describe(r->res, pick_pid(r, pid), time, addr, buf, len);
}

long memtrace_resolver_layout(struct memtrace_resolver *r, uint32_t pid,
			      const struct memtrace_range **v)
{
	*v = NULL;
	if (!r)
		return 0;
	if (pid == MEMTRACE_LAYOUT_KEYS) {
		resolver_spaces(r->res, r->target);
		return (long)resolver_key_layout(r->res, v);
	}
	return (long)resolver_layout(r->res, pick_pid(r, pid), v);
}

static struct mt_spaces *spaces(struct memtrace_resolver *r)
{
	return resolver_spaces(r->res, r->target);
}

uint64_t memtrace_resolver_key(struct memtrace_resolver *r, uint32_t pid, uint64_t addr)
{
	return r ? mt_spaces_key(spaces(r), pid, addr) : addr;
}

void memtrace_resolver_keys(struct memtrace_resolver *r, size_t n, const uint32_t *pid,
			    const uint64_t *addr, uint64_t *key)
{
	struct mt_spaces *s = r ? spaces(r) : NULL;

	for (size_t i = 0; i < n; i++)
		key[i] = s ? mt_spaces_key(s, pid[i], addr[i]) : addr[i];
}

int memtrace_resolver_decode(struct memtrace_resolver *r, uint64_t key, uint32_t *pid,
			     uint64_t *addr, uint32_t *shared_by)
{
	uint32_t p = 0;
	uint64_t a = key;
	long obj = r ? mt_spaces_decode(spaces(r), key, &p, &a) : -1;

	if (pid)
		*pid = p;
	if (addr)
		*addr = a;
	if (shared_by)
		*shared_by = obj > 0 ? spaces(r)->obj[obj - 1].nprocs : 0;
	return obj < 0 ? -1 : obj > 0;
}

int memtrace_describe_key(struct memtrace_resolver *r, uint64_t key, char *buf, size_t len)
{
	if (!r) {
		if (len)
			snprintf(buf, len, "?");
		return MEMTRACE_UNMAPPED;
	}
	spaces(r);
	return resolver_key_describe(r->res, key, buf, len);
}

/* out of memory: NULL with the error, never an exit (util/util.h) */
struct memtrace_resolver *memtrace_resolver_open(const char *path, const char *root,
						 const char *debug_dir, char *err,
						 size_t errlen)
{
	MT_OOM_GUARDED(struct memtrace_resolver *, NULL, err, errlen,
		       resolver_open_api(path, root, debug_dir, err, errlen));
}
