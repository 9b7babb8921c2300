/*
 * fuzz_import.c - `memtracectl import` without the command line: a lackey
 * log (plain, xz or zstd, told from its first bytes; user/source/import/lackey_file.c)
 * opened, checked and recorded through the record loop and the recorder
 * (merge, live WSS, WINDOWS) into /dev/null.  Input: the log file.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "record/loop.h"
#include "record/recorder.h"
#include "source/import/lackey_file.h"
#include "source/source.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd(data, size, 0, path, sizeof(path));
	struct lackey_file *f = lackey_file_open(path);

	if (f) {
		struct recorder *r = recorder_open("/dev/null", "fuzz_import", 0);
		if (!r) {
			fprintf(stderr, "cannot open /dev/null for the recorder\n");
			abort();
		}
		lackey_file_start(f, r, "/dev/null", size % 3 + 1, size & 4, 1);
		record_loop(&source_lackey_file, f, r, 0, NULL, NULL);
		recorder_close(r);
		lackey_file_free(f);
	}
	close(fd);
	return 0;
}
