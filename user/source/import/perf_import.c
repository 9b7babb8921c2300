/* perf_import.c - `memtracectl import --format perf`: a perf.data file as a
 * sample source driven by the record loop (perf_import.h). */
#include "source/import/perf_import.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recorder.h"
#include "source/import/perf_file.h"
#include "source/import/perf_import_maps.h"
#include "trace/words.h"
#include "util/util.h"

#define RECORDS_PER_DRAIN	65536

/* A side-band record, applied in time order: perf writes each round's per-CPU
 * buffers one CPU after another, so a child's FORK can come before the MMAP2
 * its parent made earlier on another CPU (perf orders by time only across
 * FINISHED_ROUND records, as perf's ordered_events do). */
struct side_record {
	uint64_t time, seq;
	struct perf_event_header *h;	/* a malloc'd copy */
};

struct perf_import {
	struct perf_file f;
	struct recorder *r;
	const char *output;
	struct memtrace_sample *pend;	/* samples waiting for their round */
	size_t npend, cap;
	uint64_t round_max;		/* newest time of the current round */
	uint64_t flush_limit;		/* newest time of the previous round */
	struct perf_maps maps;
	struct side_record *side;	/* MMAP/COMM/FORK records waiting for their round */
	size_t nside, side_cap;
	uint64_t side_seq;
	bool begun, failed, read_failed;
	uint32_t target;		/* the first exec'd process (COMM exec), else 0 */
	char target_comm[17];
	uint64_t samples, no_addr, bad_samples, first_time;
};

struct perf_import *perf_import_open(const char *name)
{
	struct perf_import *pi = mt_xmalloc(sizeof(*pi));

	memset(pi, 0, sizeof(*pi));
	if (perf_file_open(&pi->f, name)) {
		perf_file_close(&pi->f);
		free(pi);
		return NULL;
	}
	return pi;
}

void perf_import_start(struct perf_import *pi, struct recorder *r, const char *output)
{
	pi->r = r;
	pi->output = output;
	recorder_offline(r);
}

static bool is_page_fault_attr(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS || a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* Header keys from the attrs and features (known once the first event came). */
static void set_meta(struct perf_import *pi)
{
	struct recorder *r = pi->r;
	const struct perf_file *f = &pi->f;
	char events[512] = "", fields[64] = "";
	uint64_t all = 0;
	bool faults_only = true;
	const struct perf_event_attr *first = NULL;

	for (size_t i = 0; i < f->nattrs; i++) {
		const struct perf_event_attr *a = &f->attrs[i].attr;
		if (!(a->sample_type & PERF_SAMPLE_ADDR))
			continue;
		if (!first)
			first = a;
		all |= a->sample_type;
		faults_only &= is_page_fault_attr(a);
		size_t l = strlen(events);
		snprintf(events + l, sizeof(events) - l, "%s%s", l ? "," : "", f->attrs[i].name);
	}
	faults_only &= first != NULL;
	snprintf(fields, sizeof(fields), "%s%s%s", all & PERF_SAMPLE_IP ? "ip," : "",
		 all & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) ? "weight," : "",
		 all & PERF_SAMPLE_DATA_SRC ? "data_src," : "");
	if (fields[0])
		fields[strlen(fields) - 1] = 0;
	recorder_meta(r, "backend", "perf-import");
	recorder_meta(r, "source", "%s", faults_only ? "page-faults" : "perf-import");
	recorder_meta(r, "event", "%s", events[0] ? events : "none");
	recorder_meta(r, "perf_file", "%s%s", f->name, f->pipe ? " (pipe mode)" : "");
	if (first && first->freq)
		recorder_meta(r, "sample_freq", "%llu", (unsigned long long)first->sample_freq);
	recorder_meta(r, "sample_period", "%llu",
		      first && !first->freq ? (unsigned long long)first->sample_period : 1ull);
	recorder_meta(r, "random_period", "0");
	recorder_meta(r, "clock", "perf");
	recorder_meta(r, "time_unit", "ns");
	/* `perf record -- CMD`: CMD's exec; else the first sample's process */
	if (!pi->target && pi->npend)
		pi->target = pi->pend[0].pid;
	recorder_meta(r, "target_pid", "%u", pi->target);
	recorder_meta(r, "target_comm", "%s", pi->target_comm);
	recorder_meta(r, "fields", "%s", fields);
	recorder_meta(r, "sees", "%s", faults_only ?
		      "page faults recorded by perf: first touches and re-faults, not repeated accesses" :
		      "the samples with a data address that perf recorded");
	recorder_meta(r, "sample_class", "%s",
		      words_class_name(faults_only ? WORDS_FIRST_TOUCH : WORDS_SAMPLED_ACCESS));
	if (f->hostname[0])
		recorder_meta(r, "host", "%s", f->hostname);
	if (f->osrelease[0])
		recorder_meta(r, "kernel", "%s", f->osrelease);
	if (f->arch[0])
		recorder_meta(r, "arch", "%s", f->arch);
	if (f->cpudesc[0])
		recorder_meta(r, "cpu_model", "%s", f->cpudesc);
}

