/*
 * fuzz_input.h - helpers shared by the libFuzzer harnesses (tests/fuzz/).
 *
 * The trace readers take a path: the input is put in a memfd and named
 * /proc/self/fd/N (a regular file, no disk I/O).  Chunks carry CRC32Cs, so a
 * mutated trace would almost never get past the framing check: unless bit 0
 * of the file header's reserved byte 12 is set (readers ignore it), the
 * harness recomputes every chunk's header and payload CRC first, and the
 * fuzzer reaches the decoders behind them.
 */
#ifndef MEMTRACE_FUZZ_INPUT_H
#define MEMTRACE_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace/crc32c.h"
#include "trace/format.h"

/* CRCs of every chunk framed in buf made right (see above). */
static inline void fuzz_fix_crcs(unsigned char *buf, size_t len)
{
	if (len < TRACE_FILE_HDR_SIZE || (buf[12] & 1))
		return;
	for (size_t pos = TRACE_FILE_HDR_SIZE; len - pos >= CHUNK_HDR_SIZE;) {
		unsigned char *h = buf + pos;
		if (get_le32(h) != CHUNK_MAGIC)
			return;
		uint32_t stored = get_le32(h + 8);
		if (len - pos - CHUNK_HDR_SIZE >= stored)
			put_le32(h + 20, crc32c(0, h + CHUNK_HDR_SIZE, stored));
		put_le32(h + 24, crc32c(0, h, 24));
		if (len - pos - CHUNK_HDR_SIZE < stored)
			return;
		pos += CHUNK_HDR_SIZE + stored;
	}
}

/* The input as a file: its fd (path in path), or -1. */
static inline int fuzz_memfd(const uint8_t *data, size_t size, int fix_crcs, char *path,
			     size_t pathlen)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	unsigned char *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	if (fix_crcs)
		fuzz_fix_crcs(copy, size);
	size_t off = 0;
	while (off < size) {
		ssize_t n = write(fd, copy + off, size - off);
		if (n <= 0) {
			perror("write memfd");
			abort();
		}
		off += (size_t)n;
	}
	free(copy);
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
