/*
 * resolve.h - sampled address -> "mapping+offset [symbol+offset]", from
 * the /proc/PID/maps snapshots of a trace (MAPS chunks) and the ELF files
 * those mappings name, read on the analysis machine.
 *
 *   struct resolver *r = resolver_new();
 *   resolver_add_maps(r, time, pid, text, len);    // every MAPS chunk
 *   char buf[256];
 *   resolver_describe(r, pid, time, addr, buf, sizeof(buf));
 *       "[heap]+0x1a000"
 *       "libc.so.6+0x2f040 memcpy+0x40"
 *       "pageramp+0x1234 touch_pages+0x12"
 *       "pageramp[bss]+0x2000 big_table+0x2000"
 *       "?"                                         (unmapped)
 *
 * Offsets after a file mapping's name are FILE offsets (address - start +
 * the mapping's page offset, as perf prints them); after [heap], [stack],
 * [anon], NAME[bss] etc. they count from the start of that mapping.
 * NAME[bss] is an anonymous mapping right after a mapping of ELF file NAME
 * that lies in the zero-filled tail of one of its PT_LOADs (.bss beyond the
 * last file page); the symbol part names the object in it.
 *
 * Symbols and DWARF come from elfutils (symbols.h: one libdwfl module per
 * file at bias 0, the load bias computed here from the maps): .symtab, else
 * a separate debug file (build-id under resolver_set_debug_dir's directory,
 * or .gnu_debuglink / NAME.debug next to the file), else .dynsym; STT_FUNC,
 * STT_OBJECT and STT_GNU_IFUNC symbols, each naming only addresses in
 * [st_value, st_value + st_size).  resolver_lookup() also fills the DWARF
 * source file:line of addr (executable segments only) and the inlined
 * calls containing it, innermost first: frame i = the inlined function and
 * the file:line of its call site in its caller.  resolver_describe() and
 * resolver_mapping_name() never read DWARF.  No C++ demangling; no
 * debuginfod.
 * The files are read on the analysis machine at the path in the maps (under
 * resolver_set_root's directory if set).  The trace carries no build-ids, so
 * nothing proves the file is the one that was mapped: a file whose PT_LOAD
 * layout does not fit the maps gives no symbol, but a rebuilt file with the
 * same layout gives wrong names.  "(deleted)" files are never opened.
 * Not thread-safe (the ELF cache fills lazily).
 */
#ifndef MEMTRACE_RESOLVE_RESOLVE_H
#define MEMTRACE_RESOLVE_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/resolve.h"
#include "resolve/maps.h"

struct resolver;
struct mt_labels;

/* Return values of resolver_describe() / resolver_lookup(). */
enum {
	MT_RESOLVE_UNMAPPED = 0, /* no snapshot of pid maps addr: "?" */
	MT_RESOLVE_MAPPING = 1,  /* mapping known, no symbol */
	MT_RESOLVE_SYMBOL = 2,   /* mapping and symbol known */
};

struct resolved {
	const struct mt_mapping *map; /* NULL when unmapped */
	const char *region;   /* grouping name: "libc.so.6", "[heap]",
				 "[anon]", "pageramp[bss]"; "?" unmapped */
	uint64_t region_off;  /* see the comment at the top */
	const char *sym;      /* NULL when no symbol */
	uint64_t sym_off;
	uint64_t elf_vaddr;   /* address in the ELF file's own layout
				 (valid when sym is set) */
	uint64_t sym_size;    /* st_size of sym (0 when unknown) */
	const char *file;     /* DWARF source file of addr, NULL if unknown */
	unsigned line;        /* its line, 0 if unknown */
	size_t ninlined;      /* inlined frames at addr, innermost first */
	const struct memtrace_frame *inlined;
	/* resolver_key_lookup(): what the key stands for */
	uint32_t pid;         /* the process whose mapping names it */
	uint64_t addr;        /* its address there */
	const char *owner;    /* "pid 1234" unless the primary's or shared, else NULL */
	uint32_t shared_by;   /* processes mapping its shared object, 0 if private */
};

struct resolver *resolver_new(void);
void resolver_free(struct resolver *r);

/*
 * Optional: directory the ELF paths of the maps are looked up under
 * (like perf's --symfs), for traces from another machine.  NULL or "" for
 * the root.  Call before the first lookup.
 */
void resolver_set_root(struct resolver *r, const char *dir);

/*
 * Optional: directory of separate debug files looked up by build-id
 * (default /usr/lib/debug, where Debian's -dbgsym packages install them)
 * for files without .symtab.  Call before the first lookup.
 */
void resolver_set_debug_dir(struct resolver *r, const char *dir);

