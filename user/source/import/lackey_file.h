/* lackey_file.h - a saved lackey log as a sample source (`memtracectl import`).
 *
 * The input is plain text, xz or zstd (detected from the first bytes), read
 * in 1 MiB blocks; record/loop.c drives it like any other source: it has no
 * fd to poll, every drain() reads and parses one block.
 */
#ifndef MEMTRACE_SOURCE_IMPORT_LACKEY_FILE_H
#define MEMTRACE_SOURCE_IMPORT_LACKEY_FILE_H

#include <lzma.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "source/valgrind/lackey.h"
#include "source/source.h"

struct recorder;

enum lackey_codec { IN_PLAIN, IN_XZ, IN_ZSTD };

struct lackey_input {
	const char *name;
	int fd;
	enum lackey_codec codec;
	unsigned char *in;		/* raw bytes read, in[pos..len) unused */
	size_t pos, len;
	bool raw_eof;
	bool done;			/* decoder finished (or failed) */
	bool truncated;			/* compressed stream ended early */
	bool failed;			/* read or decode error (reported) */
	lzma_stream xz;
	ZSTD_DStream *zs;
	uint64_t raw_bytes;
	size_t zs_last;			/* result of the last call that made progress */
};

struct lackey_file {
	struct lackey_input in;
	struct lackey_parser p;
	struct recorder *r;
	const char *output;		/* for messages */
	char *buf;
	size_t have;			/* bytes in buf not fed yet (the first look) */
	bool begun;
	bool published;			/* trace lines read: the output is the new trace */
	bool read_failed;
	int failed;
};

/*
 * Opens name ("-": stdin) and looks at its start: NULL after a one-line
 * error if it cannot be read or is not a lackey log.  Nothing is created.
 */
struct lackey_file *lackey_file_open(const char *name);

/* Header keys and the parser, before record_loop(&source_lackey_file, ...). */
void lackey_file_start(struct lackey_file *f, struct recorder *r, const char *output,
		       uint64_t period, bool random, uint64_t seed);

void lackey_file_free(struct lackey_file *f);

#endif
