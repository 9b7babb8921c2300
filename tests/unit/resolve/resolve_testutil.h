/*
 * resolve_testutil.h - helpers shared by the resolve unit tests: file I/O,
 * a per-test-binary temporary directory, an independent maps parser for
 * expected strings, and mt_elf_open() on bytes in memory.
 */
#ifndef MEMTRACE_RESOLVE_TESTUTIL_H
#define MEMTRACE_RESOLVE_TESTUTIL_H

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve/resolve.h"
#include "resolve/symbols.h"
#include "test.h"

/* ---- helpers ---------------------------------------------------------- */

static inline char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static inline int write_all(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	size_t w = fwrite(buf, 1, len, f);
	return fclose(f) == 0 && w == len ? 0 : -1;
}

static char tmpdir[128];

static inline const char *tmp_path(const char *name)
{
	static char bufs[8][256];
	static int next;
	char *b = bufs[next++ & 7];

	if (!tmpdir[0]) {
		/* $TMPDIR if set (the test runs programs it builds there) */
		const char *t = getenv("TMPDIR");
		if (!t || !t[0] || strlen(t) > 80)
			t = "/tmp";
		snprintf(tmpdir, sizeof(tmpdir), "%s/mt-symtest-XXXXXX", t);
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			abort();
		}
	}
	snprintf(b, 256, "%s/%s", tmpdir, name);
	return b;
}

/*
 * Expected "region+0xoff" for addr from a maps text, parsed here with
 * sscanf independently of maps.c.  Returns 0 if found; *anon set for a
 * mapping without a name.
 */
static inline int expect_region(const char *maps, uint64_t addr, char *region,
			 size_t len, uint64_t *off, int *anon)
{
	const char *p = maps;

	while (*p) {
		unsigned long long s, e, o, ino;
		unsigned maj, mn;
		char perms[8];
		int pos = 0;
		if (sscanf(p, "%llx-%llx %7s %llx %x:%x %llu%n", &s, &e, perms,
			   &o, &maj, &mn, &ino, &pos) == 7 &&
		    addr >= s && addr < e) {
			const char *path = p + pos;
			while (*path == ' ')
				path++;
			const char *nl = strchr(path, '\n');
			size_t plen = nl ? (size_t)(nl - path) : strlen(path);
			*anon = plen == 0;
			if (plen == 0) {
				snprintf(region, len, "[anon]");
				*off = addr - s;
			} else if (path[0] == '/') {
				const char *b = path + plen;
				while (b > path && b[-1] != '/')
					b--;
				snprintf(region, len, "%.*s",
					 (int)(path + plen - b), b);
				*off = addr - s + o;
			} else {
				snprintf(region, len, "%.*s", (int)plen, path);
				*off = addr - s;
			}
			return 0;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return -1;
}


/* mt_elf_open() on bytes (through a memfd: libdwfl opens files by path). */
static inline struct mt_elf *mt_elf_from_memory(const void *buf, size_t len)
{
	int fd = memfd_create("mt-elf-test", MFD_CLOEXEC);
	char path[64];
	struct mt_elf *e = NULL;

	if (fd < 0)
		abort();
	if (len == 0 || (size_t)write(fd, buf, len) == len) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		e = mt_elf_open(path, NULL);
	}
	close(fd);
	return e;
}

static inline void cleanup(void)
{
	char cmd[200];

	if (tmpdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		/* silent: the summary line must stay the last line */
		if (system(cmd) != 0)
			tmpdir[0] = '\0';
	}
}

static inline int resolve_test_main(void)
{
	int rc = test_main();

	cleanup();
	return rc;
}

#endif
