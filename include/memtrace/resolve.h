/*
 * memtrace/resolve.h - sampled addresses to names: the mapping a trace's
 * MAPS snapshots put there, the ELF symbol (with its size) of the file
 * mapped there, the source file:line from DWARF and the inlined frames.
 * Symbols and debug information are read with elfutils (libdwfl):
 * separate debug files are found by build-id under the debug directory,
 * PIE and shared-object load biases come from the mappings.
 *
 *   struct memtrace_resolver *r = memtrace_resolver_open("db.mtrace", NULL, NULL, err, n);
 *   struct memtrace_location loc;
 *   memtrace_resolve(r, pid, time, addr, &loc);
 *   // loc.mapping = "libsqlite3.so.0.8.6", loc.mapping_off = 0xfca05 (file offset),
 *   // loc.symbol = NULL when no symbol's [addr, addr+size) holds it
 */
#ifndef MEMTRACE_PUBLIC_RESOLVE_H
#define MEMTRACE_PUBLIC_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libmemtrace.so is built -fvisibility=hidden: what is declared here is exported. */
#pragma GCC visibility push(default)

struct memtrace_resolver;

/*
 * Reads the MAPS chunks of the trace at path.  root: directory the mapped
 * paths are looked up under (NULL = /); debug_dir: separate debug files
 * (NULL = /usr/lib/debug).
 */
struct memtrace_resolver *memtrace_resolver_open(const char *path, const char *root,
						 const char *debug_dir, char *err,
						 size_t errlen);
void memtrace_resolver_close(struct memtrace_resolver *r);

/*
 * Names from outside: the labels file at path (lines "START SIZE NAME" or
 * "MAPPING+OFFSET SIZE NAME", docs/memtracectl.md "Labels") names the
 * addresses it covers, before the trace's own LABELS chunk and the
 * mappings: locations, descriptions and the layout (a label splits its
 * mapping's range) say "NAME+0xOFF".  Call before the first lookup.  0, or
 * -1 with "PATH:LINE: reason".
 */
int memtrace_resolver_labels(struct memtrace_resolver *r, const char *path, char *err,
			     size_t errlen);

enum memtrace_resolved {
	MEMTRACE_UNMAPPED = 0,	/* no snapshot of pid maps addr */
	MEMTRACE_MAPPING = 1,	/* mapping known, no symbol */
	MEMTRACE_SYMBOL = 2,	/* mapping and symbol known */
};

struct memtrace_frame {		/* an inlined call, innermost first */
	const char *function;
	const char *file;	/* NULL if unknown */
	unsigned line;
};

struct memtrace_location {
	const char *mapping;	/* "libc.so.6", "[heap]", "[anon]", "dbquery[bss]", "?" */
	uint64_t mapping_off;	/* file offset for file mappings, else from the mapping start */
	uint64_t map_start, map_end;
	const char *path;	/* mapped file, "" if none */
	const char *symbol;	/* NULL if none */
	uint64_t symbol_off, symbol_size;
	const char *file;	/* DWARF source file, NULL if unknown */
	unsigned line;
	size_t ninlined;
	const struct memtrace_frame *inlined;
};

/*
 * addr of pid at time (time = UINT64_MAX: the newest snapshot that maps
 * addr; pid = 0: the trace's target).  Returns enum memtrace_resolved.
 * Strings stay valid until memtrace_resolver_close().
 */
int memtrace_resolve(struct memtrace_resolver *r, uint32_t pid, uint64_t time,
		     uint64_t addr, struct memtrace_location *out);
/* The one-line form: "libc.so.6+0x2f040 memcpy+0x40", "?" when unmapped. */
int memtrace_describe(struct memtrace_resolver *r, uint32_t pid, uint64_t time,
		      uint64_t addr, char *buf, size_t len);

/*
 * The address layout of pid (0: the target) as the reports name it:
 * non-overlapping ranges in address order, each address owned by the newest
 * snapshot that maps it (a later, smaller mapping at the same place wins
 * only where it lies; the rest keeps the earlier mapping's name).
 */
struct memtrace_range {
	uint64_t start, end;
	const char *name;	/* as memtrace_location.mapping */
	const char *perms;	/* "rw-p" */
	uint64_t offset;	/* file offset of start */
	const char *path;
};

long memtrace_resolver_layout(struct memtrace_resolver *r, uint32_t pid,
			      const struct memtrace_range **v);

/*
 * Address-space keys: what reports bucket by (docs/design.md, "Address
 * spaces").  Private memory is keyed per process: the target's addresses
 * are their own keys, every other process's carry a tag in bits 48..62.
 * A shared mapping (shared anonymous, memfd, SysV, MAP_SHARED file) is
 * keyed by (device, inode, offset): every process's mapping of it
 * translates to the key range of its first mapping seen (the target's if
 * it maps it).  Kernel addresses (bit 63) are their own keys.  In a
 * single-process trace every key is the address.
 *
 * memtrace_resolver_layout(r, MEMTRACE_LAYOUT_KEYS, &v) gives the layout in
 * key order: every process's ranges ("pid 1234 [heap]" for other processes
 * than the target), each shared object once.
 */
#define MEMTRACE_LAYOUT_KEYS UINT32_MAX

uint64_t memtrace_resolver_key(struct memtrace_resolver *r, uint32_t pid, uint64_t addr);
/* key[i] = the key of (pid[i], addr[i]); key may be addr (in place). */
void memtrace_resolver_keys(struct memtrace_resolver *r, size_t n, const uint32_t *pid,
			    const uint64_t *addr, uint64_t *key);
/*
 * The process and address behind key: 1 when it lies in a shared object
 * (*shared_by = the processes that map it), 0 for private memory, -1 when
 * no process has its tag.
 */
int memtrace_resolver_decode(struct memtrace_resolver *r, uint64_t key, uint32_t *pid,
			     uint64_t *addr, uint32_t *shared_by);
/* memtrace_describe() of a key: "pid 1234 [heap]+0x2000", "memfd:orders+0x3000". */
int memtrace_describe_key(struct memtrace_resolver *r, uint64_t key, char *buf, size_t len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
