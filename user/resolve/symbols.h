/*
 * symbols.h - ELF64 little-endian symbol tables (.symtab, else .dynsym)
 * and the file offset -> virtual address translation of PT_LOAD segments.
 *
 * Own parser on the file bytes with <elf.h> structs (no libelf, no DWARF).
 * Every offset, size and count read from the file is checked against the
 * file size: a truncated or garbage file gives "no symbols", never a crash.
 */
#ifndef MEMTRACE_SYMBOLS_H
#define MEMTRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mt_sym {
	uint64_t addr;    /* st_value: ELF virtual address */
	uint64_t size;    /* st_size, or the extent up to the next symbol /
			     section end for a zero-sized function */
	const char *name;
	uint8_t type;     /* STT_FUNC, STT_OBJECT, STT_GNU_IFUNC */
	uint8_t bind;     /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
};

/* A PT_LOAD program header. */
struct mt_segment {
	uint64_t offset, filesz; /* file range */
	uint64_t vaddr, memsz;   /* virtual range */
	uint32_t flags;          /* PF_R | PF_W | PF_X */
};

enum mt_symtab_source {
	MT_SYMS_NONE,   /* no usable symbol table */
	MT_SYMS_SYMTAB, /* .symtab */
	MT_SYMS_DYNSYM, /* .dynsym only (stripped file) */
	MT_SYMS_DEBUGFILE, /* .symtab of DIR/.build-id/xx/yyyy.debug
			      (only through mt_elf_cache_get) */
};

struct mt_elf;

/*
 * Read an ELF64 LE file.  NULL (and no message) if it cannot be opened or
 * is not an ELF64 LE file with at least one sane PT_LOAD.  A file whose
 * symbol tables are damaged still opens, with fewer or no symbols.
 */
struct mt_elf *mt_elf_open(const char *path);
/* Same from bytes in memory (copied as needed; buf may be freed after). */
struct mt_elf *mt_elf_from_memory(const void *buf, size_t len);
void mt_elf_close(struct mt_elf *e);

uint16_t mt_elf_type(const struct mt_elf *e); /* ET_EXEC, ET_DYN, ... */
enum mt_symtab_source mt_elf_symtab_source(const struct mt_elf *e);
size_t mt_elf_nsyms(const struct mt_elf *e);
/* i-th symbol in address order (i < mt_elf_nsyms). */
const struct mt_sym *mt_elf_sym(const struct mt_elf *e, size_t i);
size_t mt_elf_nsegments(const struct mt_elf *e);
const struct mt_segment *mt_elf_segment(const struct mt_elf *e, size_t i);
/*
 * GNU build-id (NT_GNU_BUILD_ID note) as lowercase hex, "" if the file has
 * none.  Traces do not carry build-ids, so nothing compares it; it is for
 * messages and for finding separate debug files.
 */
const char *mt_elf_build_id(const struct mt_elf *e);

/*
 * File offset -> ELF virtual address via the PT_LOAD that holds the byte in
 * the file.  0 on success, -1 if no segment holds it.
 */
int mt_elf_offset_to_vaddr(const struct mt_elf *e, uint64_t off,
			   uint64_t *vaddr);
/* True if vaddr lies in some PT_LOAD's [vaddr, vaddr + memsz). */
bool mt_elf_vaddr_loaded(const struct mt_elf *e, uint64_t vaddr);
/* PF_R|PF_W|PF_X of the PT_LOAD holding vaddr (page-rounded), or -1. */
int mt_elf_vaddr_flags(const struct mt_elf *e, uint64_t vaddr);
/* True if vaddr is in a PT_LOAD's zero-filled tail (.bss). */
bool mt_elf_vaddr_in_bss(const struct mt_elf *e, uint64_t vaddr);

/*
 * Load bias of a mapping of this file: the mapping [start, ...) maps the
 * file from page offset pgoff, and is the first (lowest) mapping of this
 * load of the file.  vaddr = address - bias.  0 on success, -1 if no PT_LOAD
 * matches pgoff.  For ET_EXEC the bias is 0 for a consistent mapping.
 */
int mt_elf_load_bias(const struct mt_elf *e, uint64_t start, uint64_t pgoff,
		     uint64_t *bias);

/*
 * Innermost function/object symbol containing vaddr, or NULL.  *off (if
 * not NULL) gets vaddr - sym->addr.  O(log n).
 */
const struct mt_sym *mt_elf_lookup(const struct mt_elf *e, uint64_t vaddr,
				   uint64_t *off);

/* Cache of opened ELF files by path (failures are cached too). */
struct mt_elf_cache;

struct mt_elf_cache *mt_elf_cache_new(void);
void mt_elf_cache_free(struct mt_elf_cache *c);
/*
 * Directory of separate debug files (default /usr/lib/debug): a file
 * without .symtab but with a build-id gets the symbols of
 * DIR/.build-id/ab/cdef....debug when that file has the same build-id.
 * Call before the first mt_elf_cache_get().
 */
void mt_elf_cache_set_debug_dir(struct mt_elf_cache *c, const char *dir);
/* Opened file or NULL; each path is opened at most once. */
struct mt_elf *mt_elf_cache_get(struct mt_elf_cache *c, const char *path);

#endif
