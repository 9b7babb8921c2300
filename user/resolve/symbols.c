/* symbols.c - ELF segments and symbols through elfutils (symbols.h). */
#include "resolve/symbols.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "util/search.h"

#define PAGE_4K 4096ull

struct mt_elf {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwfl_Callbacks cb;
	char *debuginfo_path; /* cb.debuginfo_path points here */
	uint16_t type;
	enum mt_symtab_source source;
	size_t nseg;
	struct mt_segment *segs;
	size_t nsyms;
	struct mt_sym *syms;
	uint64_t *maxend; /* maxend[i]: max end of syms[0..i] */
	size_t nowned;
	char **owned;     /* names cut at '@' */
	char build_id[2 * 64 + 1];
	struct mt_src_cache *src;
};

/*
 * The file is reported with its path (dwfl_report_elf opens it), so
 * find_elf only runs for modules reported without a file: none here.
 */
static int find_elf_none(Dwfl_Module *mod, void **userdata,
			 const char *modname, Dwarf_Addr base,
			 char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base;
	(void)file_name;
	*elfp = NULL;
	return -1;
}

static int try_open(const char *dir, const char *sub, const char *name,
		    char **debuginfo_file_name)
{
	size_t n = strlen(dir) + strlen(sub) + strlen(name) + 3;
	char *p = mt_xmalloc(n);
	int fd;

	snprintf(p, n, "%s/%s%s", dir, sub, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = p;
	else
		free(p);
	return fd;
}

/*
 * dwfl_standard_find_debuginfo without its debuginfod step (which dlopens
 * libdebuginfod and curl on every run, ~7 ms, and may go to the network):
 * DEBUG_DIR/.build-id/xx/yyyy.debug, then the .gnu_debuglink name (or
 * NAME.debug) in the file's directory, its .debug/, and DEBUG_DIR/DIR/.
 * libdwfl checks that a found file's build-id matches.
 */
static int find_debuginfo_local(Dwfl_Module *mod, void **userdata,
				const char *modname, Dwarf_Addr base,
				const char *file_name, const char *debuglink_file,
				GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
					      file_name, debuglink_file,
					      debuglink_crc, debuginfo_file_name);
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	const char *debug_dir = *userdata;
	char dir[4096], name[512];

	if (fd >= 0 || !slash || (size_t)(slash - file_name) >= sizeof(dir))
		return fd;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file_name), file_name);
	if (debuglink_file)
		snprintf(name, sizeof(name), "%s", debuglink_file);
	else
		snprintf(name, sizeof(name), "%s.debug", slash + 1);
	if (strcmp(name, slash + 1) != 0 &&
	    (fd = try_open(dir, "", name, debuginfo_file_name)) >= 0)
		return fd;
	if ((fd = try_open(dir, ".debug/", name, debuginfo_file_name)) >= 0)
		return fd;
	char sub[4200];
	snprintf(sub, sizeof(sub), "%s/", dir[0] == '/' ? dir + 1 : dir);
	return try_open(debug_dir, sub, name, debuginfo_file_name);
}

/* ---- segments --------------------------------------------------------- */

static bool read_segments(struct mt_elf *e, Elf *elf)
{
	size_t phnum;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &phnum) != 0 ||
	    phnum == 0)
		return false;
	e->type = eh.e_type;
	e->segs = mt_xcalloc(phnum, sizeof(*e->segs));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_filesz > ph.p_memsz ||
		    ph.p_offset + ph.p_filesz < ph.p_offset ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr || ph.p_memsz == 0)
			continue;
		e->segs[e->nseg++] = (struct mt_segment){
			.offset = ph.p_offset, .filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.flags = ph.p_flags,
		};
	}
	return e->nseg > 0;
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

/* ---- symbols ---------------------------------------------------------- */

