/*
 * labels.h - named regions from outside (--labels FILE): a system with its
 * own allocator (PostgreSQL's shared memory, a buffer pool) says which of
 * its address ranges hold what, and reports, regions and heatmaps use those
 * names instead of the mapping's.  One label a line:
 *
 *   START SIZE NAME              0x7f0000001000 65536 hash table
 *   MAPPING+OFFSET SIZE NAME     /dev/zero (deleted)+0x1b3000 134217728 Buffer Blocks
 *
 * Numbers are decimal or 0x hex.  START is an address of the trace's target
 * process.  MAPPING is a mapping's path as /proc/PID/maps shows it (with or
 * without " (deleted)") or memtrace's name for it ("[heap]", "zero",
 * "libc.so.6"); OFFSET is what memtrace prints after that name: the file
 * offset for file mappings (shared memory included), the offset from the
 * mapping's start for [heap], [anon] and the like.  NAME is the rest of the
 * line (spaces allowed).  Empty lines and lines starting with '#' are
 * skipped.  Where labels overlap, the first one wins.
 */
#ifndef MEMTRACE_RESOLVE_LABELS_H
#define MEMTRACE_RESOLVE_LABELS_H

#include <stddef.h>
#include <stdint.h>

#define MT_LABEL_NAME_MAX	200
#define MT_LABELS_MAX		100000

struct mt_label {
	const char *mapping;	/* NULL: start is an address of the target */
	uint64_t start;		/* address, or offset in the mapping */
	uint64_t size;
	const char *name;
};

struct mt_labels {
	size_t n;
	struct mt_label *v;
	char *text;		/* the validated texts, as a LABELS chunk holds them */
	size_t len;
};

/*
 * Parses len bytes of text into *out (appending to what it holds).  origin
 * names the text in errors ("labels.txt").  0, or -1 with
 * "ORIGIN:LINE: reason" in err and *out unchanged.
 */
int mt_labels_parse(struct mt_labels *out, const char *text, size_t len, const char *origin,
		    char *err, size_t errlen);
/* Reads and parses the file at path. */
int mt_labels_load(struct mt_labels *out, const char *path, char *err, size_t errlen);
void mt_labels_free(struct mt_labels *l);

struct mt_mapping;
/*
 * The label that names addr of mapping m in a process (target: it is the
 * trace's target, which START labels apply to), or NULL; *off receives the
 * offset of addr in the label.  The first matching label wins.
 */
const struct mt_label *mt_labels_find(const struct mt_labels *l, const struct mt_mapping *m,
				      int target, uint64_t addr, uint64_t *off);
/*
 * [*lo, *hi): the part of [m_lo, m_hi) (a piece of mapping m) that label l
 * covers; 1 when it covers any, else 0.
 */
int mt_label_span(const struct mt_label *l, const struct mt_mapping *m, int target,
		  uint64_t m_lo, uint64_t m_hi, uint64_t *lo, uint64_t *hi);

#endif
