/* layout.c - reads the layout file hwload writes (tools/hwcheck/hwload.c). */
#include "hwcheck.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int parse_line(const char *line, struct hw_layout *l)
{
	char name[16];
	struct hw_buffer *b;
	long long v;

	if (sscanf(line, "pid %lld", &v) == 1 && v > 0) {
		l->pid = (uint32_t)v;
		return 0;
	}
	if (sscanf(line, "rounds %ld", &l->rounds) == 1)
		return l->rounds > 0 ? 0 : -1;
	if (sscanf(line, "populated %d", &l->populated) == 1)
		return 0;
	if (sscanf(line, "loop_start_ns %" SCNu64, &l->loop_start_ns) == 1 ||
	    sscanf(line, "loop_end_ns %" SCNu64, &l->loop_end_ns) == 1 ||
	    !strncmp(line, "checksum ", 9))
		return 0;
	if (!strncmp(line, "buffer ", 7)) {
		if (l->nbuf == HW_MAX_BUFFERS)
			return -1;
		b = &l->buf[l->nbuf];
		if (sscanf(line, "buffer %15s %" SCNx64 " %" SCNx64 " %" SCNu64 " %" SCNu64, name,
			   &b->start, &b->end, &b->loads, &b->stores) != 5 || b->end <= b->start)
			return -1;
		snprintf(b->name, sizeof(b->name), "%s", name);
		l->nbuf++;
		return 0;
	}
	return -1;
}

int hw_layout_read(const char *path, struct hw_layout *l, char *err, size_t errlen)
{
	char line[512];
	int lineno = 0;
	FILE *f = fopen(path, "r");

	memset(l, 0, sizeof(*l));
	l->populated = -1;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		if (parse_line(line, l)) {
			snprintf(err, errlen, "%s:%d: not a hwload layout line: %s", path, lineno, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (!l->pid || !l->rounds || l->nbuf == 0 || l->populated < 0) {
		snprintf(err, errlen, "%s: incomplete hwload layout (needs pid, rounds, populated, buffers)",
			 path);
		return -1;
	}
	return 0;
}

int hw_layout_find(const struct hw_layout *l, uint64_t addr)
{
	for (int i = 0; i < l->nbuf; i++)
		if (addr >= l->buf[i].start && addr < l->buf[i].end)
			return i;
	return -1;
}
