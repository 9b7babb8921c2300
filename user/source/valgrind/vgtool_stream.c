/* vgtool_stream.c - the memtrace Valgrind tool's binary stream into samples. */
#include "source/valgrind/vgtool_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

void vgtool_init(struct vgtool_parser *p, vgtool_emit_fn emit, void *ctx)
{
	memset(p, 0, offsetof(struct vgtool_parser, batch));
	p->emit = emit;
	p->ctx = ctx;
}

static int flush_batch(struct vgtool_parser *p)
{
	size_t n = p->nbatch;

	p->nbatch = 0;
	return n ? p->emit(p->ctx, p->batch, n) : 0;
}

static int bad(struct vgtool_parser *p, const char *why, uint32_t type, uint32_t bytes)
{
	if (!p->error[0])
		snprintf(p->error, sizeof(p->error), "%s (message type %u, %u bytes)", why,
			 type, bytes);
	return -1;
}

static int accesses(struct vgtool_parser *p, const unsigned char *m, uint32_t bytes)
{
	size_t n = bytes / sizeof(struct mt_vg_access);

	for (size_t i = 0; i < n; i++) {
		struct mt_vg_access a;
		struct memtrace_sample *s;

		memcpy(&a, m + i * sizeof(a), sizeof(a));
		if (p->nbatch == VGTOOL_BATCH && flush_batch(p) < 0)
			return -1;
		s = &p->batch[p->nbatch++];
		*s = (struct memtrace_sample){
			.time = a.time, .addr = a.addr, .ip = a.ip, .pid = p->pid,
			.tid = a.tid, .data_src = a.op,
		};
		if (!p->first_addr)
			p->first_addr = a.addr;
		p->time = a.time;
	}
	p->samples += n;
	return 0;
}

static int agg(struct vgtool_parser *p, const unsigned char *m, uint32_t bytes)
{
	struct mt_vg_agg h;

	if (bytes < sizeof(h))
		return bad(p, "short AGG", MT_VG_AGG, bytes);
	memcpy(&h, m, sizeof(h));
	if ((uint64_t)bytes != sizeof(h) + (uint64_t)h.rows * sizeof(struct mt_vg_agg_row))
		return bad(p, "AGG rows do not match its length", MT_VG_AGG, bytes);
	if (!p->agg_out)
		return bad(p, "AGG in a stream that was not asked to aggregate", MT_VG_AGG, bytes);
	if (!h.interval || !h.k || h.k < p->agg_k || h.shift > 63 ||
	    h.k > UINT64_MAX / h.interval)
		return bad(p, "bad AGG interval", MT_VG_AGG, bytes);
	p->agg_k = h.k;
	p->samples += h.samples;
	p->time = h.k * h.interval;
	if (!p->first_addr)
		p->first_addr = h.first_addr;
	return p->agg_out(p->ctx, &h, m + sizeof(h));
}

