/* util.c - error reporting, checked allocation and number/unit parsing. */
#include "util/util.h"
#include "memtrace/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void vreport(const char *prefix, const char *fmt, va_list ap, int err)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err)
		fprintf(stderr, "memtracectl: %s%s: %s\n", prefix, msg, strerror(err));
	else
		fprintf(stderr, "memtracectl: %s%s\n", prefix, msg);
}

void mt_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
}

void mt_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, err);
	va_end(ap);
}

void mt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

static _Thread_local struct mt_oom_point *oom_top;

void mt_oom_push(struct mt_oom_point *p)
{
	p->prev = oom_top;
	p->bytes = 0;
	oom_top = p;
}

void mt_oom_pop(struct mt_oom_point *p)
{
	oom_top = p->prev;
}

void mt_oom_caught(struct mt_oom_point *p, char *err, size_t errlen)
{
	oom_top = p->prev;
	if (err && errlen)
		snprintf(err, errlen, "out of memory (%zu bytes)", p->bytes);
	errno = ENOMEM;
}

_Noreturn void mt_oom(size_t n)
{
	struct mt_oom_point *p = oom_top;

	if (p) {
		p->bytes = n;
		longjmp(p->jb, 1);
	}
	fprintf(stderr, "memtracectl: out of memory (%zu bytes)\n", n);
	exit(1);
}

static void *oom(size_t n)
{
	mt_oom(n);
}

void *mt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	return p ? p : oom(n);
}

void *mt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	return p ? p : oom(n * size);
}

void *mt_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	return q ? q : oom(n);
}

char *mt_xstrdup(const char *s)
{
	char *p = strdup(s);

	return p ? p : oom(strlen(s));
}

/* Parses a non-negative decimal with optional fraction; rest in *end. */
static int parse_number(const char *s, double *out, const char **end)
{
	char *e;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	double v = strtod(s, &e);
	if (errno || e == s || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	*end = e;
	return 0;
}

static int scale(double v, double mult, uint64_t *out)
{
	double r = v * mult;

	if (r >= 18446744073709551615.0)
		return -1;
	*out = (uint64_t)(r + 0.5);
	return 0;
}

int mt_parse_u64(const char *s, uint64_t *out)
{
	const char *e;
	double v;

	if (parse_number(s, &v, &e))
		return -1;
	/* (uint64_t)v is undefined from 2^64 up: such numbers fail below */
	if (!*e && v < 18446744073709551616.0 && v == (double)(uint64_t)v) {
		/* exact path for plain integers */
		char *ie;
		errno = 0;
		unsigned long long x = strtoull(s, &ie, 10);
		if (errno || *ie)
			return -1;
		*out = x;
		return 0;
	}
	double mult;
	if (!strcmp(e, "k") || !strcmp(e, "K"))
		mult = 1e3;
	else if (!strcmp(e, "M"))
		mult = 1e6;
	else if (!strcmp(e, "G"))
		mult = 1e9;
	else if (!*e)
		return -1; /* fractional plain number */
	else
		return -1;
	return scale(v, mult, out);
}

int mt_parse_size(const char *s, uint64_t *out)
{
	const char *e;
	double v;
	double mult;

	if (parse_number(s, &v, &e))
		return -1;
	if (!*e || !strcasecmp(e, "b"))
		mult = 1;
	else if (!strcasecmp(e, "k") || !strcasecmp(e, "kib") || !strcasecmp(e, "kb"))
		mult = 1024.0;
	else if (!strcasecmp(e, "m") || !strcasecmp(e, "mib") || !strcasecmp(e, "mb"))
		mult = 1024.0 * 1024;
	else if (!strcasecmp(e, "g") || !strcasecmp(e, "gib") || !strcasecmp(e, "gb"))
		mult = 1024.0 * 1024 * 1024;
	else
		return -1;
	return scale(v, mult, out);
}

int mt_parse_bucket(const char *s, uint64_t *out)
{
	uint64_t v;

	if (mt_parse_size(s, &v) || v < 64 || v > (2u << 20) || (v & (v - 1)))
		return -1;
	*out = v;
	return 0;
}

int mt_parse_duration(const char *s, bool unit_is_ns, uint64_t *out)
{
	const char *e;
	double v;

	if (!unit_is_ns)
		return mt_parse_u64(s, out);
	if (parse_number(s, &v, &e))
		return -1;
	double mult;
	if (!*e || !strcmp(e, "ns"))
		mult = 1;
	else if (!strcmp(e, "us"))
		mult = 1e3;
	else if (!strcmp(e, "ms"))
		mult = 1e6;
	else if (!strcmp(e, "s"))
		mult = 1e9;
	else if (!strcmp(e, "min"))
		mult = 60e9;
	else
		return -1;
	return scale(v, mult, out);
}

uint64_t mt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *mt_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

/* The public forms (include/memtrace/report.h). */
int memtrace_parse_duration(const char *s, int time_is_ns, uint64_t *out)
{
	return s && out && !mt_parse_duration(s, time_is_ns != 0, out) ? 0 : -1;
}

int memtrace_parse_size(const char *s, uint64_t *out)
{
	return s && out && !mt_parse_size(s, out) ? 0 : -1;
}

const char *mt_kv_value(const char *text, size_t textlen, const char *key, char *buf,
			size_t len)
{
	size_t klen = strlen(key);
	const char *p = text, *end = text ? text + textlen : NULL, *found = NULL;

	while (p && p < end) {
		if ((size_t)(end - p) > klen && !memcmp(p, key, klen) && p[klen] == '=')
			found = p + klen + 1;
		p = memchr(p, '\n', (size_t)(end - p));
		if (p)
			p++;
	}
	if (!found || !len)
		return NULL;
	const char *nl = memchr(found, '\n', (size_t)(end - found));
	size_t n = nl ? (size_t)(nl - found) : (size_t)(end - found);
	if (n >= len)
		n = len - 1;
	memcpy(buf, found, n);
	buf[n] = 0;
	return buf;
}

const char *mt_kv_str(const char *text, const char *key, char *buf, size_t len)
{
	return mt_kv_value(text, text ? strlen(text) : 0, key, buf, len);
}
