/*
 * fuzz_elf.c - an ELF file as the resolver reads the files a trace's maps
 * name (user/resolve/symbols.c, dwarf.c over elfutils): PT_LOAD segments,
 * build-id, the symbol table, lookups at every symbol, load bias, .bss and
 * DWARF source lines with inlined frames.  Separate debug files are looked
 * up in a directory that does not exist.  Input: an ELF file.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "resolve/symbols.h"
#include "fuzz_input.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = fuzz_memfd(data, size, 0, path, sizeof(path));
	struct mt_elf *e = mt_elf_open(path, "/nonexistent-fuzz-root");

	if (e) {
		uint64_t off, v;
		sink += mt_elf_type(e) + mt_elf_symtab_source(e) + strlen(mt_elf_build_id(e));
		for (size_t i = 0; i < mt_elf_nsegments(e); i++) {
			const struct mt_segment *s = mt_elf_segment(e, i);
			if (mt_elf_offset_to_vaddr(e, s->offset, &v) == 0)
				sink += v;
			sink += (uint64_t)mt_elf_vaddr_flags(e, s->vaddr + s->memsz - 1);
			sink += mt_elf_vaddr_in_bss(e, s->vaddr + s->filesz);
			if (mt_elf_load_bias(e, 0x555500000000ull + s->offset, s->offset & ~0xfffull,
					     &v) == 0)
				sink += v;
		}
		size_t n = mt_elf_nsyms(e);
		for (size_t i = 0; i < n && i < 256; i++) {
			const struct mt_sym *s = mt_elf_sym(e, i);
			struct mt_srcinfo src;
			const struct mt_sym *l = mt_elf_lookup(e, s->addr + s->size / 2, &off);
			sink += strlen(s->name) + (l ? off : 0);
			if (i < 32 && mt_elf_srcinfo(e, s->addr, &src))
				sink += src.line + src.ninlined + (src.file ? strlen(src.file) : 0);
		}
		mt_elf_close(e);
	}
	close(fd);
	return 0;
}
