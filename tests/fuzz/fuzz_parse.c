/*
 * fuzz_parse.c - the small text parsers of the public API and the CLI:
 * durations and sizes (memtrace_parse_duration/_size, shared by both tools),
 * HEADER "key=value" texts (memtrace_words_of_meta, memtrace_target_comm,
 * mt_kv_value).  Input: one text (NUL-terminated copy; also given with its
 * length where the function takes one).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/report.h"
#include "memtrace/trace.h"
#include "util/util.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), buf[64], comm[17];
	uint64_t v;

	memcpy(s, data, size);
	s[size] = 0;
	if (memtrace_parse_duration(s, 1, &v) == 0)
		sink += v;
	if (memtrace_parse_duration(s, 0, &v) == 0)
		sink += v;
	if (memtrace_parse_size(s, &v) == 0)
		sink += v;
	sink += strlen(memtrace_words_of_meta(s)->measure);
	sink += strlen(memtrace_target_comm(s, s, comm, sizeof(comm)));
	const char *t = mt_kv_value(s, size, "target_comm", buf, sizeof(buf));
	sink += t ? strlen(t) : 0;
	free(s);
	return 0;
}
