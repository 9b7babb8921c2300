/* words.c - what one sample of a trace means (HEADER sample_class) and the
 * words both tools show its numbers with (include/memtrace/trace.h).  The
 * one place that derives the class of a trace written before the key
 * existed, and the one place that names the target (END target_comm). */
#include "trace/words.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static const struct memtrace_words words[] = {
	[WORDS_SAMPLED_ACCESS] = {
		.sample_class = "sampled-access",
		.measure = "each sample is one sampled memory access (1 in sample_period): wss_data and "
			   "wss_code count distinct buckets sampled per window (the working set seen "
			   "through sampling), hot_* and hot_wss count samples",
		.sample = "sampled access", .samples = "sampled accesses", .count = "accesses",
		.verb = "accessed", .wss = "WSS", .code_wss = "WSS",
		.data_series = "data working set", .code_series = "code working set",
		.series_title = "Working-set size", .hot = "Hot",
		.curve = "Hot working set by access frequency", .activity = "Memory accesses",
	},
	[WORDS_EVERY_ACCESS] = {
		.sample_class = "every-access",
		.measure = "each sample is one memory access (every data access): wss_data and "
			   "wss_code count distinct buckets accessed per window (the working set), "
			   "hot_* and hot_wss count accesses",
		.sample = "access", .samples = "accesses", .count = "accesses",
		.verb = "accessed", .wss = "WSS", .code_wss = "WSS",
		.data_series = "data working set", .code_series = "code working set",
		.series_title = "Working-set size", .hot = "Hot",
		.curve = "Hot working set by access frequency", .activity = "Memory accesses",
	},
	[WORDS_FIRST_TOUCH] = {
		.sample_class = "first-touch",
		.measure = "each sample is one page fault (a first touch, a re-fault or a copy-on-write "
			   "fault), not an access; memory already resident is not seen: wss_data counts "
			   "distinct buckets first touched per window (resident-set growth), wss_code the "
			   "code buckets whose instructions faulted, hot_* and hot_wss count page faults",
		.sample = "page fault", .samples = "page faults", .count = "faults",
		.verb = "faulted", .wss = "pages first touched", .code_wss = "at page faults",
		.data_series = "data pages first touched", .code_series = "code at page faults",
		.series_title = "Pages first touched (resident-set growth)", .hot = "Most-faulted",
		.curve = "Buckets by page-fault count", .activity = "Page faults",
	},
	[WORDS_HINT_FAULT] = {
		.sample_class = "hint-fault",
		.measure = "each sample is one page fault with its kind: NUMA-balancing hint faults, "
			   "the first access to a page after a scan pass (access-bit sampling with "
			   "addresses: at most one per page per pass), first touches and copy-on-write "
			   "faults (fault_kinds splits them); wss_data counts the distinct buckets that "
			   "faulted per window, of every kind: the pages accessed only where the window "
			   "holds a scan pass (blind = 0) and hint faults dominate, never in a blind "
			   "window; hot_* and hot_wss count faults",
		.sample = "page fault", .samples = "page faults", .count = "faults",
		.verb = "faulted", .wss = "pages faulted", .code_wss = "at page faults",
		.data_series = "data pages faulted (hint faults + first touches)",
		.code_series = "code at page faults",
		.series_title = "Pages faulted (NUMA hint faults after scan passes, first touches)",
		.hot = "Most-faulted", .curve = "Buckets by page-fault count", .activity = "Page faults",
	},
	[WORDS_DAMON_REGIONS] = {
		.sample_class = "damon-regions",
		.measure = "no samples: DAMON regions (REGIONS chunks), each with the number of the "
			   "aggregation interval's checks that found one random page of it accessed; "
			   "every number is region-level: a region counts whole when any check saw it "
			   "accessed",
		.sample = "region row", .samples = "region rows", .count = "checks",
		.verb = "accessed", .wss = "region-level WSS", .code_wss = "region-level WSS",
		.data_series = "region-level working set (DAMON)", .code_series = "code (none)",
		.series_title = "Working-set size (DAMON regions, region-level)", .hot = "Hot regions",
		.curve = "Regions by access frequency", .activity = "DAMON region checks",
	},
	[WORDS_ACCESSED_BIT] = {
		.sample_class = "accessed-bit",
		.measure = "each sample is one page found accessed by one pass of the module's "
			   "accessed-bit scan (at most one per page and process per pass, every mapping "
			   "kind): wss_data with a window of at least the pass period counts the pages "
			   "accessed (the working set), hot_* and hot_wss count the passes a page was "
			   "found accessed in",
		.sample = "page found accessed", .samples = "pages found accessed", .count = "passes",
		.verb = "accessed", .wss = "WSS", .code_wss = "WSS",
		.data_series = "data working set (accessed bits)", .code_series = "code working set",
		.series_title = "Working-set size (accessed bits)", .hot = "Hot",
		.curve = "Buckets by passes found accessed", .activity = "Pages found accessed",
	},
	[WORDS_BUFFER_REQUEST] = {
		.sample_class = "buffer-request",
		.measure = "each sample is one request of a block from a database server's shared "
			   "buffer pool (PostgreSQL ReadBuffer: a hit, a miss or a new block), every "
			   "request in order; addresses are blocks laid out per data file, not memory: "
			   "wss_data counts distinct blocks requested per window, hot_* and hot_wss "
			   "count requests",
		.sample = "buffer request", .samples = "buffer requests", .count = "requests",
		.verb = "requested", .wss = "blocks requested", .code_wss = "(none: no code addresses)",
		.data_series = "blocks requested", .code_series = "code (none)",
		.series_title = "Blocks requested from the buffer pool", .hot = "Most-requested",
		.curve = "Blocks by request count", .activity = "Buffer requests",
	},
};

enum words_class words_class_of(const char *sample_class, const char *source,
				const char *sample_period)
{
	if (sample_class && *sample_class) {
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (!strcmp(sample_class, words[i].sample_class))
				return (enum words_class)i;
	}
	/* traces written before sample_class: the source says it */
	if (source && !strcmp(source, "page-faults"))
		return WORDS_FIRST_TOUCH;
	if (source && !strcmp(source, "valgrind-lackey") && sample_period &&
	    strtoull(sample_period, NULL, 10) == 1)
		return WORDS_EVERY_ACCESS;
	return WORDS_SAMPLED_ACCESS;
}

const char *words_class_name(enum words_class c)
{
	return words[c].sample_class;
}

const struct memtrace_words *words_of_text(const char *text, size_t len)
{
	char cls[64], src[64], per[32];
	const char *c = mt_kv_value(text, len, "sample_class", cls, sizeof(cls));
	const char *s = mt_kv_value(text, len, "source", src, sizeof(src));
	const char *p = mt_kv_value(text, len, "sample_period", per, sizeof(per));

	return &words[words_class_of(c, s, p)];
}

const struct memtrace_words *memtrace_words_of_meta(const char *meta)
{
	return words_of_text(meta, meta ? strlen(meta) : 0);
}

const struct memtrace_words *words_of_class(enum words_class c)
{
	return &words[c];
}

const char *memtrace_target_comm(const char *meta, const char *end_meta, char *buf, size_t len)
{
	const char *v = mt_kv_str(end_meta, "target_comm", buf, len);

	if (!v || !*v)
		v = mt_kv_str(meta, "target_comm", buf, len);
	if (!v && len)
		buf[0] = 0;
	return len ? buf : "";
}
