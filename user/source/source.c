/* source.c - the list of record backends, in "auto" preference order, and
 * the look-ups by name, by event and by capability. */
#include "source/source.h"

#include <string.h>

const struct source_ops *const sources[] = {
	&source_damon,	/* -e damon; -e auto only without PMU and hint faults */
	&source_bufreq,	/* -e buffer-requests only */
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

const struct source_ops *source_by_event(const char *event)
{
	for (int i = 0; sources[i]; i++)
		if (sources[i]->caps.event && !strcmp(sources[i]->caps.event, event))
			return sources[i];
	return NULL;
}

const struct source_ops *source_owning_event(const char *event)
{
	for (int i = 0; sources[i]; i++)
		if (sources[i]->caps.own_event && !strcmp(sources[i]->caps.own_event, event))
			return sources[i];
	return NULL;
}

/* the first in "auto" order that counts per interval of time */
const struct source_ops *source_aggregating(void)
{
	for (int i = 0; sources[i]; i++)
		if (sources[i]->caps.aggregate && sources[i]->caps.clock == SOURCE_CLOCK_TIME)
			return sources[i];
	return NULL;
}
