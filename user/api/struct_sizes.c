/* struct_sizes.c - memtrace_struct_size (include/memtrace/memtrace.h): the
 * size of every public struct, by name, for bindings to check their layouts
 * against (tests/suites.d/12-abi.sh checks that every public struct is here). */
#include <string.h>

#include "memtrace/memtrace.h"

#define SIZE_OF(name) { #name, sizeof(struct name) }

static const struct {
	const char *name;
	size_t size;
} public_structs[] = {
	SIZE_OF(memtrace_alloc),
	SIZE_OF(memtrace_bin_axis),
	SIZE_OF(memtrace_blind),
	SIZE_OF(memtrace_chunk),
	SIZE_OF(memtrace_cold),
	SIZE_OF(memtrace_cold_process),
	SIZE_OF(memtrace_columns),
	SIZE_OF(memtrace_compare),
	SIZE_OF(memtrace_compare_row),
	SIZE_OF(memtrace_curve_point),
	SIZE_OF(memtrace_damon_region),
	SIZE_OF(memtrace_damon_window),
	SIZE_OF(memtrace_damon_wss_point),
	SIZE_OF(memtrace_estimate),
	SIZE_OF(memtrace_fault_kind_row),
	SIZE_OF(memtrace_filter),
	SIZE_OF(memtrace_frame),
	SIZE_OF(memtrace_gap),
	SIZE_OF(memtrace_hot_bucket),
	SIZE_OF(memtrace_location),
	SIZE_OF(memtrace_lost),
	SIZE_OF(memtrace_maps_snapshot),
	SIZE_OF(memtrace_mrc),
	SIZE_OF(memtrace_mrc_point),
	SIZE_OF(memtrace_named_count),
	SIZE_OF(memtrace_pass),
	SIZE_OF(memtrace_peak),
	SIZE_OF(memtrace_process),
	SIZE_OF(memtrace_range),
	SIZE_OF(memtrace_region),
	SIZE_OF(memtrace_report),
	SIZE_OF(memtrace_report_config),
	SIZE_OF(memtrace_series),
	SIZE_OF(memtrace_site),
	SIZE_OF(memtrace_site_block),
	SIZE_OF(memtrace_sites),
	SIZE_OF(memtrace_span),
	SIZE_OF(memtrace_span_group),
	SIZE_OF(memtrace_thread),
	SIZE_OF(memtrace_trace_info),
	SIZE_OF(memtrace_window_row),
	SIZE_OF(memtrace_words),
};

size_t memtrace_struct_size(const char *name)
{
	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof(public_structs) / sizeof(public_structs[0]); i++)
		if (!strcmp(public_structs[i].name, name))
			return public_structs[i].size;
	return 0;
}
