/* backend.c - the list of sample sources, in "auto" preference order. */
#include "source/source.h"

#include <string.h>

const struct backend *const backends[] = {
	&backend_module,
	&backend_perf,
	&backend_valgrind,
	NULL,
};

const struct backend *backend_by_name(const char *name)
{
	for (int i = 0; backends[i]; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}
