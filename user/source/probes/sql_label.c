/* sql_label.c - query texts with constants as $N (sql_label.h), by a small
 * lexer that knows PostgreSQL's literal forms. */
#include "source/probes/sql_label.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

enum prev { PREV_NONE, PREV_OPERAND, PREV_OPERATOR };

struct sink {
	char *p;	/* NULL: only scan */
	size_t n, cap;
};

static void put(struct sink *o, const char *s, size_t n)
{
	if (!o->p)
		return;
	if (n > o->cap - 1 - o->n)
		n = o->cap - 1 - o->n;
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static int ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static int digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int ident_char(unsigned char c)
{
	return ident_start(c) || digit(c) || c == '$';
}

/* Words after which a minus sign is unary: an expression starts there. */
static int expr_keyword(const char *w, size_t n)
{
	static const char *const kw[] = {
		"select", "where", "and", "or", "not", "when", "then", "else", "between",
		"values", "limit", "offset", "set", "having", "case", "return", "returning",
		"in", "is", "like", "ilike", "by", "on", "from", "array",
	};

	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strlen(kw[i]) == n && !strncasecmp(kw[i], w, n))
			return 1;
	return 0;
}

/* After the quote at i: the end of a '...' literal ('' inside; \x too in an
 * E'' string), or len when it is cut. */
static size_t string_end(const char *q, size_t len, size_t i, int backslash)
{
	for (i++; i < len; i++) {
		if (backslash && q[i] == '\\') {
			i++;
			continue;
		}
		if (q[i] == '\'') {
			if (i + 1 < len && q[i + 1] == '\'') {
				i++;
				continue;
			}
			return i + 1;
		}
	}
	return len;
}

/* A $tag$ or $$ delimiter at i: its length, else 0. */
static size_t dollar_tag(const char *q, size_t len, size_t i)
{
	size_t j = i + 1;

	if (j < len && digit((unsigned char)q[j]))
		return 0;	/* $1: a parameter */
	while (j < len && (ident_start((unsigned char)q[j]) || digit((unsigned char)q[j])))
		j++;
	return j < len && q[j] == '$' ? j + 1 - i : 0;
}

/* A number starting at i (a digit, or '.' and a digit): its end. */
static size_t number_end(const char *q, size_t len, size_t i)
{
	while (i < len && digit((unsigned char)q[i]))
		i++;
	if (i < len && q[i] == '.') {
		i++;
		while (i < len && digit((unsigned char)q[i]))
			i++;
	}
	if (i < len && (q[i] == 'e' || q[i] == 'E')) {
		size_t j = i + 1;
		if (j < len && (q[j] == '+' || q[j] == '-'))
			j++;
		if (j < len && digit((unsigned char)q[j])) {
			i = j;
			while (i < len && digit((unsigned char)q[i]))
				i++;
		}
	}
	return i;
}

static int number_at(const char *q, size_t len, size_t i)
{
	return i < len && (digit((unsigned char)q[i]) ||
			   (q[i] == '.' && i + 1 < len && digit((unsigned char)q[i + 1])));
}

/* One pass: constants numbered from base + 1 into o (if any); the highest
 * $n parameter of the text into *maxparam. */
