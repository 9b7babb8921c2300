/* accessed.c - the module's accessed-bit source (accessed.h). */
#include "source/module/accessed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder.h"
#include "source/mem_event.h"
#include "trace/words.h"
#include "util/util.h"

#define ACCESSED_BATCH	256	/* page records handed over per copy */

bool accessed_is_event(const char *name)
{
	return name && (!strcmp(name, ACCESSED_EVENT) || !strcmp(name, "accessed-bit"));
}

void accessed_event(struct mem_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "memtrace.ko accessed-bit scan");
	ev->alias = ACCESSED_EVENT;
	ev->source = "accessed-bit";
	ev->sees = "every page of the targets (private, shared anonymous, file-backed, THP) whose "
		   "accessed bit was set since the previous pass, once per page per pass";
	ev->sample_class = words_class_name(WORDS_ACCESSED_BIT);
	ev->default_period = ACCESSED_DEF_PASS_MS;
	ev->fields = MEMTRACE_FIELD_DATA_SRC;	/* the mapping kind: kept in the trace */
}

void accessed_meta(const struct accessed_state *a, struct recorder *r)
{
	recorder_meta(r, "counted", "pages found accessed per pass (one sample per 4 KiB page "
		      "and process per pass)");
	recorder_meta(r, "pass_period_ms", "%llu", (unsigned long long)a->pass_ms);
	recorder_meta(r, "passes", "%u", MEMTRACE_PASS_ACCESSED_BIT);
	recorder_meta(r, "tlb_flush", "%d", a->flush ? 1 : 0);
	recorder_meta(r, "data_src", "accessed-kind (1 private anonymous, 2 shared anonymous/shmem, "
		      "3 file; +16 THP)");
}

int accessed_pass_end(struct accessed_state *a, struct recorder *r, uint64_t time, pid_t pid,
		      bool partial)
{
	a->passes++;
	if (partial)
		a->partial++;
	/* a PASSES row: windows holding one saw that process's re-accesses
	 * (the report's blind windows are those without one) */
	return recorder_add_pass(r, time, (uint32_t)pid, MEMTRACE_PASS_ACCESSED_BIT);
}

int accessed_add(struct accessed_state *a, struct recorder *r, const struct memtrace_sample *rec,
		 size_t n)
{
	struct memtrace_sample buf[ACCESSED_BATCH];
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(rec[i].data_src & MEMTRACE_ACC_PASS)) {
			buf[k++] = rec[i];
			a->pages++;
			if (k == ACCESSED_BATCH) {
				if (recorder_add_samples(r, buf, k))
					return -1;
				k = 0;
			}
			continue;
		}
		/* the pages before it first: they belong to the pass it ends */
		if (k && recorder_add_samples(r, buf, k))
			return -1;
		k = 0;
		a->ptes += rec[i].ip;
		a->scan_ns += rec[i].addr;
		if (rec[i].ip >= 512 && a->nper < ACCESSED_COST_MAX) {	/* a scan worth timing */
			if (!a->per_page)
				a->per_page = mt_xcalloc(ACCESSED_COST_MAX, sizeof(*a->per_page));
			a->per_page[a->nper++] = (double)rec[i].addr / (double)rec[i].ip;
		}
		/* not the baseline (it records no page: a window holding only it
		 * saw nothing); a pass at its scan's start, the time its pages
		 * carry, so that they lie in the same window */
		if (rec[i].data_src & MEMTRACE_ACC_PASS_BASELINE) {
			a->passes++;
			continue;
		}
		uint64_t start = rec[i].time > rec[i].addr ? rec[i].time - rec[i].addr : rec[i].time;
		if (accessed_pass_end(a, r, start, (pid_t)rec[i].pid,
				      (rec[i].data_src & MEMTRACE_ACC_PASS_PARTIAL) != 0))
			return -1;
	}
	return k ? recorder_add_samples(r, buf, k) : 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

void accessed_summary(const struct accessed_state *a)
{
	double med = 0;

	if (a->nper) {
		qsort(a->per_page, a->nper, sizeof(*a->per_page), cmp_double);
		med = a->per_page[a->nper / 2];
	}
	fprintf(stderr, "memtracectl: accessed bits: %llu process scan%s (%llu partial: mmap lock "
		"busy), %llu pages found accessed, %llu present pages looked at, %.1f ns per page "
		"(median of %zu scans of >= 512 pages; %.1f overall; pass %llu ms, TLB flush %s)\n",
		(unsigned long long)a->passes, a->passes == 1 ? "" : "s",
		(unsigned long long)a->partial, (unsigned long long)a->pages,
		(unsigned long long)a->ptes, med, a->nper,
		a->ptes ? (double)a->scan_ns / (double)a->ptes : 0.0,
		(unsigned long long)a->pass_ms, a->flush ? "on" : "off");
}

void accessed_free(struct accessed_state *a)
{
	if (a)
		free(a->per_page);
	free(a);
}
