/*
 * layout.h - the address layout of one pid from all its maps snapshots:
 * non-overlapping pieces in address order, each address owned by the
 * newest snapshot that maps it.  A mapping replaced by a smaller one at the
 * same start keeps its name on the part the newer one does not cover (a
 * region that was mapped is never shown as unmapped).  Pure computation;
 * naming (NAME[bss]) is resolve.c's.
 */
#ifndef MEMTRACE_RESOLVE_LAYOUT_H
#define MEMTRACE_RESOLVE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "resolve/maps.h"

struct mt_layout_piece {
	uint64_t start, end;          /* [start, end), inside *map */
	const struct mt_maps *snap;   /* the snapshot that owns it */
	const struct mt_mapping *map; /* its mapping in snap */
};

/*
 * snaps: n snapshots in time order (newer ones later).  Returns the count
 * and a malloc'ed array in *out (NULL when 0).  Mappings of one snapshot
 * that overlap (a damaged maps text) are clipped to the earlier one.
 */
size_t mt_layout_build(const struct mt_maps *const *snaps, size_t n,
		       struct mt_layout_piece **out);

/* "rw-p" etc. for MT_PERM_* bits (static storage). */
const char *mt_perms_string(uint32_t perms);

#endif