static void scan(const char *q, size_t len, struct sink *o, unsigned base, unsigned *maxparam)
{
	enum prev prev = PREV_NONE;
	unsigned k = base;
	size_t i = 0;

	while (i < len) {
		unsigned char c = (unsigned char)q[i];
		size_t end = 0;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
			put(o, q + i, 1);
			i++;
			continue;
		}
		if (c == '-' && i + 1 < len && q[i + 1] == '-') {	/* -- comment */
			const char *nl = memchr(q + i, '\n', len - i);
			end = nl ? (size_t)(nl - q) : len;
			put(o, q + i, end - i);
			i = end;
			continue;
		}
		if (c == '/' && i + 1 < len && q[i + 1] == '*') {	/* nested comments */
			int depth = 0;
			for (end = i; end < len; end++) {
				if (end + 1 < len && q[end] == '/' && q[end + 1] == '*') {
					depth++;
					end++;
				} else if (end + 1 < len && q[end] == '*' && q[end + 1] == '/') {
					end++;
					if (!--depth) {
						end++;
						break;
					}
				}
			}
			if (end > len)
				end = len;
			put(o, q + i, end - i);
			i = end;
			continue;
		}
		if (c == '\'')
			end = string_end(q, len, i, 0);
		else if ((c == 'E' || c == 'e') && i + 1 < len && q[i + 1] == '\'')
			end = string_end(q, len, i + 1, 1);
		else if ((c == 'B' || c == 'b' || c == 'X' || c == 'x' || c == 'N' || c == 'n') &&
			 i + 1 < len && q[i + 1] == '\'')
			end = string_end(q, len, i + 1, 0);
		else if ((c == 'U' || c == 'u') && i + 2 < len && q[i + 1] == '&' && q[i + 2] == '\'')
			end = string_end(q, len, i + 2, 0);
		else if (c == '$' && dollar_tag(q, len, i)) {
			size_t t = dollar_tag(q, len, i);
			const char *close = NULL;
			for (size_t j = i + t; j + t <= len; j++)
				if (!memcmp(q + j, q + i, t)) {
					close = q + j;
					break;
				}
			end = close ? (size_t)(close - q) + t : len;
		} else if (number_at(q, len, i)) {
			end = number_end(q, len, i);
		} else if (c == '-' && prev != PREV_OPERAND) {
			size_t j = i + 1;
			while (j < len && (q[j] == ' ' || q[j] == '\t' || q[j] == '\n'))
				j++;
			if (number_at(q, len, j))
				end = number_end(q, len, j);
		}
		if (end) {	/* a constant from i to end */
			char num[16];
			int n = snprintf(num, sizeof(num), "$%u", ++k);
			put(o, num, (size_t)n);
			i = end;
			prev = PREV_OPERAND;
			continue;
		}
		if (c == '$' && i + 1 < len && digit((unsigned char)q[i + 1])) {	/* $n */
			unsigned v = 0;
			for (end = i + 1; end < len && digit((unsigned char)q[end]); end++)
				v = v < 100000 ? v * 10 + (unsigned)(q[end] - '0') : v;
			if (v > *maxparam)
				*maxparam = v;
			prev = PREV_OPERAND;
		} else if (c == '"') {	/* "identifier" ("" inside) */
			for (end = i + 1; end < len; end++)
				if (q[end] == '"') {
					if (end + 1 < len && q[end + 1] == '"')
						end++;
					else
						break;
				}
			end = end < len ? end + 1 : len;
			prev = PREV_OPERAND;
		} else if (ident_start(c)) {
			for (end = i + 1; end < len && ident_char((unsigned char)q[end]); end++)
				;
			prev = expr_keyword(q + i, end - i) ? PREV_OPERATOR : PREV_OPERAND;
		} else {
			end = i + 1;
			prev = c == ')' || c == ']' ? PREV_OPERAND : PREV_OPERATOR;
		}
		put(o, q + i, end - i);
		i = end;
	}
}

size_t sql_label_normalize(const char *query, size_t len, char *out, size_t cap)
{
	struct sink none = { NULL, 0, 0 }, o = { out, 0, cap };
	unsigned maxparam = 0;

	if (!cap)
		return 0;
	scan(query, len, &none, 0, &maxparam);
	scan(query, len, &o, maxparam, &maxparam);
	while (o.n && (out[o.n - 1] == ';' || out[o.n - 1] == ' ' || out[o.n - 1] == '\n' ||
		       out[o.n - 1] == '\t' || out[o.n - 1] == '\r'))
		o.n--;
	out[o.n] = 0;
	return o.n;
}
