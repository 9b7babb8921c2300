/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pebs_extract.h - take what a memory tracer needs out of one raw PEBS record
 *
 * Pure decoding of the bytes the PMU wrote into the DS buffer: the data
 * linear address, the TSC, the instruction pointer, the access latency and
 * the raw data-source bits.  No locking, no allocation, no kernel state, so
 * the same text compiles in the kernel (the PEBS sink drain in
 * arch/x86/events/intel/ds.c, where the memtrace kernel patch installs it)
 * and in userspace unit tests (tests/pebs/test_pebs_extract.c) that feed it
 * known bytes.
 *
 * Layouts (Intel SDM vol. 3B, "Processor Event Based Sampling", and the
 * kernel's struct pebs_record_nhm/hsw/skl, pebs_basic, pebs_meminfo):
 *
 *   fixed records, PEBS_FMT 1..3, offsets in bytes:
 *     0 flags   8 ip   16..143 ax,bx,cx,dx,si,di,bp,sp,r8..r15
 *     144 status   152 dla   160 dse   168 lat          (fmt1, 176 bytes)
 *     176 real_ip  184 tsx_tuning                        (fmt2, 192 bytes)
 *     192 tsc                                            (fmt3, 200 bytes)
 *
 *   adaptive records, PEBS_FMT 4..6 with PEBS baseline:
 *     basic group:   0 format_group:32 | retire_latency:16 | format_size:16
 *                    8 ip (eventing IP)   16 applicable_counters   24 tsc
 *     meminfo group (present when format_group bit 0 is set), after basic:
 *                    0 address   8 aux (data source)   16 latency
 *                    24 tsx_tuning
 *     then GP, XMM and LBR groups, which are not needed here.
 *
 * The data-source bits are handed on raw (aux): turning them into perf's
 * union perf_mem_data_src needs the event's kind (load latency, precise
 * store, ...) and the model's table, which the kernel keeps in ds.c; the
 * kernel side calls its own get_data_src() on them.
 */
#ifndef _MEMTRACE_PEBS_EXTRACT_H
#define _MEMTRACE_PEBS_EXTRACT_H

#include <linux/types.h>

/* Byte offsets in a fixed-layout record (PEBS_FMT 1..3). */
#define PEBS_X_FIX_FLAGS	0
#define PEBS_X_FIX_IP		8
#define PEBS_X_FIX_STATUS	144
#define PEBS_X_FIX_DLA		152
#define PEBS_X_FIX_DSE		160
#define PEBS_X_FIX_LAT		168
#define PEBS_X_FIX_REAL_IP	176	/* fmt >= 2 */
#define PEBS_X_FIX_TSX		184	/* fmt >= 2 */
#define PEBS_X_FIX_TSC		192	/* fmt >= 3 */

#define PEBS_X_FMT1_SIZE	176
#define PEBS_X_FMT2_SIZE	192
#define PEBS_X_FMT3_SIZE	200

/* Adaptive records (PEBS_FMT >= 4 with baseline): basic group. */
#define PEBS_X_BASIC_HDR	0
#define PEBS_X_BASIC_IP		8
#define PEBS_X_BASIC_APPLICABLE	16
#define PEBS_X_BASIC_TSC	24
#define PEBS_X_BASIC_SIZE	32

/* Meminfo group, offsets from its start (right after the basic group). */
#define PEBS_X_MEM_ADDRESS	0
#define PEBS_X_MEM_AUX		8
#define PEBS_X_MEM_LATENCY	16
#define PEBS_X_MEM_TSX		24
#define PEBS_X_MEMINFO_SIZE	32

/* format_group bit of the meminfo group (PEBS_DATACFG_MEMINFO). */
#define PEBS_X_GROUP_MEMINFO	0x1u

/* struct pebs_x_layout.flags */
#define PEBS_X_LDLAT		0x1u	/* load-latency event: weight = lat */
#define PEBS_X_REAL_IP		0x2u	/* precise_ip >= 2: eventing IP */
#define PEBS_X_INSTR_LATENCY	0x4u	/* meminfo latency is split (ADL+) */

/* What the buffer holds; fixed for one drain. */
struct pebs_x_layout {
	__u8	format;		/* IA32_PERF_CAPABILITIES.PEBS_FMT */
	__u8	adaptive;	/* basic + groups (PEBS baseline) */
	__u16	flags;		/* PEBS_X_* above */
	__u32	record_size;	/* bytes per record in this buffer */
};

/* struct pebs_x_fields.have */
#define PEBS_X_HAVE_TSC		0x1u	/* tsc is the record's time stamp */

struct pebs_x_fields {
	__u64	addr;		/* data linear address */
	__u64	tsc;		/* TSC when the record was written, or 0 */
	__u64	ip;		/* instruction pointer */
	__u64	aux;		/* raw data-source bits (dse / meminfo.aux) */
	__u64	status;		/* counters the record applies to */
	__u32	weight;		/* latency in core cycles, or 0 */
	__u32	have;		/* PEBS_X_HAVE_* */
};

