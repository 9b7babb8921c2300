/* perf_hint.c - the hint-faults source on the perf backend: the
 * exceptions:page_fault_user tracepoint's records turned into samples with
 * their fault kind (the session's NUMA balancing and kinds: hint.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/trace.h"
#include "record/recorder.h"
#include "source/perf/perf_session.h"
#include "source/target.h"
#include "util/util.h"

/* exceptions:page_fault_user's fields after the 8-byte common header */
#define TP_ADDRESS	8
#define TP_IP		16
#define TP_ERROR_CODE	24
#define TP_SIZE		32

void perf_hint_sample(struct perf_session *s, struct memtrace_sample *m, const unsigned char *raw,
		      uint32_t rawlen)
{
	uint64_t addr, ip, ec;

	if (rawlen < TP_SIZE) {
		m->addr = 0;
		return;
	}
	memcpy(&addr, raw + TP_ADDRESS, 8);
	memcpy(&ip, raw + TP_IP, 8);
	memcpy(&ec, raw + TP_ERROR_CODE, 8);
	m->addr = addr;
	m->ip = ip;
	m->data_src = hint_classify(&s->hint, (pid_t)m->pid, addr, ec);
}

