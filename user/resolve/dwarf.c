/*
 * dwarf.c - source line and inlined frames of an ELF vaddr through libdw
 * (mt_elf_srcinfo in symbols.h).  Module addresses are the ELF file's
 * vaddrs (symbols.c reports every file at base 0); DWARF addresses differ
 * from them by the bias dwfl_module_addrdie returns (prelinked or separate
 * debug files).  Results are cached per vaddr so that the returned frame
 * arrays live as long as the file.
 */
#include "resolve/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

struct src_entry {
	uint64_t vaddr;
	bool used;
	struct mt_srcinfo info;
};

struct mt_src_cache {
	size_t n, cap; /* cap: power of two */
	struct src_entry *v;
};

void mt_src_cache_free(struct mt_src_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++)
		free((void *)c->v[i].info.inlined);
	free(c->v);
	free(c);
}

static struct src_entry *slot(struct src_entry *v, size_t cap, uint64_t va)
{
	size_t i = (size_t)((va * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);

	while (v[i].used && v[i].vaddr != va)
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static struct src_entry *cache_get(struct mt_src_cache **pc, uint64_t va)
{
	struct mt_src_cache *c = *pc;

	if (!c) {
		c = *pc = mt_xcalloc(1, sizeof(*c));
		c->cap = 64;
		c->v = mt_xcalloc(c->cap, sizeof(*c->v));
	}
	if (2 * (c->n + 1) > c->cap) {
		size_t ncap = 2 * c->cap;
		struct src_entry *nv = mt_xcalloc(ncap, sizeof(*nv));
		for (size_t i = 0; i < c->cap; i++)
			if (c->v[i].used)
				*slot(nv, ncap, c->v[i].vaddr) = c->v[i];
		free(c->v);
		c->v = nv;
		c->cap = ncap;
	}
	return slot(c->v, c->cap, va);
}

/* Name of a (possibly abstract-origin'ed) subprogram DIE. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	if (!s && dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		s = dwarf_formstring(&a);
	return s ? s : "??";
}

/* The call site of the inlined_subroutine die (DW_AT_call_file/line). */
static void call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles,
		      struct memtrace_frame *f)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 &&
	    files && w < nfiles)
		f->file = dwarf_filesrc(files, w, NULL, NULL);
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0)
		f->line = (unsigned)w;
}

static void inlined_frames(Dwarf_Die *cudie, Dwarf_Addr dwaddr,
			   struct mt_srcinfo *out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cudie, dwaddr, &scopes);
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, k = 0;

	if (n <= 0) {
		free(scopes);
		return;
	}
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
		files = NULL;
	struct memtrace_frame *v = mt_xcalloc((size_t)n, sizeof(*v));
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		v[k].function = die_name(&scopes[i]);
		call_site(&scopes[i], files, nfiles, &v[k]);
		k++;
	}
	free(scopes);
	if (k == 0) {
		free(v);
		return;
	}
	out->ninlined = k;
	out->inlined = v;
}

static void compute(struct mt_elf *e, uint64_t vaddr, struct mt_srcinfo *out)
{
	Dwfl_Module *mod = mt_elf_module(e);
	Dwarf_Addr bias = 0;
	Dwfl_Line *line;
	int lineno = 0;

	memset(out, 0, sizeof(*out));
	line = dwfl_module_getsrc(mod, vaddr);
	if (line) {
		const char *f = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL,
					      NULL);
		if (f && lineno > 0) {
			out->file = f;
			out->line = (unsigned)lineno;
		}
	}
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, vaddr, &bias);
	if (cudie)
		inlined_frames(cudie, vaddr - bias, out);
}

bool mt_elf_srcinfo(struct mt_elf *e, uint64_t vaddr, struct mt_srcinfo *out)
{
	struct mt_src_cache **pc = mt_elf_src_cache(e);
	struct src_entry *s = cache_get(pc, vaddr);

	if (!s->used) {
		s->used = true;
		s->vaddr = vaddr;
		compute(e, vaddr, &s->info);
		(*pc)->n++;
	}
	*out = s->info;
	return out->file || out->ninlined;
}
