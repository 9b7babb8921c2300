/* damon_status.c - the damon source as this machine offers it, for
 * `memtracectl status`; reads sysfs, kallsyms and tracefs, changes nothing. */
#include "source/damon/damon_status.h"

#include "source/damon/damon_sysfs.h"

void damon_status(FILE *out)
{
	char why[512];

	damon_check_stale(out, false);
	if (damon_vaddr_usable(why, sizeof(why)))
		fprintf(out, "  damon: unavailable - %s\n", why);
	else
		fprintf(out, "  damon: available (-e damon: a vaddr kdamond per recording through %s, "
			"regions and their access frequency from the %s tracepoint; region-level)\n",
			DAMON_ADMIN, DAMON_TRACEPOINT);
}
