/* util.h - error reporting, checked allocation and number/unit parsing. */
#ifndef MEMTRACE_UTIL_UTIL_H
#define MEMTRACE_UTIL_UTIL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "memtracectl: <message>\n" on stderr.  One line per error. */
void mt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, then "memtracectl: <message>: <strerror(errno)>". */
void mt_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One-line warning: "memtracectl: warning: <message>". */
void mt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Allocation that never returns NULL.  When memory runs out it jumps to the
 * innermost recovery point armed on the calling thread (mt_oom_push), so
 * that a library entry point returns its error (ENOMEM) instead of ending
 * the process; with none armed (memtracectl's own code) it prints one line,
 * "memtracectl: out of memory (N bytes)", and exits 1.
 */
void *mt_xmalloc(size_t n);
void *mt_xcalloc(size_t n, size_t size);
void *mt_xrealloc(void *p, size_t n);
char *mt_xstrdup(const char *s);

/*
 * A recovery point for allocation failures (see above), armed by every
 * public entry point that allocates (include/memtrace/):
 *
 *	struct mt_oom_point oom;
 *	mt_oom_push(&oom);
 *	if (setjmp(oom.jb)) {		// memory ran out below
 *		mt_oom_caught(&oom, err, errlen);	// popped, errno = ENOMEM
 *		return NULL;
 *	}
 *	r = the_work(...);
 *	mt_oom_pop(&oom);
 *
 * What the interrupted call had allocated is leaked (it is not tracked);
 * no lock may be held across it.  Points nest (a public function calling
 * another); each thread has its own.
 */
struct mt_oom_point {
	jmp_buf jb;
	struct mt_oom_point *prev;
	size_t bytes;		/* the allocation that failed */
};

void mt_oom_push(struct mt_oom_point *p);
void mt_oom_pop(struct mt_oom_point *p);
/* After the jump: pops p, "out of memory (N bytes)" into err, errno = ENOMEM. */
void mt_oom_caught(struct mt_oom_point *p, char *err, size_t errlen);
/* Out of memory for n bytes: the jump, or the one-line exit. */
_Noreturn void mt_oom(size_t n);

/* The body of a public entry point around its implementation: the
 * pattern above, returning fail (err set) when memory ran out. */
#define MT_OOM_GUARDED(type, fail, err, errlen, call)			\
	do {								\
		struct mt_oom_point oom_;				\
		mt_oom_push(&oom_);					\
		if (setjmp(oom_.jb)) {					\
			mt_oom_caught(&oom_, (err), (errlen));		\
			return (fail);					\
		}							\
		type r_ = (call);					\
		mt_oom_pop(&oom_);					\
		return r_;						\
	} while (0)

/* Unsigned integer with optional k/M/G (x1000) suffix.  0 on success. */
int mt_parse_u64(const char *s, uint64_t *out);
/* Size with optional K/KiB/M/MiB/G/GiB (x1024) suffix, e.g. "4K". */
int mt_parse_size(const char *s, uint64_t *out);
/* A bucket size: mt_parse_size, a power of two from 64 to 2M.  0 on success. */
int mt_parse_bucket(const char *s, uint64_t *out);
/*
 * Duration into the trace's unit.  For ns traces: "10ms", "1.5s", "200us",
 * "500ns" or a bare number of ns.  For instruction traces: a bare count
 * with optional k/M/G suffix.  0 on success.
 */
int mt_parse_duration(const char *s, bool unit_is_ns, uint64_t *out);

/* Monotonic clock in ns (the clock of ns traces). */
uint64_t mt_now_ns(void);

/*
 * The value of key in "key=value\n" lines (text, len bytes, NUL not needed),
 * copied into buf (truncated to len - 1); the last line with that key wins,
 * as in the trace reader.  NULL when absent or text is NULL.
 */
const char *mt_kv_value(const char *text, size_t textlen, const char *key, char *buf,
			size_t len);
/* The same over NUL-terminated text (NULL: absent). */
const char *mt_kv_str(const char *text, const char *key, char *buf, size_t len);

/* Human size: "4.0 KiB", "1.5 MiB" into buf. */
const char *mt_fmt_bytes(uint64_t bytes, char *buf, size_t len);

#endif
