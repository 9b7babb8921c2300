/*
 * usdt_notes.h - the USDT probes (SystemTap SDT notes, .note.stapsdt) of an
 * ELF file, read with libelf: does it have a probe NAME (of PROVIDER), and
 * which provider is it.  libbpf's bpf_program__attach_usdt does the rest
 * (argument specs, semaphores).
 */
#ifndef MEMTRACE_SOURCE_PROBES_USDT_NOTES_H
#define MEMTRACE_SOURCE_PROBES_USDT_NOTES_H

#include <stddef.h>

/*
 * 1 when path has a USDT probe name (of provider, NULL = any: the first one
 * found), with its provider in prov; 0 when it has none; -1 with a one-line
 * reason when path is not a readable ELF file.
 */
int usdt_find(const char *path, const char *provider, const char *name, char *prov,
	      size_t provlen, char *err, size_t errlen);

#endif
