/*
 * maps.h - /proc/PID/maps snapshots: parse, look up an address, and keep
 * several snapshots per pid over time (the MAPS chunks of a trace).
 */
#ifndef MEMTRACE_RESOLVE_MAPS_H
#define MEMTRACE_RESOLVE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Permission bits of a mapping ("rwxp" / "rwxs" column). */
#define MT_PERM_R 1u
#define MT_PERM_W 2u
#define MT_PERM_X 4u
#define MT_PERM_SHARED 8u /* 's' instead of 'p' */

enum mt_map_kind {
	MT_MAP_ANON,    /* no pathname */
	MT_MAP_FILE,    /* pathname starting with '/' */
	MT_MAP_SPECIAL, /* anything else: [heap], [stack], [vdso], [anon:x] */
};

/* One line of /proc/PID/maps.  Covers [start, end). */
struct mt_mapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;  /* file offset of start (page offset column) */
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t perms;   /* MT_PERM_* */
	enum mt_map_kind kind;
	bool deleted;     /* pathname had the " (deleted)" suffix (removed) */
	const char *path; /* pathname column without " (deleted)"; "" if none */
	const char *name; /* display name: basename for files, path for
			     specials, "[anon]" for anonymous; the main
			     executable's "COMM (FILE)" where the process's
			     name differs (mt_maps_history_set_comm) */
	const char *file; /* the name from the maps alone (basename for files) */
};

/* One parsed snapshot, mappings sorted by start. */
struct mt_maps {
	uint64_t time;
	uint32_t pid;
	size_t n;
	struct mt_mapping *v;
	size_t bad_lines; /* lines that did not parse (skipped) */
	char *strings;    /* storage for path/name */
	char *exe_name;   /* "COMM (FILE)" of the main executable, or NULL */
};

/*
 * Parse the text of /proc/PID/maps (len bytes, need not be NUL-terminated,
 * last line need not end in '\n').  Lines that do not parse are skipped and
 * counted in bad_lines.  Never fails; free with mt_maps_destroy().
 */
void mt_maps_parse(struct mt_maps *m, const char *text, size_t len);
void mt_maps_destroy(struct mt_maps *m);

/* Mapping containing addr (start inclusive, end exclusive), or NULL. */
const struct mt_mapping *mt_maps_find(const struct mt_maps *m, uint64_t addr);

/* All snapshots of all pids of a trace. */
struct mt_maps_history;

struct mt_maps_history *mt_maps_history_new(void);
void mt_maps_history_free(struct mt_maps_history *h);
/* Add a snapshot (any order of time and pid).  Returns the parsed one. */
const struct mt_maps *mt_maps_history_add(struct mt_maps_history *h,
					  uint64_t time, uint32_t pid,
					  const char *text, size_t len);
/*
 * Latest snapshot of pid taken at or before time; if every snapshot of pid
 * is later than time, the earliest one.  NULL if pid has none.
 */
const struct mt_maps *mt_maps_history_at(const struct mt_maps_history *h,
					 uint32_t pid, uint64_t time);
/*
 * Mapping of addr in pid at time: looked up in mt_maps_history_at(); if addr
 * is unmapped there, in the later snapshots in time order (the region was
 * mapped after the snapshot before the sample was taken), then in the
 * earlier ones, newest first (the region was unmapped again; this also makes
 * time = UINT64_MAX mean "the newest snapshot that maps addr").  *snap, if
 * not NULL, receives the snapshot the mapping was found in.  NULL if no
 * snapshot of pid maps addr.
 */
const struct mt_mapping *mt_maps_history_find(const struct mt_maps_history *h,
					      uint32_t pid, uint64_t time,
					      uint64_t addr,
					      const struct mt_maps **snap);
/* Number of snapshots held for pid (0 if none). */
size_t mt_maps_history_count(const struct mt_maps_history *h, uint32_t pid);
/*
 * The snapshots of pid in time order (equal times in the order added);
 * *v stays valid until the next mt_maps_history_add().  Returns the count.
 */
size_t mt_maps_history_snapshots(const struct mt_maps_history *h, uint32_t pid,
				 const struct mt_maps *const **v);
/* The pids with snapshots, ascending: how many, and the i-th. */
size_t mt_maps_history_npids(const struct mt_maps_history *h);
uint32_t mt_maps_history_pid(const struct mt_maps_history *h, size_t i);
/* The pid with the most snapshots (the lowest of equals); 0 if none. */
uint32_t mt_maps_history_main_pid(const struct mt_maps_history *h);

/*
 * The process name of pid (its comm, as THREADS, HEADER and END records
 * give it; the last call wins): its main executable (the file of the
 * lowest file mapping, as the kernel maps it first, that is no shared
 * library: no ".so" ending or followed by '.') is named "COMM (FILE)"
 * in every snapshot of pid, those added before and after, where COMM is
 * not FILE (nor FILE cut to the 15 bytes of a comm).  A symlinked binary
 * thus shows the name it runs under: "redis-server (redis-check-rdb)".
 * An empty comm names nothing.
 */
void mt_maps_history_set_comm(struct mt_maps_history *h, uint32_t pid, const char *comm);

#endif