/* Return values of pebs_x_extract(). */
#define PEBS_X_OK		0
#define PEBS_X_EFORMAT		(-1)	/* format without a data address */
#define PEBS_X_ESHORT		(-2)	/* record larger than what is left */
#define PEBS_X_ENOADDR		(-3)	/* adaptive record without meminfo */

static inline __u64 pebs_x_u64(const void *rec, unsigned int off)
{
	__u64 v;

	__builtin_memcpy(&v, (const unsigned char *)rec + off, sizeof(v));
	return v;
}

static inline int pebs_x_extract_fixed(const void *rec, unsigned long avail,
				       const struct pebs_x_layout *l,
				       struct pebs_x_fields *f)
{
	unsigned int need;
	__u64 tsx = 0;

	switch (l->format) {
	case 1:
		need = PEBS_X_FMT1_SIZE;
		break;
	case 2:
		need = PEBS_X_FMT2_SIZE;
		break;
	case 3:
		need = PEBS_X_FMT3_SIZE;
		break;
	default:
		return PEBS_X_EFORMAT;
	}
	if (avail < need || l->record_size < need)
		return PEBS_X_ESHORT;

	f->addr = pebs_x_u64(rec, PEBS_X_FIX_DLA);
	f->aux = pebs_x_u64(rec, PEBS_X_FIX_DSE);
	f->status = pebs_x_u64(rec, PEBS_X_FIX_STATUS);
	f->ip = pebs_x_u64(rec, PEBS_X_FIX_IP);
	if (l->format >= 2) {
		tsx = pebs_x_u64(rec, PEBS_X_FIX_TSX);
		if (l->flags & PEBS_X_REAL_IP)
			f->ip = pebs_x_u64(rec, PEBS_X_FIX_REAL_IP);
	}
	/*
	 * The latency field is only written for load-latency events; for
	 * the others fmt2+ has the cycles of the last TSX block (low half of
	 * tsx_tuning), as the kernel reports it.
	 */
	if (l->flags & PEBS_X_LDLAT)
		f->weight = (__u32)pebs_x_u64(rec, PEBS_X_FIX_LAT);
	else
		f->weight = (__u32)tsx;
	if (l->format >= 3) {
		f->tsc = pebs_x_u64(rec, PEBS_X_FIX_TSC);
		f->have |= PEBS_X_HAVE_TSC;
	}
	return PEBS_X_OK;
}

static inline int pebs_x_extract_adaptive(const void *rec, unsigned long avail,
					  const struct pebs_x_layout *l,
					  struct pebs_x_fields *f)
{
	const unsigned char *mem = (const unsigned char *)rec + PEBS_X_BASIC_SIZE;
	__u64 hdr, lat;
	unsigned int size;

	if (l->format < 4)
		return PEBS_X_EFORMAT;
	if (avail < PEBS_X_BASIC_SIZE)
		return PEBS_X_ESHORT;
	hdr = pebs_x_u64(rec, PEBS_X_BASIC_HDR);
	size = (unsigned int)(hdr >> 48);
	if (size < PEBS_X_BASIC_SIZE || size > avail)
		return PEBS_X_ESHORT;

	f->ip = pebs_x_u64(rec, PEBS_X_BASIC_IP);
	f->status = pebs_x_u64(rec, PEBS_X_BASIC_APPLICABLE);
	f->tsc = pebs_x_u64(rec, PEBS_X_BASIC_TSC);
	f->have |= PEBS_X_HAVE_TSC;

	if (!(hdr & PEBS_X_GROUP_MEMINFO))
		return PEBS_X_ENOADDR;
	if (size < PEBS_X_BASIC_SIZE + PEBS_X_MEMINFO_SIZE)
		return PEBS_X_ESHORT;

	f->addr = pebs_x_u64(mem, PEBS_X_MEM_ADDRESS);
	f->aux = pebs_x_u64(mem, PEBS_X_MEM_AUX);
	lat = pebs_x_u64(mem, PEBS_X_MEM_LATENCY);
	/*
	 * Alder Lake and later split the latency word: instruction latency
	 * in bits 0..15, cache latency in bits 32..47; the kernel reports
	 * the cache latency as the weight.  Before, the low 32 bits hold the
	 * load latency.  Without a latency, the TSX block cycles.
	 */
	if (l->flags & PEBS_X_INSTR_LATENCY)
		lat = (lat >> 32) & 0xffff;
	f->weight = (__u32)lat;
	if (!f->weight)
		f->weight = (__u32)pebs_x_u64(mem, PEBS_X_MEM_TSX);
	return PEBS_X_OK;
}

/*
 * Decode the record at @rec, of which @avail bytes are valid (up to the end
 * of the drained part of the buffer), into @f.  Returns PEBS_X_OK or a
 * negative PEBS_X_E* code; @f is cleared first either way.
 */
static inline int pebs_x_extract(const void *rec, unsigned long avail,
				 const struct pebs_x_layout *l,
				 struct pebs_x_fields *f)
{
	__builtin_memset(f, 0, sizeof(*f));
	if (l->adaptive)
		return pebs_x_extract_adaptive(rec, avail, l, f);
	return pebs_x_extract_fixed(rec, avail, l, f);
}

#endif /* _MEMTRACE_PEBS_EXTRACT_H */
