/*
 * symbols.h - one ELF file read through elfutils (libelf + libdwfl/libdw):
 * its PT_LOAD segments (file offset -> ELF vaddr, load bias, .bss tail),
 * its symbol table with sizes, and DWARF source lines and inlined frames.
 *
 * Design: one Dwfl per file with ONE Dwfl_Module reported at base 0
 * (dwfl_report_elf(..., base 0, add_p_vaddr true)), so module addresses
 * are the ELF file's own virtual addresses; the caller translates process
 * addresses with the load bias it computes from the maps (mt_elf_load_bias).
 * Why not one Dwfl per process with every file at its mapping's bias: a
 * trace has many snapshots and pids, the same library is loaded at other
 * addresses in each, and snapshots may contradict each other (a mapping
 * replaced between two snapshots); a Dwfl address space cannot hold
 * overlapping modules.  Per-file modules at bias 0 are cached once per path
 * for the whole trace and cannot be confused by the maps.
 *
 * libdwfl finds what the file lacks: with no .symtab (or no DWARF) it
 * asks find_debuginfo, which here is dwfl_standard_find_debuginfo minus
 * debuginfod (that step dlopens libdebuginfod + curl on every run, ~7 ms
 * per report, and may go to the network): DEBUG_DIR/.build-id/xx/yyyy.debug
 * (dwfl_build_id_find_debuginfo), then the .gnu_debuglink name (or
 * NAME.debug) in the file's directory, its .debug/ and DEBUG_DIR/DIR/;
 * libdwfl rejects a debug file whose build-id differs.  Else .dynsym (plus
 * MiniDebugInfo .gnu_debugdata where present).  The debug file also serves
 * DWARF.  find_elf is never needed: dwfl_report_elf opens the path.
 *
 * Symbols: STT_FUNC, STT_OBJECT and STT_GNU_IFUNC with a section; a symbol
 * only covers [st_value, st_value + st_size); a zero-sized function covers
 * up to the next symbol or its section's end; zero-sized objects are
 * dropped; "name@VERSION" is cut to "name"; aliases (same address and size)
 * collapse to the best name (fewest leading '_', then GLOBAL, WEAK, LOCAL).
 * A file that does not open, is not ELF or has no PT_LOAD gives NULL, never
 * a crash (libelf checks every offset against the file size).
 */
#ifndef MEMTRACE_RESOLVE_SYMBOLS_H
#define MEMTRACE_RESOLVE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memtrace/resolve.h"

struct mt_sym {
	uint64_t addr;    /* ELF virtual address (st_value) */
	uint64_t size;    /* st_size, or the extent described above */
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
	MT_SYMS_NONE,      /* no usable symbol table */
	MT_SYMS_SYMTAB,    /* .symtab of the file */
	MT_SYMS_DYNSYM,    /* .dynsym only (stripped file) */
	MT_SYMS_DEBUGFILE, /* .symtab of a separate debug file */
};

struct mt_elf;

/*
 * Open path.  debug_dir: separate debug files (NULL or "": /usr/lib/debug).
 * NULL if the file cannot be opened, is not ELF or has no sane PT_LOAD.
 */
struct mt_elf *mt_elf_open(const char *path, const char *debug_dir);
void mt_elf_close(struct mt_elf *e);

uint16_t mt_elf_type(const struct mt_elf *e); /* ET_EXEC, ET_DYN, ... */
enum mt_symtab_source mt_elf_symtab_source(const struct mt_elf *e);
size_t mt_elf_nsyms(const struct mt_elf *e);
/* i-th symbol in address order (i < mt_elf_nsyms), else NULL. */
const struct mt_sym *mt_elf_sym(const struct mt_elf *e, size_t i);
size_t mt_elf_nsegments(const struct mt_elf *e);
const struct mt_segment *mt_elf_segment(const struct mt_elf *e, size_t i);
/* GNU build-id as lowercase hex, "" if the file has none. */
const char *mt_elf_build_id(const struct mt_elf *e);

/* File offset -> ELF vaddr via the PT_LOAD holding that file byte; 0/-1. */
int mt_elf_offset_to_vaddr(const struct mt_elf *e, uint64_t off,
			   uint64_t *vaddr);
/* PF_R|PF_W|PF_X of the PT_LOAD holding vaddr (page-rounded), or -1. */
int mt_elf_vaddr_flags(const struct mt_elf *e, uint64_t vaddr);
/* True if vaddr is in a PT_LOAD's zero-filled tail (.bss). */
bool mt_elf_vaddr_in_bss(const struct mt_elf *e, uint64_t vaddr);
/*
 * Load bias of a mapping [start, ...) of file page offset pgoff that is the
 * first mapping of this load of the file: vaddr = address - bias.  0 on
 * success, -1 if no PT_LOAD matches pgoff.  0 for a consistent ET_EXEC.
 */
int mt_elf_load_bias(const struct mt_elf *e, uint64_t start, uint64_t pgoff,
		     uint64_t *bias);

/* Innermost symbol whose extent holds vaddr, or NULL; *off = vaddr - addr. */
const struct mt_sym *mt_elf_lookup(const struct mt_elf *e, uint64_t vaddr,
				   uint64_t *off);

/*
 * DWARF at vaddr (dwarf.c): source file and line of the line table row
 * (the innermost position), and the inlined calls that contain vaddr,
 * innermost first: frame i names the inlined function and the file:line
 * of its call site in its caller (frame i+1's function, or the symbol's
 * function for the last one).  Returns false (all zero) without DWARF.
 * Strings and the frame array live as long as e (results are cached per
 * address).
 */
struct mt_srcinfo {
	const char *file;
	unsigned line;
	size_t ninlined;
	const struct memtrace_frame *inlined;
};
bool mt_elf_srcinfo(struct mt_elf *e, uint64_t vaddr, struct mt_srcinfo *out);

/* Cache of opened files by path; failures are cached too. */
struct mt_elf_cache;

struct mt_elf_cache *mt_elf_cache_new(void);
void mt_elf_cache_free(struct mt_elf_cache *c);
/* Separate debug files (default /usr/lib/debug); before the first get. */
void mt_elf_cache_set_debug_dir(struct mt_elf_cache *c, const char *dir);
struct mt_elf *mt_elf_cache_get(struct mt_elf_cache *c, const char *path);

/* ---- internal to symbols.c / dwarf.c ---------------------------------- */
struct Dwfl_Module;
struct mt_src_cache;
struct Dwfl_Module *mt_elf_module(const struct mt_elf *e);
struct mt_src_cache **mt_elf_src_cache(struct mt_elf *e);
void mt_src_cache_free(struct mt_src_cache *c);

#endif
