/* bpf_agg.h - record --aggregate on the bpf backend (bpf_agg.c). */
#ifndef MEMTRACE_SOURCE_BPF_BPF_AGG_H
#define MEMTRACE_SOURCE_BPF_BPF_AGG_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_session;
struct record_opts;
struct recorder;

#define MT_AGG_DEFAULT_ENTRIES	(1u << 18)	/* keys of the bucket map */

/* Before the programs load: the map's size, the interval (o->aggregate). */
int bpf_agg_setup(struct bpf_session *s, const struct record_opts *o);
/* HEADER keys: aggregate (interval ns), aggregate_entries, bucket_default. */
void bpf_agg_meta(struct bpf_session *s, struct recorder *r);
/* The trace's start: interval k ends at start + k * interval. */
void bpf_agg_begin(struct bpf_session *s, uint64_t start);
/* AGG chunks of the intervals ended by now (final: all of them). */
int bpf_agg_drain(struct bpf_session *s, uint64_t now, bool final);
/* stderr: what the full map could not keep. */
void bpf_agg_say(struct bpf_session *s);
void bpf_agg_free(struct bpf_session *s);

#endif
