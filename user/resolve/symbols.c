/* symbols.c - ELF64 LE symbol tables and PT_LOAD translation (symbols.h). */
#include "resolve/symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

#define PAGE_4K 4096ull
#define MAX_PHNUM 65535u
#define MAX_SHNUM (1u << 20)
#define MAX_NOTE (64u * 1024)

struct mt_elf {
	uint16_t type;
	enum mt_symtab_source source;
	size_t nsyms;
	struct mt_sym *syms;
	uint64_t *maxend; /* maxend[i] = max(end of syms[0..i]) */
	char *strtab;     /* names point into it */
	size_t nseg;
	struct mt_segment *segs;
	char build_id[2 * 64 + 1];
};

/* ---- bounded reads from a file or a buffer ---------------------------- */

struct src {
	int fd;
	const uint8_t *mem;
	uint64_t size;
};

static bool src_read(const struct src *s, uint64_t off, uint64_t len,
		     void *dst)
{
	if (off > s->size || len > s->size - off)
		return false;
	if (s->mem) {
		memcpy(dst, s->mem + off, len);
		return true;
	}
	uint8_t *d = dst;
	while (len > 0) {
		size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
		ssize_t r = pread(s->fd, d, chunk, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false; /* error, or the file shrank */
		d += r;
		off += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return true;
}

/* Allocate and read [off, off + len); NULL if out of range.  One extra
 * zero byte is appended so string tables are always terminated. */
static void *src_read_alloc(const struct src *s, uint64_t off, uint64_t len)
{
	if (off > s->size || len > s->size - off)
		return NULL;
	uint8_t *buf = mt_xmalloc((size_t)len + 1);
	if (!src_read(s, off, len, buf)) {
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

/* ---- program headers ------------------------------------------------- */

static void parse_build_id(struct mt_elf *e, const uint8_t *p, uint64_t len,
			   uint64_t align)
{
	uint64_t pos = 0;

	if (align != 8)
		align = 4;
	while (len - pos >= 12) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + pos, 4);
		memcpy(&descsz, p + pos + 4, 4);
		memcpy(&type, p + pos + 8, 4);
		pos += 12;
		uint64_t nlen = ((uint64_t)namesz + align - 1) & ~(align - 1);
		uint64_t dlen = ((uint64_t)descsz + align - 1) & ~(align - 1);
		if (nlen > len - pos)
			return;
		const uint8_t *name = p + pos;
		pos += nlen;
		if (descsz > len - pos)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    memcmp(name, "GNU", 4) == 0 && descsz > 0 && descsz <= 64) {
			static const char hex[] = "0123456789abcdef";
			for (uint32_t i = 0; i < descsz; i++) {
				e->build_id[2 * i] = hex[p[pos + i] >> 4];
				e->build_id[2 * i + 1] = hex[p[pos + i] & 15];
			}
			e->build_id[2 * descsz] = '\0';
			return;
		}
		if (dlen > len - pos)
			return;
		pos += dlen;
	}
}

static bool read_segments(struct mt_elf *e, const struct src *s,
			  const Elf64_Ehdr *eh, uint32_t phnum)
{
	if (phnum == 0 || eh->e_phentsize != sizeof(Elf64_Phdr))
		return false;
	Elf64_Phdr *ph = src_read_alloc(s, eh->e_phoff,
					(uint64_t)phnum * sizeof(Elf64_Phdr));
	if (!ph)
		return false;
	e->segs = mt_xcalloc(phnum, sizeof(*e->segs));
	for (uint32_t i = 0; i < phnum; i++) {
		const Elf64_Phdr *p = &ph[i];
		if (p->p_type == PT_NOTE && !e->build_id[0] &&
		    p->p_filesz <= MAX_NOTE) {
			uint8_t *note = src_read_alloc(s, p->p_offset,
						       p->p_filesz);
			if (note) {
				parse_build_id(e, note, p->p_filesz,
					       p->p_align);
				free(note);
			}
		}
		if (p->p_type != PT_LOAD)
			continue;
		if (p->p_filesz > p->p_memsz ||
		    p->p_offset + p->p_filesz < p->p_offset ||
		    p->p_vaddr + p->p_memsz < p->p_vaddr || p->p_memsz == 0)
			continue;
		struct mt_segment *g = &e->segs[e->nseg++];
		g->offset = p->p_offset;
		g->filesz = p->p_filesz;
		g->vaddr = p->p_vaddr;
		g->memsz = p->p_memsz;
		g->flags = p->p_flags;
	}
	free(ph);
	return e->nseg > 0;
}

/* ---- symbol tables ---------------------------------------------------- */

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

/*
 * Load symbols of section shdr[idx] (SHT_SYMTAB or SHT_DYNSYM).  Returns
 * the number of usable symbols (0 leaves e untouched).
 */
static size_t load_symtab(struct mt_elf *e, const struct src *s,
			  const Elf64_Shdr *sh, uint32_t shnum, uint32_t idx)
{
	const Elf64_Shdr *st = &sh[idx];

	if (st->sh_entsize != 0 && st->sh_entsize != sizeof(Elf64_Sym))
		return 0;
	if (st->sh_link == 0 || st->sh_link >= shnum)
		return 0;
	const Elf64_Shdr *str = &sh[st->sh_link];
	if (str->sh_type != SHT_STRTAB || str->sh_size == 0)
		return 0;
	uint64_t count = st->sh_size / sizeof(Elf64_Sym);
	if (count == 0)
		return 0;
	Elf64_Sym *raw = src_read_alloc(s, st->sh_offset,
					count * sizeof(Elf64_Sym));
	char *strtab = src_read_alloc(s, str->sh_offset, str->sh_size);
	if (!raw || !strtab) {
		free(raw);
		free(strtab);
		return 0;
	}

	struct mt_sym *v = mt_xcalloc((size_t)count, sizeof(*v));
	uint16_t *shndx = mt_xcalloc((size_t)count, sizeof(*shndx));
	size_t n = 0;
	for (uint64_t i = 0; i < count; i++) {
		const Elf64_Sym *y = &raw[i];
		uint8_t type = ELF64_ST_TYPE(y->st_info);
		if (type != STT_FUNC && type != STT_OBJECT &&
		    type != STT_GNU_IFUNC)
			continue;
		if (y->st_shndx == SHN_UNDEF || y->st_shndx == SHN_ABS ||
		    y->st_shndx == SHN_COMMON)
			continue;
		if (y->st_name == 0 || y->st_name >= str->sh_size)
			continue;
		char *name = strtab + y->st_name;
		if (!name[0])
			continue;
		/* "environ@GLIBC_2.2.5" (versioned .symtab names) -> "environ";
		 * strings shared by suffix get the same cut, which is fine */
		char *at = strchr(name, '@');
		if (at && at != name)
			*at = '\0';
		if (y->st_size == 0 && type != STT_FUNC)
			continue;
		v[n].addr = y->st_value;
		v[n].size = y->st_size;
		v[n].name = name;
		v[n].type = type;
		v[n].bind = ELF64_ST_BIND(y->st_info);
		shndx[n] = y->st_shndx;
		n++;
	}
	free(raw);

	/*
	 * Zero-sized functions (assembly without .size) extend to the next
	 * symbol, but not past the end of their section.
	 */
	uint64_t *starts = mt_xcalloc(n ? n : 1, sizeof(*starts));
	size_t ns = 0;
	for (size_t i = 0; i < n; i++)
		starts[ns++] = v[i].addr;
	qsort(starts, ns, sizeof(*starts), cmp_u64);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].size == 0) {
			uint16_t k = shndx[i];
			if (k == 0 || k >= shnum || k >= SHN_LORESERVE ||
			    !(sh[k].sh_flags & SHF_ALLOC))
				continue;
			uint64_t send = sh[k].sh_addr + sh[k].sh_size;
			if (v[i].addr < sh[k].sh_addr || v[i].addr >= send)
				continue;
			/* first start > addr */
			size_t lo = 0, hi = ns;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (starts[mid] <= v[i].addr)
					lo = mid + 1;
				else
					hi = mid;
			}
			uint64_t end = send;
			if (lo < ns && starts[lo] < end)
				end = starts[lo];
			v[i].size = end - v[i].addr;
		}
		if (v[i].addr + v[i].size < v[i].addr)
			v[i].size = UINT64_MAX - v[i].addr; /* clamp */
		v[out++] = v[i];
	}
	free(starts);
	free(shndx);
	n = out;
	if (n == 0) {
		free(v);
		free(strtab);
		return 0;
	}

	qsort(v, n, sizeof(*v), cmp_sym);
	/* Drop aliases: same address and size, keep the best ranked. */
	out = 1;
	for (size_t i = 1; i < n; i++)
		if (v[i].addr != v[out - 1].addr || v[i].size != v[out - 1].size)
			v[out++] = v[i];
	n = out;
	e->maxend = mt_xcalloc(n, sizeof(*e->maxend));
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t end = v[i].addr + v[i].size;
		if (end > m)
			m = end;
		e->maxend[i] = m;
	}
	e->syms = v;
	e->nsyms = n;
	e->strtab = strtab;
	return n;
}

