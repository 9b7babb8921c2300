/* mark.h - the record mark.bpf.c hands the collector (user/source/probes/mark.c)
 * for each start or end probe of --mark. */
#ifndef MEMTRACE_SOURCE_PROBES_MARK_H
#define MEMTRACE_SOURCE_PROBES_MARK_H

#define MT_MARK_LABEL_MAX	232	/* bytes of a string label kept (with its NUL) */

enum { MT_MARK_START = 1, MT_MARK_END = 2 };
/* SQL: read as STR, constants replaced by $n in the collector (sql_label.h) */
enum { MT_MARK_LABEL_STR = 0, MT_MARK_LABEL_INT = 1, MT_MARK_LABEL_NONE = 2, MT_MARK_LABEL_SQL = 3 };

struct mt_mark_rec {
	__u64 time;		/* bpf_ktime_get_ns: CLOCK_MONOTONIC */
	__u32 pid, tid;
	__u32 kind;		/* MT_MARK_START / _END */
	__s32 len;		/* string label: bytes without the NUL; -1: not readable */
	__s64 value;		/* the argument (integer labels) */
	char label[MT_MARK_LABEL_MAX];
};

#endif
