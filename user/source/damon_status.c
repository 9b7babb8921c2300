/* damon_status.c - DAMON as this kernel offers it, read from sysfs only. */
#include "source/damon_status.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#define DAMON_KDAMONDS	"/sys/kernel/mm/damon/admin/kdamonds"

/* avail_operations of the first kdamond context found, "" when none. */
static void avail_operations(char *buf, size_t len)
{
	char path[512];
	DIR *d = opendir(DAMON_KDAMONDS);
	struct dirent *e;

	buf[0] = 0;
	if (!d)
		return;
	while (!buf[0] && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), DAMON_KDAMONDS "/%s/contexts/0/avail_operations", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
		buf[strcspn(buf, "\n")] = 0;
	}
	closedir(d);
}

void damon_status(FILE *out)
{
	char ops[128];
	DIR *d = opendir(DAMON_KDAMONDS);

	if (!d) {
		fprintf(out, "  damon: unavailable - no %s (kernel without CONFIG_DAMON_SYSFS)\n",
			DAMON_KDAMONDS);
		return;
	}
	closedir(d);
	avail_operations(ops, sizeof(ops));
	if (!ops[0])
		fprintf(out, "  damon: DAMON sysfs present, operations unknown (no kdamond context to "
			"read avail_operations from); memtrace's damon source is not built yet\n");
	else if (!strstr(ops, "vaddr"))
		fprintf(out, "  damon: unavailable - this kernel's DAMON offers '%s', not vaddr "
			"(CONFIG_DAMON_VADDR), which per-process monitoring needs; memtrace's damon "
			"source is not built yet\n", ops);
	else
		fprintf(out, "  damon: DAMON offers '%s' (vaddr: per-process regions); memtrace's damon "
			"source is not built yet\n", ops);
}
