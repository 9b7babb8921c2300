/* alloc_elf.h - where the allocation probes go (record --allocs): the
 * allocator functions an ELF file defines, as file offsets for uprobes, and
 * the files a target's allocator lives in. */
#ifndef MEMTRACE_SOURCE_PROBES_ALLOC_ELF_H
#define MEMTRACE_SOURCE_PROBES_ALLOC_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The file offset of each function names[i] that path defines (.symtab or
 * .dynsym, STT_FUNC or STT_GNU_IFUNC, a versioned name's base counts) into
 * offs[i], 0 where it defines none.  -1 if path is not a readable ELF file.
 */
int alloc_elf_funcs(const char *path, const char *const *names, size_t n, uint64_t *offs);

/* A set of file paths, each once. */
struct alloc_files {
	char **path;
	size_t n;
};
void alloc_files_add(struct alloc_files *f, const char *path);
void alloc_files_free(struct alloc_files *f);

/*
 * The files of a command (argv[0] found as execvp would, its DT_NEEDED
 * libraries found as the dynamic linker would in the usual directories and
 * LD_LIBRARY_PATH, and LD_PRELOAD's) that may hold an allocator: the
 * executable itself, libc, libjemalloc, libtcmalloc.
 */
void alloc_files_of_command(const char *cmd, struct alloc_files *f);
/* The same of a running process, from /proc/PID/exe and /proc/PID/maps. */
void alloc_files_of_pid(pid_t pid, struct alloc_files *f);

#endif