static int rank(const struct mt_sym *s)
{
	int r = s->bind == STB_GLOBAL ? 0 : s->bind == STB_WEAK ? 4 : 8;
	return r + (s->type == STT_FUNC ? 0 : s->type == STT_OBJECT ? 1 : 2);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct mt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1; /* larger first */
	/* aliases: "getpid" over "__getpid", then GLOBAL, WEAK, LOCAL */
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (rank(x) != rank(y))
		return rank(x) - rank(y);
	return strcmp(x->name, y->name);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Section [lo, hi) of a symbol in module addresses; false if not SHF_ALLOC. */
static bool sym_section(Elf *elf, GElf_Word shndx, uint64_t delta,
			uint64_t *lo, uint64_t *hi)
{
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return false;
	*lo = sh.sh_addr + delta;
	*hi = *lo + sh.sh_size;
	return *hi >= *lo;
}

static const char *own_name(struct mt_elf *e, const char *name)
{
	const char *at = strchr(name, '@');

	if (!at || at == name)
		return name;
	e->owned = mt_xrealloc(e->owned, (e->nowned + 1) * sizeof(*e->owned));
	e->owned[e->nowned] = strndup(name, (size_t)(at - name));
	if (!e->owned[e->nowned])
		abort();
	return e->owned[e->nowned++];
}

/* Section bounds of zero-sized functions, parallel to the symbol array. */
struct zero_extent {
	uint64_t lo, hi;
};

static size_t collect_symbols(struct mt_elf *e, Elf *main_elf, int count,
			      struct zero_extent *zx, bool *from_other)
{
	size_t n = 0;

	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;
		const char *name = dwfl_module_getsym_info(
			e->mod, i, &sym, &addr, &shndx, &elf, &bias);
		uint8_t type = GELF_ST_TYPE(sym.st_info);

		if (!name || !name[0] || name[0] == '@')
			continue;
		if (type != STT_FUNC && type != STT_OBJECT &&
		    type != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    sym.st_shndx == SHN_COMMON || shndx == SHN_UNDEF)
			continue;
		if (sym.st_size == 0 && type != STT_FUNC)
			continue;
		zx[n].lo = zx[n].hi = 0;
		if (sym.st_size == 0 &&
		    !sym_section(elf, shndx, addr - sym.st_value, &zx[n].lo,
				 &zx[n].hi))
			continue;
		if (elf != main_elf)
			*from_other = true;
		e->syms[n] = (struct mt_sym){
			.addr = addr, .size = sym.st_size,
			.name = own_name(e, name), .type = type,
			.bind = GELF_ST_BIND(sym.st_info),
		};
		n++;
	}
	return n;
}

/*
 * Zero-sized functions (assembly without .size) extend to the next symbol,
 * but not past the end of their section.  Returns the kept count.
 */
static size_t size_zero_functions(struct mt_elf *e, size_t n,
				  const struct zero_extent *zx)
{
	uint64_t *starts = mt_xcalloc(n ? n : 1, sizeof(*starts));
	size_t out = 0;

	for (size_t i = 0; i < n; i++)
		starts[i] = e->syms[i].addr;
	qsort(starts, n, sizeof(*starts), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		struct mt_sym *s = &e->syms[i];
		if (s->size == 0) {
			if (s->addr < zx[i].lo || s->addr >= zx[i].hi)
				continue;
			size_t lo = 0, hi = n; /* first start > addr */
			MT_PARTITION_POINT(lo, hi, mid, starts[mid] <= s->addr);
			uint64_t end = zx[i].hi;
			if (lo < n && starts[lo] < end)
				end = starts[lo];
			s->size = end - s->addr;
		}
		if (s->addr + s->size < s->addr)
			s->size = UINT64_MAX - s->addr; /* clamp */
		e->syms[out++] = *s;
	}
	free(starts);
	return out;
}

static void read_symbols(struct mt_elf *e, Elf *main_elf)
{
	int count = dwfl_module_getsymtab(e->mod);
	bool from_other = false;

	if (count <= 1)
		return;
	e->syms = mt_xcalloc((size_t)count, sizeof(*e->syms));
	struct zero_extent *zx = mt_xcalloc((size_t)count, sizeof(*zx));
	size_t n = collect_symbols(e, main_elf, count, zx, &from_other);
	n = size_zero_functions(e, n, zx);
	free(zx);
	if (n == 0)
		return;
	qsort(e->syms, n, sizeof(*e->syms), cmp_sym);
	/* Drop aliases: same address and size, keep the best ranked. */
	size_t out = 1;
	for (size_t i = 1; i < n; i++)
		if (e->syms[i].addr != e->syms[out - 1].addr ||
		    e->syms[i].size != e->syms[out - 1].size)
			e->syms[out++] = e->syms[i];
	n = out;
	e->maxend = mt_xcalloc(n, sizeof(*e->maxend));
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t end = e->syms[i].addr + e->syms[i].size;
		if (end > m)
			m = end;
		e->maxend[i] = m;
	}
	e->nsyms = n;
	e->source = has_symtab(main_elf) ? MT_SYMS_SYMTAB
		    : from_other	     ? MT_SYMS_DEBUGFILE
					     : MT_SYMS_DYNSYM;
}

