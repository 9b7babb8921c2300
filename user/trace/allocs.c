/* allocs.c - the ALLOCS chunk's codec (trace/allocs.h, docs/trace-format.md). */
#include "trace/allocs.h"

#include <stdio.h>
#include <string.h>

#include "trace/format.h"

void trace_alloc_put(struct bytebuf *recs, const struct trace_alloc *a)
{
	unsigned char b[ALLOC_REC_SIZE] = { 0 };
	uint64_t w;

	memcpy(&w, &a->weight, sizeof(w));
	put_le64(b, a->time);
	put_le64(b + 8, a->addr);
	put_le64(b + 16, a->size);
	put_le64(b + 24, a->old_addr);
	put_le64(b + 32, w);
	put_le64(b + 40, a->caller);
	put_le32(b + 48, a->pid);
	put_le32(b + 52, a->tid);
	put_le32(b + 56, a->stack);
	b[60] = a->kind;
	b[61] = a->flags;
	bytebuf_put(recs, b, sizeof(b));
}

void trace_alloc_stack_put(struct bytebuf *stacks, uint32_t id, const uint64_t *ips, uint32_t n)
{
	unsigned char h[ALLOC_STACK_HDR_SIZE], ip[8];

	if (n > ALLOC_MAX_FRAMES)
		n = ALLOC_MAX_FRAMES;
	put_le32(h, id);
	put_le32(h + 4, n);
	bytebuf_put(stacks, h, sizeof(h));
	for (uint32_t i = 0; i < n; i++) {
		put_le64(ip, ips[i]);
		bytebuf_put(stacks, ip, sizeof(ip));
	}
}

void trace_allocs_payload(struct bytebuf *out, const struct bytebuf *recs, uint32_t nrec,
			  const struct bytebuf *stacks, uint32_t nstack)
{
	unsigned char h[ALLOCS_HDR_SIZE];

	put_le32(h, nrec);
	put_le32(h + 4, nstack);
	bytebuf_put(out, h, sizeof(h));
	if (recs->len)
		bytebuf_put(out, recs->data, recs->len);
	if (stacks->len)
		bytebuf_put(out, stacks->data, stacks->len);
}

/* Checks the framing: records fit, every stack fits, nothing is left over. */
static int check(const unsigned char *p, size_t len, uint32_t *nrec, uint32_t *nstack,
		 char *err, size_t errlen)
{
	if (len < ALLOCS_HDR_SIZE) {
		snprintf(err, errlen, "ALLOCS chunk shorter than its header");
		return -1;
	}
	*nrec = get_le32(p);
	*nstack = get_le32(p + 4);
	size_t off = ALLOCS_HDR_SIZE;
	if ((len - off) / ALLOC_REC_SIZE < *nrec) {
		snprintf(err, errlen, "ALLOCS chunk: %u records do not fit", *nrec);
		return -1;
	}
	off += (size_t)*nrec * ALLOC_REC_SIZE;
	for (uint32_t i = 0; i < *nstack; i++) {
		if (len - off < ALLOC_STACK_HDR_SIZE) {
			snprintf(err, errlen, "ALLOCS chunk: stack %u cut", i);
			return -1;
		}
		uint32_t n = get_le32(p + off + 4);
		off += ALLOC_STACK_HDR_SIZE;
		if (n > ALLOC_MAX_FRAMES || (len - off) / 8 < n) {
			snprintf(err, errlen, "ALLOCS chunk: stack %u has a bad frame count", i);
			return -1;
		}
		off += (size_t)n * 8;
	}
	if (off != len) {
		snprintf(err, errlen, "ALLOCS chunk: %zu bytes past the stacks", len - off);
		return -1;
	}
	return 0;
}

int trace_allocs_decode(const unsigned char *p, size_t len,
			void (*on_rec)(void *ctx, const struct trace_alloc *a),
			void (*on_stack)(void *ctx, const struct trace_alloc_stack *s), void *ctx,
			char *err, size_t errlen)
{
	uint32_t nrec, nstack;

	if (check(p, len, &nrec, &nstack, err, errlen))
		return -1;
	size_t off = ALLOCS_HDR_SIZE;
	for (uint32_t i = 0; i < nrec; i++, off += ALLOC_REC_SIZE) {
		const unsigned char *b = p + off;
		struct trace_alloc a;
		uint64_t w = get_le64(b + 32);

		a.time = get_le64(b);
		a.addr = get_le64(b + 8);
		a.size = get_le64(b + 16);
		a.old_addr = get_le64(b + 24);
		memcpy(&a.weight, &w, sizeof(w));
		if (!(a.weight >= 1.0 && a.weight <= 1e12))	/* NaN, hostile */
			a.weight = 1.0;
		a.caller = get_le64(b + 40);
		a.pid = get_le32(b + 48);
		a.tid = get_le32(b + 52);
		a.stack = get_le32(b + 56);
		a.kind = b[60];
		a.flags = b[61];
		if (on_rec && a.kind < ALLOC_KIND_COUNT)
			on_rec(ctx, &a);
	}
	for (uint32_t i = 0; i < nstack; i++) {
		struct trace_alloc_stack s = { .id = get_le32(p + off), .n = get_le32(p + off + 4),
					       .ips = p + off + ALLOC_STACK_HDR_SIZE };
		off += ALLOC_STACK_HDR_SIZE + (size_t)s.n * 8;
		if (on_stack)
			on_stack(ctx, &s);
	}
	return 0;
}
