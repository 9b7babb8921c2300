/* lackey.c - streaming parser and sampler for valgrind lackey output. */
#include "source/valgrind/lackey.h"

#include <string.h>

#include "util/util.h"

/* ---- sampler ---------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t lackey_sampler_next_gap(struct lackey_sampler *s)
{
	if (!s->random || s->period < 2)
		return s->period;
	uint64_t lo = s->period - s->period / 2;
	uint64_t span = 2 * (s->period / 2) + 1;	/* hi - lo + 1 */
	unsigned __int128 m = (unsigned __int128)splitmix64(&s->rng) * span;

	return lo + (uint64_t)(m >> 64);
}

void lackey_sampler_init(struct lackey_sampler *s, uint64_t period,
			 bool random, uint64_t seed)
{
	s->period = period ? period : 1;
	s->random = random;
	s->rng = seed;
	s->left = lackey_sampler_next_gap(s);
}

/* ---- line scanner ----------------------------------------------------- */

enum line_kind { K_BAD, K_INSN, K_LOAD, K_STORE, K_MODIFY, K_MSG };

#define H(c, v) [c] = (v) + 1
/* hex digit value + 1; 0 for every other byte (so '\n' stops a scan). */
static const unsigned char hexv[256] = {
	H('0', 0), H('1', 1), H('2', 2), H('3', 3), H('4', 4),
	H('5', 5), H('6', 6), H('7', 7), H('8', 8), H('9', 9),
	H('a', 10), H('b', 11), H('c', 12), H('d', 13), H('e', 14), H('f', 15),
	H('A', 10), H('B', 11), H('C', 12), H('D', 13), H('E', 14), H('F', 15),
};
#undef H

/*
 * Scans "HEX,DEC\n" at s.  On success stores the address, returns the byte
 * after the newline.  NULL if malformed.  The caller guarantees a '\n'
 * ahead, which stops every loop.
 */
static inline const char *scan_addr(const char *s, uint64_t *addr)
{
	const unsigned char *u = (const unsigned char *)s, *start = u;
	uint64_t v = 0;
	unsigned d;

	while ((d = hexv[*u]) != 0) {
		v = (v << 4) | (d - 1);
		u++;
	}
	if (u == start || u - start > 16 || *u != ',')
		return NULL;
	start = ++u;
	while (*u >= '0' && *u <= '9')
		u++;
	if (u == start || u - start > 20 || *u != '\n')
		return NULL;
	*addr = v;
	return (const char *)u + 1;
}

/* "==123==", "--123--" or "**123**" at s: the pid, or -1. */
static long message_pid(const char *s)
{
	char c = s[0];
	long pid = 0;
	int n = 0;

	if ((c != '=' && c != '-' && c != '*') || s[1] != c)
		return -1;
	s += 2;
	while (*s >= '0' && *s <= '9' && n < 10) {
		pid = pid * 10 + (*s++ - '0');
		n++;
	}
	if (n == 0 || s[0] != c || s[1] != c)
		return -1;
	return pid;
}

/*
 * Classifies the line at s (which has a '\n' somewhere ahead); *next is set
 * to the byte after its newline.
 */
static inline enum line_kind scan_line(const char *s, const char *end,
				       const char **next, uint64_t *addr)
{
	const char *n = NULL;
	enum line_kind k = K_BAD;

	if (s[0] == 'I') {
		if (s[1] == ' ' && s[2] == ' ') {
			n = scan_addr(s + 3, addr);
			k = K_INSN;
		}
	} else if (s[0] == ' ') {
		switch (s[1]) {	/* s[2] is inside the line once s[1] is a letter */
		case 'L': k = K_LOAD; break;
		case 'S': k = K_STORE; break;
		case 'M': k = K_MODIFY; break;
		default: break;
		}
		if (k != K_BAD) {
			if (s[2] == ' ')
				n = scan_addr(s + 3, addr);
			else
				k = K_BAD;
		}
	} else if (s[0] == '\n') {
		*next = s + 1;
		return K_MSG;
	} else if (message_pid(s) >= 0) {
		k = K_MSG;
	}
	if (n) {
		*next = n;
		return k;
	}
	*next = (const char *)memchr(s, '\n', (size_t)(end - s)) + 1;
	return k == K_MSG ? K_MSG : K_BAD;
}

/* ---- parser ----------------------------------------------------------- */

void lackey_init(struct lackey_parser *p, uint64_t period, bool random,
		 uint64_t seed, lackey_emit_fn emit, void *ctx)
{
	memset(p, 0, offsetof(struct lackey_parser, batch));
	lackey_sampler_init(&p->sampler, period, random, seed);
	p->emit = emit;
	p->ctx = ctx;
}

static int flush(struct lackey_parser *p)
{
	size_t n = p->nbatch;

	p->nbatch = 0;
	if (n && p->emit && p->emit(p->ctx, p->batch, n) < 0)
		return -1;
	return 0;
}

static void note_message(struct lackey_parser *p, const char *s,
			 const char *next)
{
	long pid = message_pid(s);

	if (pid < 0 || s[0] != '=')
		return;
	if (!p->log_pid)
		p->log_pid = (uint32_t)pid;
	else if ((uint32_t)pid != p->log_pid && !p->other_pid)
		p->other_pid = (uint32_t)pid;
	if (p->command[0])
		return;
	const char *c = memchr(s + 2, '=', (size_t)(next - s - 2));

	if (!c)
		return;
	c += 2;		/* past "==" */
	static const char key[] = " Command: ";
	if ((size_t)(next - c) > sizeof(key) && !memcmp(c, key, sizeof(key) - 1)) {
		c += sizeof(key) - 1;
		size_t len = (size_t)(next - 1 - c);

		if (len >= sizeof(p->command))
			len = sizeof(p->command) - 1;
		memcpy(p->command, c, len);
		p->command[len] = 0;
	}
}