/* One MAPS chunk: the text of /proc/PID/maps of pid at time. */
void resolver_add_maps(struct resolver *r, uint64_t time, uint32_t pid,
		       const char *text, size_t len);

/*
 * Names from outside (labels.h): text in the --labels format, added after
 * the labels held (first = 0) or before them (first = 1); the first label
 * wins where labels overlap.  From then on
 * lookups, descriptions and layouts name labelled addresses "NAME+0xOFF";
 * a label inside a mapping splits its layout range.  START labels apply to
 * pid (resolver_set_label_pid; 0 = the pid with the most snapshots).
 * 0, or -1 with "ORIGIN:LINE: reason".
 */
int resolver_add_labels(struct resolver *r, const char *text, size_t len, const char *origin,
			int first, char *err, size_t errlen);
void resolver_set_label_pid(struct resolver *r, uint32_t pid);

/*
 * Process names (mt_maps_history_set_comm): pid's main executable is named
 * "COMM (FILE)" where its comm is not the file's name (a symlinked binary:
 * "redis-server (redis-check-rdb)").  resolver_add_threads takes the
 * records of a THREADS chunk (a thread whose tid is its pid names its
 * process; later records win); resolver_set_comm one name, e.g. the
 * target's from END or HEADER target_comm, given after the THREADS.
 */
void resolver_set_comm(struct resolver *r, uint32_t pid, const char *comm);
void resolver_add_threads(struct resolver *r, const unsigned char *p, size_t len);
/* The labels' text as added (NULL, 0 when none). */
const char *resolver_labels_text(const struct resolver *r, size_t *len);
/* The labels as added, parsed (labels.h): their names for a --region. */
const struct mt_labels *resolver_labels(const struct resolver *r);

/*
 * Describe addr of pid at time: the latest snapshot at or before time; if
 * addr is unmapped there, the first later snapshot that maps it, else the
 * newest earlier one (mt_maps_history_find); time = UINT64_MAX thus means
 * "the newest snapshot that maps addr".
 * Writes a NUL-terminated string (truncated to len) to buf.  Returns
 * MT_RESOLVE_*.  Strings returned through struct resolved stay valid until
 * resolver_free().
 */
int resolver_describe(struct resolver *r, uint32_t pid, uint64_t time,
		      uint64_t addr, char *buf, size_t len);
int resolver_lookup(struct resolver *r, uint32_t pid, uint64_t time,
		    uint64_t addr, struct resolved *out);

/* Region name only (no symbol lookup unless needed for NAME[bss]). */
const char *resolver_mapping_name(struct resolver *r, uint32_t pid,
				  uint64_t time, uint64_t addr);

/*
 * The address layout of pid as reports name it (memtrace_resolver_layout in
 * include/memtrace/resolve.h): non-overlapping ranges in address order, each
 * address owned by the newest snapshot that maps it.  pid 0: the pid with
 * the most snapshots (the lowest of equals), which is the traced process
 * for memtracectl traces; memtrace_resolver_layout() maps 0 to the HEADER's
 * target_pid first.  *v stays valid until resolver_free() or the next
 * resolver_add_maps().  Returns the count.
 */
size_t resolver_layout(struct resolver *r, uint32_t pid, const struct memtrace_range **v);

/*
 * Address-space keys (spaces.h).  resolver_spaces() builds the key table
 * for primary (0: the pid with the most snapshots) from the maps added so
 * far; the table lives until resolver_free() or the next resolver_add_maps()
 * or resolver_spaces() with another primary.  The functions below use the
 * table built last (one for pid 0 if none was).
 */
struct mt_spaces *resolver_spaces(struct resolver *r, uint32_t primary);
/* The layout in key order: every process's ranges, each shared object once. */
size_t resolver_key_layout(struct resolver *r, const struct memtrace_range **v);
/* resolver_lookup() of the (pid, address) behind key, at the newest snapshot. */
int resolver_key_lookup(struct resolver *r, uint64_t key, struct resolved *out);
/* The same without file, line and inlined frames (no DWARF read): for
 * callers that use the symbol and mapping only. */
int resolver_key_symbol(struct resolver *r, uint64_t key, struct resolved *out);
/* "pid 1234 [heap]+0x2000", "libc.so.6+0x2f040 memcpy+0x40", "?" */
int resolver_key_describe(struct resolver *r, uint64_t key, char *buf, size_t len);

/* For spaces.c: the maps, and the layout with the mapping of each range. */
const struct mt_maps_history *resolver_maps(const struct resolver *r);
size_t resolver_layout_maps(struct resolver *r, uint32_t pid, const struct memtrace_range **v,
			    const struct mt_mapping *const **maps);

#endif