static void read_symbols(struct mt_elf *e, const struct src *s,
			 const Elf64_Ehdr *eh)
{
	uint64_t shnum = eh->e_shnum;

	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr))
		return;
	if (shnum == 0) { /* extended numbering: count in section 0 */
		Elf64_Shdr s0;
		if (!src_read(s, eh->e_shoff, sizeof(s0), &s0))
			return;
		shnum = s0.sh_size;
	}
	if (shnum == 0 || shnum > MAX_SHNUM)
		return;
	Elf64_Shdr *sh = src_read_alloc(s, eh->e_shoff,
					shnum * sizeof(Elf64_Shdr));
	if (!sh)
		return;
	static const uint32_t order[2] = { SHT_SYMTAB, SHT_DYNSYM };
	for (int o = 0; o < 2 && e->nsyms == 0; o++) {
		for (uint32_t i = 0; i < shnum; i++) {
			if (sh[i].sh_type != order[o])
				continue;
			if (load_symtab(e, s, sh, (uint32_t)shnum, i)) {
				e->source = o == 0 ? MT_SYMS_SYMTAB
						   : MT_SYMS_DYNSYM;
				break;
			}
		}
	}
	free(sh);
}

static struct mt_elf *elf_load(const struct src *s)
{
	Elf64_Ehdr eh;

