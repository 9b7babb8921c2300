/*
 * fuzz_maps.c - the /proc/PID/maps parser and the address-space keys built
 * from it (user/resolve/maps.c, spaces.c, layout.c through the resolver):
 * the input is split at "\n--\n" into snapshots of pids 1, 2, 1, 3, ...;
 * each is parsed alone (lookups at every mapping's edges) and all go into
 * one resolver whose key layout, mapping names and key lookups are used.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/maps.h"
#include "resolve/resolve.h"

static volatile uint64_t sink;

static void one_snapshot(const char *text, size_t len)
{
	struct mt_maps m;

	mt_maps_parse(&m, text, len);
	for (size_t i = 0; i < m.n; i++) {
		const struct mt_mapping *v = &m.v[i];
		if (i && v->start < m.v[i - 1].start)
			abort();	/* documented: sorted by start */
		sink += strlen(v->name) + strlen(v->path);
		sink += mt_maps_find(&m, v->start) != NULL;
		sink += mt_maps_find(&m, v->end - 1) != NULL;
		sink += mt_maps_find(&m, v->end) != NULL;
	}
	mt_maps_destroy(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t pids[] = { 1, 2, 1, 3 };
	char *text = malloc(size + 1);
	struct resolver *r = resolver_new();
	size_t k = 0;

	memcpy(text, data, size);
	text[size] = 0;
	resolver_set_root(r, "/nonexistent-fuzz-root");
	resolver_set_debug_dir(r, "/nonexistent-fuzz-root");
	for (size_t off = 0; off <= size; k++) {
		const char *sep = size - off >= 4 ? memmem(text + off, size - off, "\n--\n", 4) : NULL;
		size_t len = sep ? (size_t)(sep - (text + off)) + 1 : size - off;
		char *snap = malloc(len ? len : 1);	/* exact size: reads past it are caught */
		memcpy(snap, text + off, len);
		one_snapshot(snap, len);
		resolver_add_maps(r, 100 * k, pids[k % 4], snap, len);
		free(snap);
		off += len + (sep ? 3 : 1);
	}
	const struct memtrace_range *v;
	size_t n = resolver_key_layout(r, &v);
	for (size_t i = 0; i < n && i < 64; i++) {
		char buf[256];
		struct resolved res;
		resolver_key_describe(r, v[i].start, buf, sizeof(buf));
		resolver_key_lookup(r, v[i].end - 1, &res);
		sink += strlen(buf);
	}
	for (size_t i = 0; i < 4; i++) {
		const char *name = resolver_mapping_name(r, pids[i], UINT64_MAX, 0x400000);
		sink += name ? strlen(name) : 0;
	}
	resolver_free(r);
	free(text);
	return 0;
}
