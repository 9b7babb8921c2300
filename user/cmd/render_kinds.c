/* render_kinds.c - `memtracectl report`'s rows per fault kind for a trace
 * whose samples carry one (hint-faults): samples and distinct pages of
 * hint faults, first touches and copy-on-write faults. */
#include <inttypes.h>

#include "cmd/render.h"
#include "memtrace/fault_kinds.h"
#include "util/util.h"

static int kinds(const char *path, uint32_t pid, struct memtrace_fault_kind_row *k)
{
	char err[256];
	int n = memtrace_fault_kinds(path, pid, 4096, k, err, sizeof(err));

	if (n < 0)
		mt_warn("fault kinds: %s", err);
	return n;
}

void render_text_kinds(FILE *f, const char *path, uint32_t pid)
{
	struct memtrace_fault_kind_row k[MEMTRACE_NFAULT_KINDS];
	char b[32];
	int n = kinds(path, pid, k);

	if (n <= 0)
		return;
	fprintf(f, "\nFault kinds:\n  %-12s %12s %12s %12s\n", "kind", "samples", "pages", "size");
	for (int i = 0; i < n; i++)
		if (k[i].samples || k[i].kind != 0)
			fprintf(f, "  %-12s %12" PRIu64 " %12" PRIu64 " %12s\n", k[i].name, k[i].samples,
				k[i].pages, mt_fmt_bytes(k[i].pages * 4096, b, sizeof(b)));
}

void render_json_kinds(FILE *f, const char *path, uint32_t pid)
{
	struct memtrace_fault_kind_row k[MEMTRACE_NFAULT_KINDS];
	int n = kinds(path, pid, k);

	if (n <= 0)
		return;
	fprintf(f, ",\n  \"fault_kinds\": [");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\n    {\"kind\": \"%s\", \"samples\": %" PRIu64 ", \"pages\": %" PRIu64
			   ", \"page_size\": 4096}", i ? "," : "", k[i].name, k[i].samples, k[i].pages);
	fprintf(f, "\n  ]");
}