static void note_bad(struct lackey_parser *p, const char *s, const char *next)
{
	p->bad_lines++;
	if (p->first_bad_line)
		return;
	p->first_bad_line = p->lines;
	size_t len = (size_t)(next - 1 - s), i;

	if (len >= sizeof(p->first_bad))
		len = sizeof(p->first_bad) - 1;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		p->first_bad[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	p->first_bad[len] = 0;
}

/* Parses [s, end) where end[-1] == '\n'. */
static int parse_lines(struct lackey_parser *p, const char *s, const char *end)
{
	uint64_t insns = p->insns, ip = p->ip, addr = 0;
	uint32_t pid = p->pid ? p->pid : p->log_pid;
	int rc = 0;

	while (s < end) {
		const char *next;
		enum line_kind k = scan_line(s, end, &next, &addr);
		uint64_t src;

		p->lines++;
		switch (k) {
		case K_INSN:
			insns++;
			ip = addr;
			s = next;
			continue;
		case K_LOAD:
			p->loads++;
			src = LACKEY_OP_LOAD;
			break;
		case K_STORE:
			p->stores++;
			src = LACKEY_OP_STORE;
			break;
		case K_MODIFY:
			p->modifies++;
			src = LACKEY_OP_LOAD | LACKEY_OP_STORE;
			break;
		case K_MSG:
			p->messages++;
			note_message(p, s, next);
			if (!pid)
				pid = p->pid ? p->pid : p->log_pid;
			s = next;
			continue;
		default:
			note_bad(p, s, next);
			s = next;
			continue;
		}
		s = next;
		if (!p->accesses++)
			p->first_addr = addr;
		if (!lackey_sampler_take(&p->sampler)) {
			p->alias_other |= ip != p->alias_ip;
			continue;
		}
		if (ip == p->alias_ip && p->alias_other) {
			if (++p->alias_run == LACKEY_ALIAS_RUN && !p->sampler.random && !p->aliased)
				p->aliased = ip;
		} else if (ip != p->alias_ip) {
			p->alias_ip = ip;
			p->alias_run = 0;
		}
		p->alias_other = false;
		struct memtrace_sample *o = &p->batch[p->nbatch++];

		o->time = insns;
		o->addr = addr;
		o->ip = ip;
		o->pid = pid;
		o->tid = pid;
		o->cpu = 0;
		o->weight = 0;
		o->data_src = src;
		p->samples++;
		if (p->nbatch == LACKEY_BATCH && flush(p) < 0) {
			rc = -1;
			break;
		}
	}
	p->insns = insns;
	p->ip = ip;
	return rc;
}

static void carry_append(struct lackey_parser *p, const char *s, size_t n)
{
	size_t room = LACKEY_MAX_LINE - p->carry_len;

	p->carry_total += n;
	if (n > room) {
		n = room;
		p->carry_overlong = true;
	}
	memcpy(p->carry + p->carry_len, s, n);
	p->carry_len += n;
}

int lackey_feed(struct lackey_parser *p, const char *buf, size_t len)
{
	if (p->carry_len || p->carry_overlong) {
		const char *nl = memchr(buf, '\n', len);

		if (!nl) {
			carry_append(p, buf, len);
			return 0;
		}
		carry_append(p, buf, (size_t)(nl - buf));
		/*
		 * An over-long line is judged by its first LACKEY_MAX_LINE
		 * bytes: longer than any trace line, so malformed unless it
		 * is a valgrind message.
		 */
		size_t clen = p->carry_len;

		p->carry[clen] = '\n';
		p->carry_len = 0;
		p->carry_total = 0;
		p->carry_overlong = false;
		if (parse_lines(p, p->carry, p->carry + clen + 1) < 0)
			return -1;
		len -= (size_t)(nl + 1 - buf);
		buf = nl + 1;
	}
	const char *last = len ? memrchr(buf, '\n', len) : NULL;

	if (last) {
		if (parse_lines(p, buf, last + 1) < 0)
			return -1;
		len -= (size_t)(last + 1 - buf);
		buf = last + 1;
	}
	if (len)
		carry_append(p, buf, len);
	return flush(p);
}

uint64_t lackey_finish(struct lackey_parser *p)
{
	uint64_t n = p->carry_total;

	p->carry_len = 0;
	p->carry_total = 0;
	p->carry_overlong = false;
	flush(p);
	return n;
}

bool lackey_looks_valid(const char *buf, size_t len)
{
	if (len > 65536)
		len = 65536;
	const char *last = len ? memrchr(buf, '\n', len) : NULL;
	uint64_t good = 0, bad = 0, addr;

	if (!last)
		return false;
	for (const char *s = buf; s <= last;) {
		const char *next;

		if (scan_line(s, last + 1, &next, &addr) == K_BAD)
			bad++;
		else if (*s != '\n')
			good++;
		s = next;
	}
	return good > 0 && bad <= good;
}

void lackey_warn_aliasing(const struct lackey_parser *p, const char *who)
{
	if (!p->aliased)
		return;
	mt_warn("%sthe fixed period %llu kept %u samples in a row at instruction 0x%llx while "
		"others accessed memory in between: a short loop aliases with the period and the "
		"trace sees only part of it; use a random period (the default, --random-period)",
		who, (unsigned long long)p->sampler.period, LACKEY_ALIAS_RUN,
		(unsigned long long)p->aliased);
}
