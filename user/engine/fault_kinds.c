/* fault_kinds.c - samples and distinct pages per fault kind of a
 * hint-fault trace (include/memtrace/fault_kinds.h). */
#include <stdlib.h>
#include <string.h>

#include "memtrace/fault_kinds.h"
#include "util/util.h"

struct keys { uint64_t *v; size_t n, cap, sorted; };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorts and drops duplicates: the set of distinct keys so far. */
static void compact(struct keys *k)
{
	size_t m = 0;

	if (k->n)
		qsort(k->v, k->n, sizeof(*k->v), cmp_u64);
	for (size_t i = 0; i < k->n; i++)
		if (!m || k->v[m - 1] != k->v[i])
			k->v[m++] = k->v[i];
	k->n = k->sorted = m;
}

static void add(struct keys *k, uint64_t key)
{
	if (k->n == k->cap) {
		compact(k);
		if (k->n >= k->cap / 2) {
			k->cap = k->cap ? k->cap * 2 : 4096;
			k->v = mt_xrealloc(k->v, k->cap * sizeof(*k->v));
		}
	}
	k->v[k->n++] = key;
}

static unsigned shift_of(uint64_t page_size)
{
	unsigned s = 0;

	while (s < 40 && (1ull << s) < page_size)
		s++;
	return s;
}

/* row order: hint, first-touch, cow, unknown */
static const unsigned order[MEMTRACE_NFAULT_KINDS] = {
	MEMTRACE_FAULT_HINT, MEMTRACE_FAULT_FIRST_TOUCH, MEMTRACE_FAULT_WRITE_PROTECT,
	MEMTRACE_FAULT_UNKNOWN,
};
static const char *const names[MEMTRACE_NFAULT_KINDS] = { "hint", "first-touch", "cow", "unknown" };

static int row_of(unsigned kind)
{
	for (int i = 0; i < MEMTRACE_NFAULT_KINDS; i++)
		if (order[i] == kind)
			return i;
	return 3;
}

static int count_chunks(struct memtrace_trace *t, uint32_t pid, unsigned shift,
			struct memtrace_fault_kind_row *out, struct keys *keys, char *err, size_t errlen)
{
	struct memtrace_chunk c;
	size_t cap = 65536, n;
	struct memtrace_columns col = {
		.addr = mt_xcalloc(cap, 8), .data_src = mt_xcalloc(cap, 8),
		.pid = mt_xcalloc(cap, 4), .cap = cap,
	};
	int rc;

	if (memtrace_trace_rewind(t, err, errlen)) {
		rc = -1;
		goto out;
	}
	while ((rc = memtrace_trace_next(t, &c, err, errlen)) > 0) {
		if (c.type != MEMTRACE_CHUNK_SAMPLES)
			continue;
		if (memtrace_chunk_samples(&c, &col, &n, err, errlen)) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			if (pid && col.pid[i] != pid)
				continue;
			int r = row_of(MEMTRACE_FAULT_KIND(col.data_src[i]));
			out[r].samples++;
			uint64_t page = (col.addr[i] >> shift) & ((1ull << 36) - 1);
			add(&keys[r], (uint64_t)col.pid[i] << 36 | page);
		}
	}
out:
	free(col.addr);
	free(col.data_src);
	free(col.pid);
	return rc < 0 ? -1 : 0;
}

static int fault_kinds(const char *path, uint32_t pid, uint64_t page_size,
		       struct memtrace_fault_kind_row out[MEMTRACE_NFAULT_KINDS], char *err,
		       size_t errlen)
{
	struct memtrace_trace *t = memtrace_trace_open(path, err, errlen);
	struct keys keys[MEMTRACE_NFAULT_KINDS] = { 0 };

	if (!t)
		return -1;
	const char *fk = memtrace_trace_meta(t, "fault_kinds");
	/* an aggregated trace (record --aggregate) keeps counts, not the kinds */
	if (!fk || strcmp(fk, "1") || memtrace_trace_meta(t, "aggregate")) {
		memtrace_trace_close(t);
		return 0;
	}
	for (int i = 0; i < MEMTRACE_NFAULT_KINDS; i++)
		out[i] = (struct memtrace_fault_kind_row){ .kind = order[i], .name = names[i] };
	int rc = count_chunks(t, pid, shift_of(page_size ? page_size : 4096), out, keys, err, errlen);
	for (int i = 0; i < MEMTRACE_NFAULT_KINDS; i++) {
		compact(&keys[i]);
		out[i].pages = keys[i].n;
		free(keys[i].v);
	}
	memtrace_trace_close(t);
	return rc ? -1 : MEMTRACE_NFAULT_KINDS;
}

/* out of memory: -1 with the error, never an exit (util/util.h) */
int memtrace_fault_kinds(const char *path, uint32_t pid, uint64_t page_size,
			 struct memtrace_fault_kind_row out[MEMTRACE_NFAULT_KINDS],
			 char *err, size_t errlen)
{
	MT_OOM_GUARDED(int, -1, err, errlen, fault_kinds(path, pid, page_size, out, err, errlen));
}