static int begin(struct perf_import *pi, uint64_t start)
{
	if (pi->begun)
		return 0;
	pi->begun = true;
	set_meta(pi);	/* pend is sorted: pend[0] is the first sample */
	if (recorder_begin(pi->r, start, 0) < 0) {
		pi->failed = true;
		return -1;
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct memtrace_sample *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

static void apply_side(struct perf_import *pi, const struct perf_event_header *h,
		       const struct perf_file_sample *id);

static int by_time_seq(const void *a, const void *b)
{
	const struct side_record *x = a, *y = b;

	if (x->time != y->time)
		return (x->time > y->time) - (x->time < y->time);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Applies the side-band records at or before limit, oldest first (file order on ties). */
static void apply_side_until(struct perf_import *pi, uint64_t limit)
{
	size_t n = 0;

	if (!pi->nside)
		return;
	qsort(pi->side, pi->nside, sizeof(*pi->side), by_time_seq);
	while (n < pi->nside && pi->side[n].time <= limit) {
		struct perf_file_sample id;

		perf_file_sample_id(&pi->f, pi->side[n].h, &id);
		apply_side(pi, pi->side[n].h, &id);
		free(pi->side[n].h);
		n++;
	}
	memmove(pi->side, pi->side + n, (pi->nside - n) * sizeof(*pi->side));
	pi->nside -= n;
}

static void queue_side(struct perf_import *pi, const struct perf_event_header *h, uint64_t time)
{
	if (pi->nside == pi->side_cap) {
		pi->side_cap = pi->side_cap ? 2 * pi->side_cap : 1024;
		pi->side = mt_xrealloc(pi->side, pi->side_cap * sizeof(*pi->side));
	}
	struct perf_event_header *copy = mt_xmalloc(h->size);

	memcpy(copy, h, h->size);
	pi->side[pi->nside++] = (struct side_record){ .time = time, .seq = pi->side_seq++,
						     .h = copy };
}

/* Hands the samples at or before limit (and the maps they need) to the recorder. */
static int flush(struct perf_import *pi, uint64_t limit)
{
	size_t n = 0;

	apply_side_until(pi, limit);
	if (!pi->npend)
		return 0;
	qsort(pi->pend, pi->npend, sizeof(*pi->pend), by_time);
	while (n < pi->npend && pi->pend[n].time <= limit)
		n++;
	if (!n)
		return 0;
	if (begin(pi, pi->pend[0].time))
		return -1;
	for (size_t i = 0; i < pi->maps.n; i++) {
		struct perf_pid_maps *p = &pi->maps.p[i];
		if (!p->dirty)
			continue;
		size_t len;
		char *text = perf_maps_text(p, &len);
		int rc = recorder_put_maps(pi->r, p->time > pi->pend[0].time ? p->time :
					   pi->pend[0].time, (pid_t)p->pid, text, len);
		free(text);
		p->dirty = false;
		if (rc)
			return -1;
	}
	if (recorder_add_samples(pi->r, pi->pend, n) < 0)
		return -1;
	pi->samples += n;
	memmove(pi->pend, pi->pend + n, (pi->npend - n) * sizeof(*pi->pend));
	pi->npend -= n;
	return 0;
}

static void sample(struct perf_import *pi, const struct perf_event_header *h)
{
	struct perf_file_sample s;

	if (perf_file_sample(&pi->f, h, &s)) {
		pi->bad_samples++;
		return;
	}
	if (!(s.attr->attr.sample_type & PERF_SAMPLE_ADDR)) {
		pi->no_addr++;
		return;
	}
	if (pi->npend == pi->cap) {
		pi->cap = pi->cap ? 2 * pi->cap : 65536;
		pi->pend = mt_xrealloc(pi->pend, pi->cap * sizeof(*pi->pend));
	}
	pi->pend[pi->npend++] = (struct memtrace_sample){
		.time = s.time, .addr = s.addr, .ip = s.ip, .pid = s.pid, .tid = s.tid,
		.cpu = s.cpu, .weight = s.weight > UINT32_MAX ? UINT32_MAX : (uint32_t)s.weight,
		.data_src = s.data_src,
	};
	if (s.time > pi->round_max)
		pi->round_max = s.time;
}

/* MMAP/MMAP2, COMM and FORK: the processes' mappings and names. */
static void apply_side(struct perf_import *pi, const struct perf_event_header *h,
		       const struct perf_file_sample *id)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t len = h->size - sizeof(*h);
	uint32_t w[4];

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		perf_maps_mmap_record(&pi->maps, h, id->time);
		break;
	case PERF_RECORD_COMM:
		if (len > 8) {
			memcpy(w, p, 8);
			char comm[17];
			snprintf(comm, sizeof(comm), "%.*s", (int)strnlen((const char *)p + 8, len - 8),
				 (const char *)p + 8);
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC && w[0] == w[1])
				perf_maps_exec(&pi->maps, w[0], id->time);
			if (h->misc & PERF_RECORD_MISC_COMM_EXEC && w[0] == w[1] &&
			    (!pi->target || pi->target == w[0])) {
				pi->target = w[0];
				snprintf(pi->target_comm, sizeof(pi->target_comm), "%s", comm);
			}
			recorder_note_thread(pi->r, id->time, w[0], w[1], comm);
		}
		break;
	case PERF_RECORD_FORK:
		if (len >= 16) {
			memcpy(w, p, 16);	/* pid, ppid, tid, ptid */
			if (w[0] != w[1])
				perf_maps_fork(&pi->maps, w[1], w[0], id->time);
		}
		break;
	}
}

