/* words.h - the sample classes behind memtrace_words (trace/words.c), for
 * the recorder (status line) and the sources that declare a class. */
#ifndef MEMTRACE_TRACE_WORDS_H
#define MEMTRACE_TRACE_WORDS_H

#include <stddef.h>

#include "memtrace/trace.h"

enum words_class { WORDS_SAMPLED_ACCESS, WORDS_EVERY_ACCESS, WORDS_FIRST_TOUCH, WORDS_HINT_FAULT,
		  WORDS_DAMON_REGIONS, WORDS_ACCESSED_BIT, WORDS_BUFFER_REQUEST };

/* The class a HEADER names, else the one its source and sample_period imply
 * (page-faults: first-touch; valgrind-lackey 1 in 1: every-access; else
 * sampled-access).  Any argument may be NULL. */
enum words_class words_class_of(const char *sample_class, const char *source,
				const char *sample_period);
/* "sampled-access", "every-access", "first-touch", "hint-fault": the HEADER value. */
const char *words_class_name(enum words_class c);
/* The words of class c. */
const struct memtrace_words *words_of_class(enum words_class c);
/* Words of a HEADER text of len bytes ("key=value\n" lines). */
const struct memtrace_words *words_of_text(const char *text, size_t len);

#endif
