/* perf_sample.c - decoding PERF_RECORD_SAMPLE and the sample_id trailer of
 * other records by the attr's sample_type (perf_file.h). */
#include "source/import/perf_file.h"

#include <string.h>

#include "trace/format.h"

struct cursor {
	const unsigned char *p, *end;
	bool cut;
};

static uint64_t take(struct cursor *c)
{
	if (c->end - c->p < 8) {
		c->cut = true;
		c->p = c->end;
		return 0;
	}
	uint64_t v = get_le64(c->p);

	c->p += 8;
	return v;
}

static void take_n(struct cursor *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p) / 8) {
		c->cut = true;
		c->p = c->end;
		return;
	}
	c->p += 8 * n;
}

/* Skips a read_format value of PERF_SAMPLE_READ. */
static void skip_read(struct cursor *c, uint64_t fmt)
{
	uint64_t per = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	uint64_t times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			 !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (fmt & PERF_FORMAT_GROUP) {
		uint64_t nr = take(c);
		take_n(c, times);
		if (nr > (1u << 16))
			c->cut = true;
		else
			take_n(c, nr * per);
	} else {
		take_n(c, per + times);
	}
}

/* The sample's attr, from its id (the first attr's layout says where). */
static const struct perf_file_attr *sample_attr(struct perf_file *f, const unsigned char *p,
						 size_t len)
{
	if (!f->nattrs)
		return NULL;
	if (f->nattrs == 1)
		return &f->attrs[0];
	uint64_t t = f->attrs[0].attr.sample_type;
	size_t pos = 0;

	if (!(t & PERF_SAMPLE_IDENTIFIER)) {
		if (!(t & PERF_SAMPLE_ID))
			return &f->attrs[0];
		pos = !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
		      !!(t & PERF_SAMPLE_ADDR);
	}
	if (8 * (pos + 1) > len)
		return NULL;
	const struct perf_file_attr *a = perf_file_attr_of_id(f, get_le64(p + 8 * pos));

	if (!a)		/* an event the file does not describe: perf script stops here */
		f->unknown_ids++;
	return a;
}

int perf_file_sample(struct perf_file *f, const struct perf_event_header *rec,
		     struct perf_file_sample *s)
{
	const unsigned char *body = (const unsigned char *)(rec + 1);
	struct cursor c = { body, (const unsigned char *)rec + rec->size, false };

	memset(s, 0, sizeof(*s));
	s->attr = sample_attr(f, body, rec->size - sizeof(*rec));
	if (!s->attr)
		return -1;
	const struct perf_event_attr *a = &s->attr->attr;
	uint64_t t = a->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = take(&c);
	if (t & PERF_SAMPLE_IP)
		s->ip = take(&c);
	if (t & PERF_SAMPLE_TID) {
		uint64_t v = take(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
		s->has_tid = true;
	}
	if (t & PERF_SAMPLE_TIME) {
		s->time = take(&c);
		s->has_time = true;
	}
	if (t & PERF_SAMPLE_ADDR)
		s->addr = take(&c);
	if (t & PERF_SAMPLE_ID)
		s->id = take(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		take(&c);
	if (t & PERF_SAMPLE_CPU) {
		s->cpu = (uint32_t)take(&c);
		s->has_cpu = true;
	}
	if (t & PERF_SAMPLE_PERIOD)
		s->period = take(&c);
	if (t & PERF_SAMPLE_READ)
		skip_read(&c, a->read_format);
	if (t & PERF_SAMPLE_CALLCHAIN)
		take_n(&c, take(&c));
	if (t & PERF_SAMPLE_RAW) {	/* u32 size, data: together a multiple of 8 */
		if (c.end - c.p < 4)
			c.cut = true;
		else if ((uint64_t)get_le32(c.p) + 4 > (uint64_t)(c.end - c.p))
			c.cut = true;
		else
			c.p += (get_le32(c.p) + 4 + 7) & ~7u;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = take(&c);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			take(&c);
		take_n(&c, nr > (1u << 20) ? UINT64_MAX / 2 : 3 * nr);
	}
	if (t & PERF_SAMPLE_REGS_USER && take(&c))
		take_n(&c, (uint64_t)__builtin_popcountll(a->sample_regs_user));
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take(&c);
		if (size) {
			take_n(&c, (size + 7) / 8);
			take(&c);
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		uint64_t w = take(&c);
		/* WEIGHT_STRUCT: var1_dw (the latency) in the low 32 bits */
		s->weight = t & PERF_SAMPLE_WEIGHT_STRUCT ? (uint32_t)w : w;
	}
	if (t & PERF_SAMPLE_DATA_SRC)
		s->data_src = take(&c);
	return c.cut ? -1 : 0;
}

void perf_file_sample_id(struct perf_file *f, const struct perf_event_header *rec,
			 struct perf_file_sample *s)
{
	const unsigned char *end = (const unsigned char *)rec + rec->size;
	const unsigned char *start = (const unsigned char *)(rec + 1);

	memset(s, 0, sizeof(*s));
	if (!f->nattrs || !f->attrs[0].attr.sample_id_all)
		return;
	const struct perf_file_attr *a = &f->attrs[0];
	uint64_t t = a->attr.sample_type;

	/* with several attrs, IDENTIFIER (the last word) says whose layout it is */
	if (f->nattrs > 1 && (t & PERF_SAMPLE_IDENTIFIER) && end - start >= 8) {
		const struct perf_file_attr *b = perf_file_attr_of_id(f, get_le64(end - 8));
		if (b)
			a = b;
		t = a->attr.sample_type;
	}
	size_t n = !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		   !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		   !!(t & PERF_SAMPLE_IDENTIFIER);

	if ((size_t)(end - start) < 8 * n)
		return;
	const unsigned char *p = end - 8 * n;

	s->attr = a;
	if (t & PERF_SAMPLE_TID) {
		s->pid = get_le32(p);
		s->tid = get_le32(p + 4);
		s->has_tid = true;
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		s->time = get_le64(p);
		s->has_time = true;
		p += 8;
	}
	p += 8 * (!!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID));
	if (t & PERF_SAMPLE_CPU) {
		s->cpu = get_le32(p);
		s->has_cpu = true;
	}
}
