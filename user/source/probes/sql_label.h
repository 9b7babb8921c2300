/* sql_label.h - a query text with its constants replaced by $1, $2, ... (the
 * form pg_stat_statements shows), for record --mark-label sql: the spans of
 * one statement with different constants share one label. */
#ifndef MEMTRACE_SOURCE_PROBES_SQL_LABEL_H
#define MEMTRACE_SOURCE_PROBES_SQL_LABEL_H

#include <stddef.h>

/*
 * Writes QUERY (len bytes, need not end in NUL) to out (cap >= 1 bytes,
 * always NUL-terminated, cut at cap - 1) with each constant replaced by $N:
 * quoted strings ('..', E'..', B'..', X'..', N'..', U&'..'), dollar-quoted
 * strings, numbers, a minus sign directly before a number where it cannot be
 * a binary minus.  N counts from the highest $n parameter the query already
 * has, plus one.  Identifiers, keywords, "quoted identifiers", comments and
 * spacing are kept; trailing semicolons and spaces are dropped.  A text cut
 * inside a literal (a label is at most 231 bytes) ends with that literal's
 * $N.  Returns the bytes written without the NUL.
 */
size_t sql_label_normalize(const char *query, size_t len, char *out, size_t cap);

#endif
