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

/* The input's last n bytes (zero-padded in front when it is shorter): the
 * parameters of the trace harnesses, so that every trace seed is an input. */
static inline void fuzz_tail(const uint8_t *data, size_t size, unsigned char *k, size_t n)
{
	memset(k, 0, n);
	if (size >= n)
		memcpy(k, data + size - n, n);
	else
		memcpy(k + n - size, data, size);
}

/* Every sample of the trace at path through the public API (time, addr,
 * pid, tid columns, malloc'd; s->n samples), at most max: 0, or -1 with
 * nothing to free (s->span set where the trace's info could be read). */
struct fuzz_samples {
	uint64_t *time, *addr;
	uint32_t *pid, *tid;
	size_t n;
	uint64_t start_time;
	uint64_t span;		/* from the earliest to the latest time info knows */
	uint32_t target_pid;
};

/* A window of at least span / 2048: a harness's own window choice must not
 * ask for millions of rows (a user's -w 1us over an hour does; that is not
 * what the harness looks for). */
static inline uint64_t fuzz_window(uint64_t want, uint64_t span)
{
	uint64_t least = span / 2048 + 1;

	return want > least ? want : least;
}

#ifdef MEMTRACE_PUBLIC_TRACE_H
static inline int fuzz_read_samples(const char *path, size_t max, struct fuzz_samples *s)
{
	char err[256];
	struct memtrace_trace_info info;
	struct memtrace_trace *t = memtrace_trace_open(path, err, sizeof(err));

	memset(s, 0, sizeof(*s));
	if (!t)
		return -1;
	if (memtrace_trace_info(t, &info, err, sizeof(err))) {
		memtrace_trace_close(t);
		return -1;
	}
	uint64_t lo = info.start_time, hi = info.end_time;
	if (info.first_time && info.first_time < lo)
		lo = info.first_time;
	if (info.last_time > hi)
		hi = info.last_time;
	s->span = hi > lo ? hi - lo : 0;
	if (info.samples > max) {
		memtrace_trace_close(t);
		return -1;
	}
	size_t cap = info.samples ? (size_t)info.samples : 1;
	s->time = calloc(cap, sizeof(*s->time));
	s->addr = calloc(cap, sizeof(*s->addr));
	s->pid = calloc(cap, sizeof(*s->pid));
	s->tid = calloc(cap, sizeof(*s->tid));
	s->start_time = info.start_time;
	s->target_pid = info.target_pid;
	struct memtrace_columns c = { .time = s->time, .addr = s->addr, .pid = s->pid,
				      .tid = s->tid, .cap = cap };
	int rc = memtrace_trace_read(t, NULL, &c, &s->n, err, sizeof(err));
	memtrace_trace_close(t);
	if (rc) {	/* freed: nothing to free after a -1 */
		free(s->time);
		free(s->addr);
		free(s->pid);
		free(s->tid);
		uint64_t span = s->span;
		memset(s, 0, sizeof(*s));
		s->span = span;
	}
	return rc;
}

static inline void fuzz_samples_free(struct fuzz_samples *s)
{
	free(s->time);
	free(s->addr);
	free(s->pid);
	free(s->tid);
	memset(s, 0, sizeof(*s));
}
#endif

#endif