static void read_build_id(struct mt_elf *e)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(e->mod, &bits, &vaddr);

	for (int i = 0; i < len && i < 64; i++)
		snprintf(e->build_id + 2 * i, 3, "%02x", bits[i]);
}

/* ---- open ------------------------------------------------------------- */

struct mt_elf *mt_elf_open(const char *path, const char *debug_dir)
{
	struct mt_elf *e = mt_xcalloc(1, sizeof(*e));
	Elf *elf;
	Dwarf_Addr bias;

	if (!debug_dir || !debug_dir[0])
		debug_dir = "/usr/lib/debug";
	/* build-id lookup only uses absolute entries: DEBUG_DIR */
	e->debuginfo_path = mt_xstrdup(debug_dir);
	e->cb.find_elf = find_elf_none;
	e->cb.find_debuginfo = find_debuginfo_local;
	e->cb.debuginfo_path = &e->debuginfo_path;
	/* a relocatable file (ET_REL) has its sections placed by this callback;
	 * libdwfl calls it without a NULL check (fuzz_elf: a crafted ET_REL
	 * crashed dwfl_module_getsym_info through a NULL function pointer) */
	e->cb.section_address = dwfl_offline_section_address;
	e->dwfl = dwfl_begin(&e->cb);
	if (!e->dwfl)
		goto fail;
	dwfl_report_begin(e->dwfl);
	/* base 0, add_p_vaddr: module addresses are the file's vaddrs */
	e->mod = dwfl_report_elf(e->dwfl, path, path, -1, 0, true);
	dwfl_report_end(e->dwfl, NULL, NULL);
	if (!e->mod)
		goto fail;
	/* find_debuginfo_local's userdata: the debug dir */
	void **ud = NULL;
	dwfl_module_info(e->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (ud)
		*ud = e->debuginfo_path;
	elf = dwfl_module_getelf(e->mod, &bias);
	if (!elf || bias != 0 || !read_segments(e, elf))
		goto fail;
	read_build_id(e);
	read_symbols(e, elf);
	return e;
fail:
	mt_elf_close(e);
	return NULL;
}

void mt_elf_close(struct mt_elf *e)
{
	if (!e)
		return;
	mt_src_cache_free(e->src);
	if (e->dwfl)
		dwfl_end(e->dwfl);
	for (size_t i = 0; i < e->nowned; i++)
		free(e->owned[i]);
	free(e->owned);
	free(e->syms);
	free(e->maxend);
	free(e->segs);
	free(e->debuginfo_path);
	free(e);
}

struct Dwfl_Module *mt_elf_module(const struct mt_elf *e)
{
	return e->mod;
}

struct mt_src_cache **mt_elf_src_cache(struct mt_elf *e)
{
	return &e->src;
}

/* ---- queries ---------------------------------------------------------- */

uint16_t mt_elf_type(const struct mt_elf *e)
{
	return e->type;
}

enum mt_symtab_source mt_elf_symtab_source(const struct mt_elf *e)
{
	return e->source;
}

size_t mt_elf_nsyms(const struct mt_elf *e)
{
	return e->nsyms;
}

const struct mt_sym *mt_elf_sym(const struct mt_elf *e, size_t i)
{
	return i < e->nsyms ? &e->syms[i] : NULL;
}

size_t mt_elf_nsegments(const struct mt_elf *e)
{
	return e->nseg;
}

const struct mt_segment *mt_elf_segment(const struct mt_elf *e, size_t i)
{
	return i < e->nseg ? &e->segs[i] : NULL;
}

const char *mt_elf_build_id(const struct mt_elf *e)
{
	return e->build_id;
}

int mt_elf_offset_to_vaddr(const struct mt_elf *e, uint64_t off,
			   uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nseg; i++) {
		const struct mt_segment *g = &e->segs[i];
		if (off >= g->offset && off - g->offset < g->filesz) {
			*vaddr = g->vaddr + (off - g->offset);
			return 0;
		}
	}
	return -1;
}

int mt_elf_vaddr_flags(const struct mt_elf *e, uint64_t vaddr)
{
	for (size_t i = 0; i < e->nseg; i++) {
		const struct mt_segment *g = &e->segs[i];
		/* the kernel maps whole pages: allow the page-rounded span */
		uint64_t lo = g->vaddr & ~(PAGE_4K - 1);
		if (vaddr >= lo && vaddr < g->vaddr + g->memsz)
			return (int)(g->flags & (PF_R | PF_W | PF_X));
	}
	return -1;
}