	if (!src_read(s, 0, sizeof(eh), &eh))
		return NULL;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return NULL;

	struct mt_elf *e = mt_xcalloc(1, sizeof(*e));
	e->type = eh.e_type;
	uint32_t phnum = eh.e_phnum;
	if (phnum == PN_XNUM && eh.e_shoff && eh.e_shentsize == sizeof(Elf64_Shdr)) {
		Elf64_Shdr s0;
		phnum = src_read(s, eh.e_shoff, sizeof(s0), &s0) &&
				s0.sh_info <= MAX_PHNUM ? s0.sh_info : 0;
	}
	if (!read_segments(e, s, &eh, phnum)) {
		mt_elf_close(e);
		return NULL;
	}
	read_symbols(e, s, &eh);
	return e;
}

struct mt_elf *mt_elf_open(const char *path)
{
	struct stat st;
	struct src s = { .fd = -1 };
	struct mt_elf *e = NULL;

	/* Only regular files: opening a mapped device node (GPU, /dev/mem)
	 * could have side effects; O_NONBLOCK in case it is swapped for a
	 * FIFO between stat and open. */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return NULL;
	s.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (s.fd < 0)
		return NULL;
	if (fstat(s.fd, &st) == 0 && S_ISREG(st.st_mode)) {
		s.size = (uint64_t)st.st_size;
		e = elf_load(&s);
	}
	close(s.fd);
	return e;
}

struct mt_elf *mt_elf_from_memory(const void *buf, size_t len)
{
	struct src s = { .fd = -1, .mem = buf, .size = len };

	if (!buf)
		return NULL;
	return elf_load(&s);
}

void mt_elf_close(struct mt_elf *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->maxend);
	free(e->strtab);
	free(e->segs);
	free(e);
}

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

bool mt_elf_vaddr_loaded(const struct mt_elf *e, uint64_t vaddr)
{
	for (size_t i = 0; i < e->nseg; i++) {
		const struct mt_segment *g = &e->segs[i];
		/* the kernel maps whole pages: allow the page-rounded span */
		uint64_t lo = g->vaddr & ~(PAGE_4K - 1);
		uint64_t hi = g->vaddr + g->memsz;
		if (vaddr >= lo && vaddr < hi)
			return true;
	}
	return false;
}

int mt_elf_vaddr_flags(const struct mt_elf *e, uint64_t vaddr)
{
	for (size_t i = 0; i < e->nseg; i++) {
		const struct mt_segment *g = &e->segs[i];
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
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
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

/*
 * A file without .symtab may have its full symbol table in a separate debug
 * file found by build-id (Debian's -dbgsym packages):
 * DIR/.build-id/ab/cdef....debug.  Adopt its symbols if its build-id is
 * the same.
 */
static void adopt_debug_symbols(struct mt_elf *e, const char *dir)
{
	size_t n = strlen(dir) + sizeof(e->build_id) + 32;
	char *path;

	if (e->source == MT_SYMS_SYMTAB || strlen(e->build_id) < 4)
		return;
	path = mt_xmalloc(n);
	snprintf(path, n, "%s/.build-id/%.2s/%s.debug", dir, e->build_id,
		 e->build_id + 2);
	struct mt_elf *d = mt_elf_open(path);
	free(path);
	if (d && d->source == MT_SYMS_SYMTAB &&
	    strcmp(d->build_id, e->build_id) == 0) {
		free(e->syms);
		free(e->maxend);
		free(e->strtab);
		e->syms = d->syms;
		e->maxend = d->maxend;
		e->strtab = d->strtab;
		e->nsyms = d->nsyms;
		e->source = MT_SYMS_DEBUGFILE;
		d->syms = NULL;
		d->maxend = NULL;
		d->strtab = NULL;
	}
	mt_elf_close(d);
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
	s->elf = mt_elf_open(path);
	if (s->elf)
		adopt_debug_symbols(s->elf, c->debug_dir ? c->debug_dir
							 : "/usr/lib/debug");
	c->n++;
	return s->elf;
}
