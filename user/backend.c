/* backend.c - the list of sample sources, in "auto" preference order. */
#include "backend.h"

#include <string.h>

/* TRANSITIONAL: weak until user/backend_module.c lands. */
extern const struct backend backend_module __attribute__((weak));

const struct backend *const backends[] = {
	&backend_perf,
	&backend_valgrind,
	&backend_module,	/* TRANSITIONAL: first once it lands */
	NULL,
};

const struct backend *backend_by_name(const char *name)
{
	for (int i = 0; backends[i]; i++)
		if (backends[i]->name && !strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}
