/* source.c - the list of record backends, in "auto" preference order. */
#include "source/source.h"

#include <string.h>

const struct source_ops *const sources[] = {
	&source_damon,	/* -e damon; -e auto only without PMU and hint faults */
	&source_module,
	&source_bpf,
	&source_perf,
	&source_valgrind,
	NULL,
};

const struct source_ops *source_by_name(const char *name)
{
	for (int i = 0; sources[i]; i++)
		if (!strcmp(sources[i]->name, name))
			return sources[i];
	return NULL;
}
