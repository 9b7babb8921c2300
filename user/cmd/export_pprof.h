/* export_pprof.h - a profile (engine/profile.h) as a gzipped pprof
 * profile.proto message (user/cmd/profile.proto), for `go tool pprof`,
 * Pyroscope and the other readers of that format. */
#ifndef MEMTRACE_CMD_EXPORT_PPROF_H
#define MEMTRACE_CMD_EXPORT_PPROF_H

#include <stddef.h>

#include "engine/profile.h"

/* What a sample's stack (its one location) names. */
enum export_by {
	EXPORT_BY_CODE,		/* the instruction: function, file:line, inlined frames */
	EXPORT_BY_DATA,		/* the data: object (symbol) under its region */
	EXPORT_BY_SITE,		/* the allocation site of the block */
	EXPORT_BY_SPAN,		/* the span's label */
};

/*
 * Writes p to fd (gzip-compressed; fd is closed).  0, or -1 with a
 * one-line reason in err.
 */
int export_pprof(const struct profile *p, enum export_by by, int fd, char *err, size_t errlen);

#endif
