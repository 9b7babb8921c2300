/* util.h - error reporting, checked allocation and number/unit parsing. */
#ifndef MEMTRACE_UTIL_H
#define MEMTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "memtracectl: <message>\n" on stderr.  One line per error. */
void mt_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, then "memtracectl: <message>: <strerror(errno)>". */
void mt_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One-line warning: "memtracectl: warning: <message>". */
void mt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that exits with a one-line error when memory runs out. */
void *mt_xmalloc(size_t n);
void *mt_xcalloc(size_t n, size_t size);
void *mt_xrealloc(void *p, size_t n);
char *mt_xstrdup(const char *s);

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