static int record(struct perf_import *pi, const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t len = h->size - sizeof(*h);
	struct perf_file_sample id;

	if (h->type == PERF_RECORD_SAMPLE) {
		sample(pi, h);
		return 0;
	}
	if (h->type == PERF_FILE_FINISHED_ROUND) {
		int rc = flush(pi, pi->flush_limit);
		pi->flush_limit = pi->round_max;
		return rc;
	}
	perf_file_sample_id(&pi->f, h, &id);
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
		queue_side(pi, h, id.time);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		uint64_t lost;
		size_t at = h->type == PERF_RECORD_LOST ? 8 : 0;
		if (len >= at + 8) {
			memcpy(&lost, p + at, 8);
			recorder_add_lost(pi->r, id.time, id.cpu, lost, 0);
		}
		break;
	}
	case PERF_RECORD_THROTTLE:
		recorder_add_lost(pi->r, id.time, id.cpu, 0, 1);
		break;
	}
	return 0;
}

static int pi_drain(void *state, struct recorder *r, const struct pollfd *pfd, int npfd,
		    struct source_step *step)
{
	struct perf_import *pi = state;

	(void)r;
	(void)pfd;
	(void)npfd;
	for (int i = 0; i < RECORDS_PER_DRAIN; i++) {
		const struct perf_event_header *h;
		int rc = perf_file_next(&pi->f, &h);

		if (rc < 0)
			pi->read_failed = true;
		if (rc <= 0) {
			if (flush(pi, UINT64_MAX))
				pi->failed = true;
			step->ended = true;
			return pi->failed ? -1 : 0;
		}
		if (record(pi, h)) {
			pi->failed = true;
			step->ended = true;
			return -1;
		}
	}
	step->now = pi->flush_limit;
	step->tick = pi->begun;
	return 0;
}

static int pi_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct perf_import *pi = state;

	(void)r;
	(void)reason;
	pi->failed |= failed;
	if (!pi->failed && begin(pi, 0) < 0)
		mt_err("%s: cannot write the trace header", pi->output);
	if (pi->no_addr)
		mt_warn("%s: %" PRIu64 " samples without a data address (events recorded without "
			"-d / PERF_SAMPLE_ADDR) left out", pi->f.name, pi->no_addr);
	if (pi->f.unknown_ids)
		mt_warn("%s: %" PRIu64 " samples of an event id the file does not list left out "
			"(perf script stops at the first)", pi->f.name, pi->f.unknown_ids);
	if (pi->bad_samples > pi->f.unknown_ids)
		mt_warn("%s: %" PRIu64 " samples cut short left out", pi->f.name,
			pi->bad_samples - pi->f.unknown_ids);
	return pi->failed || !pi->begun ? -1 : 0;
}

int perf_import_result(const struct perf_import *pi)
{
	if (pi->read_failed)
		return 1;	/* said already; the trace holds everything before it */
	if (!pi->samples) {
		mt_err("%s: no samples with a data address (record with perf record -d, perf mem "
		       "record or perf c2c record)", pi->f.name);
		return 1;
	}
	return 0;
}

void perf_import_free(struct perf_import *pi)
{
	if (!pi)
		return;
	perf_file_close(&pi->f);
	perf_maps_free(&pi->maps);
	for (size_t i = 0; i < pi->nside; i++)
		free(pi->side[i].h);
	free(pi->side);
	free(pi->pend);
	free(pi);
}

static int pi_close(void *state, int rc)
{
	(void)state;
	return rc;
}

const struct source_ops source_perf_import = {
	.name = "perf-import",
	.end_reason = "input-ended",
	.drain = pi_drain,
	.finish = pi_finish,
	.close = pi_close,
};
