/*
 * bufreq_layout.h - where a database block lies in a buffer-request trace
 * (-e buffer-requests).  A request names a block of a relation fork
 * (tablespace, database, relfilenode, fork, block number), not a memory
 * address: the trace gives each 1 GiB segment of a fork (131072 blocks of
 * 8 KiB, PostgreSQL's RELSEG_SIZE: one data file, "base/5/16404.1") its
 * own 1 GiB of addresses, in the order the segments are first asked for,
 * and a mapping in the server's maps named after that data file, at the
 * file offset of the block:
 *
 *   addr = 1 GiB * (1 + segment index) + (block % 131072) * 8 KiB
 *
 * so a report's 8 KiB buckets are blocks, its names the data files and
 * offsets (block = offset / 8192 + 131072 * segment number), and the
 * addresses stay below 2^48 (262,143 segments: 256 TiB of data asked for).
 */
#ifndef MEMTRACE_SOURCE_BUFREQ_BUFREQ_LAYOUT_H
#define MEMTRACE_SOURCE_BUFREQ_BUFREQ_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define BUFREQ_BLOCK		8192u
#define BUFREQ_SEG_BLOCKS	131072u		/* blocks per data file (RELSEG_SIZE) */
#define BUFREQ_SEG_SHIFT	30		/* 1 GiB of addresses per segment */
#define BUFREQ_MAX_SEGS		((1u << (48 - BUFREQ_SEG_SHIFT)) - 1)

struct bufreq_seg {
	uint32_t spc, db, rel;
	int32_t fork;
	uint32_t seg;		/* segment number in the fork: block / BUFREQ_SEG_BLOCKS */
};

struct bufreq_layout {
	struct bufreq_seg *segs;	/* by index: the order first asked for */
	size_t n, cap;
	uint32_t *hash;			/* index + 1, open addressing */
	size_t hcap;
	size_t written;			/* segments already in a maps text */
};

/* The address of a block (see above), its segment added when new; 0 when
 * BUFREQ_MAX_SEGS segments are taken. */
uint64_t bufreq_addr(struct bufreq_layout *l, uint32_t spc, uint32_t db, uint32_t rel,
		     int32_t fork, uint32_t block);

/*
 * The data file of a segment relative to the data directory, as
 * PostgreSQL names it: base/DB/REL (tablespace 1663, pg_default),
 * global/REL (1664, pg_global), pg_tblspc/SPC/VERSION/DB/REL (VERSION: the
 * PG_* directory found under datadir, else left out); "_fsm", "_vm",
 * "_init" for forks 1-3 and ".N" for segment N > 0.  datadir may be NULL.
 */
void bufreq_relpath(const struct bufreq_seg *s, const char *datadir, char *buf, size_t len);

/*
 * /proc/PID/maps lines for every segment so far ("START-END rw-s OFFSET
 * 00:00 0 DATADIR/PATH"), malloc'd, its length in *len; l->written = l->n.
 */
char *bufreq_maps_text(struct bufreq_layout *l, const char *datadir, size_t *len);

void bufreq_layout_free(struct bufreq_layout *l);

#endif