bool mt_elf_vaddr_in_bss(const struct mt_elf *e, uint64_t vaddr)
{
	for (size_t i = 0; i < e->nseg; i++) {
		const struct mt_segment *g = &e->segs[i];
		if (g->memsz > g->filesz && vaddr >= g->vaddr + g->filesz &&
		    vaddr - g->vaddr < g->memsz)
			return true;
	}
	return false;
}

int mt_elf_load_bias(const struct mt_elf *e, uint64_t start, uint64_t pgoff,
		     uint64_t *bias)
{
	/* The segment whose first file page is the mapping's offset... */
	for (size_t i = 0; i < e->nseg; i++) {
		const struct mt_segment *g = &e->segs[i];
		if ((g->offset & ~(PAGE_4K - 1)) == pgoff) {
			*bias = start - (g->vaddr - (g->offset - pgoff));
			return 0;
		}
	}
	/* ...else one that holds it (a mapping split by mprotect). */
	for (size_t i = 0; i < e->nseg; i++) {
		const struct mt_segment *g = &e->segs[i];
		if (pgoff >= g->offset && pgoff - g->offset < g->filesz) {
			*bias = start - (g->vaddr + (pgoff - g->offset));
			return 0;
		}
	}
	return -1;
}

const struct mt_sym *mt_elf_lookup(const struct mt_elf *e, uint64_t vaddr,
				   uint64_t *off)
{
	size_t lo = 0, hi = e ? e->nsyms : 0;

	/* Last symbol with addr <= vaddr. */
	MT_PARTITION_POINT(lo, hi, mid, e->syms[mid].addr <= vaddr);
	/* Walk back to the innermost one that contains vaddr. */
	for (size_t k = lo; k > 0; k--) {
		const struct mt_sym *s = &e->syms[k - 1];
		if (e->maxend[k - 1] <= vaddr)
			break;
		if (vaddr - s->addr < s->size) {
			if (off)
				*off = vaddr - s->addr;
			return s;
		}
	}
	return NULL;
}

/* ---- cache ------------------------------------------------------------ */

struct cache_slot {
	char *path;
	struct mt_elf *elf;
};

struct mt_elf_cache {
	size_t n, cap; /* cap is a power of two */
	struct cache_slot *slots;
	char *debug_dir; /* NULL: /usr/lib/debug */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

struct mt_elf_cache *mt_elf_cache_new(void)
{
	struct mt_elf_cache *c = mt_xcalloc(1, sizeof(*c));

	c->cap = 64;
	c->slots = mt_xcalloc(c->cap, sizeof(*c->slots));
	return c;
}

void mt_elf_cache_free(struct mt_elf_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++) {
		free(c->slots[i].path);
		mt_elf_close(c->slots[i].elf);
	}
	free(c->slots);
	free(c->debug_dir);
	free(c);
}

static struct cache_slot *cache_slot(struct cache_slot *slots, size_t cap,
				     const char *path)
{
	size_t i = (size_t)hash_str(path) & (cap - 1);

	while (slots[i].path && strcmp(slots[i].path, path) != 0)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

void mt_elf_cache_set_debug_dir(struct mt_elf_cache *c, const char *dir)
{
	free(c->debug_dir);
	c->debug_dir = dir && dir[0] ? mt_xstrdup(dir) : NULL;
}

struct mt_elf *mt_elf_cache_get(struct mt_elf_cache *c, const char *path)
{
	struct cache_slot *s = cache_slot(c->slots, c->cap, path);

	if (s->path)
		return s->elf;
	if (2 * (c->n + 1) > c->cap) {
		size_t ncap = c->cap * 2;
		struct cache_slot *ns = mt_xcalloc(ncap, sizeof(*ns));
		for (size_t i = 0; i < c->cap; i++)
			if (c->slots[i].path)
				*cache_slot(ns, ncap, c->slots[i].path) =
					c->slots[i];
		free(c->slots);
		c->slots = ns;
		c->cap = ncap;
		s = cache_slot(c->slots, c->cap, path);
	}
	s->path = mt_xstrdup(path);
	s->elf = mt_elf_open(path, c->debug_dir);
	c->n++;
	return s->elf;
}