/* One whole message. */
static int message(struct vgtool_parser *p, uint32_t type, const unsigned char *m, uint32_t bytes)
{
	if (!p->hello && type != MT_VG_HELLO)
		return bad(p, "stream does not start with HELLO", type, bytes);
	switch (type) {
	case MT_VG_HELLO:
		if (p->hello || bytes != sizeof(p->head))
			return bad(p, "bad HELLO", type, bytes);
		memcpy(&p->head, m, sizeof(p->head));
		if (p->head.magic != MT_VG_MAGIC || p->head.version != MT_VG_VERSION)
			return bad(p, "not a memtrace tool stream of version " "1", type, bytes);
		p->hello = true;
		p->pid = p->head.pid;
		return 0;
	case MT_VG_ACCESSES:
		if (bytes % sizeof(struct mt_vg_access))
			return bad(p, "ACCESSES is not a whole number of records", type, bytes);
		return accesses(p, m, bytes);
	case MT_VG_ALLOC: {
		struct mt_vg_alloc a;

		if (bytes < sizeof(a))
			return bad(p, "short ALLOC", type, bytes);
		memcpy(&a, m, sizeof(a));
		if (bytes != sizeof(a) + a.nframes * sizeof(uint64_t))
			return bad(p, "ALLOC frames do not match its length", type, bytes);
		p->allocs++;
		p->time = a.time;
		if (p->allocs_out)
			vgtool_allocs_alloc(p->allocs_out, &a, m + sizeof(a), a.nframes);
		return 0;
	}
	case MT_VG_FREE: {
		struct mt_vg_free f;

		if (bytes != sizeof(f))
			return bad(p, "bad FREE", type, bytes);
		p->frees++;
		if (p->allocs_out) {
			memcpy(&f, m, sizeof(f));
			vgtool_allocs_free(p->allocs_out, &f);
		}
		return 0;
	}
	case MT_VG_AGG:
		return agg(p, m, bytes);
	case MT_VG_FORK:
		if (bytes != sizeof(struct mt_vg_fork))
			return bad(p, "bad FORK", type, bytes);
		p->forks++;
		return 0;
	case MT_VG_END:
		if (bytes != sizeof(p->end))
			return bad(p, "bad END", type, bytes);
		memcpy(&p->end, m, sizeof(p->end));
		p->ended = true;
		if (p->allocs_out)
			vgtool_allocs_settle(p->allocs_out);
		return flush_batch(p);
	default:
		return bad(p, "unknown message", type, bytes);
	}
}

/* Complete messages at buf: returns the bytes used, or -1. */
static long messages(struct vgtool_parser *p, const unsigned char *buf, size_t len)
{
	size_t off = 0;
	struct mt_vg_header h;

	while (len - off >= sizeof(h)) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.bytes > MT_VG_MAX_MSG)
			return bad(p, "message too long", h.type, h.bytes);
		if (len - off - sizeof(h) < h.bytes)
			break;
		if (message(p, h.type, buf + off + sizeof(h), h.bytes) < 0)
			return -1;
		off += sizeof(h) + h.bytes;
	}
	return (long)off;
}

static void carry_append(struct vgtool_parser *p, const unsigned char *b, size_t n)
{
	if (!n)
		return;
	if (p->carry_len + n > p->carry_cap) {
		p->carry_cap = p->carry_len + n + 65536;
		p->carry = mt_xrealloc(p->carry, p->carry_cap);
	}
	memcpy(p->carry + p->carry_len, b, n);
	p->carry_len += n;
}

int vgtool_feed(struct vgtool_parser *p, const void *data, size_t len)
{
	const unsigned char *buf = data;
	long used;

	if (p->carry_len) {
		/* complete the carried message first: its header, then its payload */
		struct mt_vg_header h;
		size_t take;

		if (p->carry_len < sizeof(h)) {
			take = sizeof(h) - p->carry_len < len ? sizeof(h) - p->carry_len : len;
			carry_append(p, buf, take);
			buf += take;
			len -= take;
			if (p->carry_len < sizeof(h))
				return 0;
		}
		memcpy(&h, p->carry, sizeof(h));
		if (h.bytes > MT_VG_MAX_MSG)
			return bad(p, "message too long", h.type, h.bytes);
		size_t need = sizeof(h) + h.bytes;

		take = need - p->carry_len < len ? need - p->carry_len : len;
		carry_append(p, buf, take);
		buf += take;
		len -= take;
		if (p->carry_len < need)
			return 0;
		used = messages(p, p->carry, p->carry_len);
		if (used < 0)
			return -1;
		p->carry_len = 0;
	}
	used = messages(p, buf, len);
	if (used < 0)
		return -1;
	carry_append(p, buf + used, len - (size_t)used);
	return flush_batch(p);
}

size_t vgtool_finish(struct vgtool_parser *p)
{
	flush_batch(p);
	return p->carry_len;
}

void vgtool_free(struct vgtool_parser *p)
{
	free(p->carry);
	p->carry = NULL;
	p->carry_len = p->carry_cap = 0;
}
