/*
 * test_symbols.c - unit tests of user/symbols.c and user/resolve.c:
 *  - a synthetic ELF built in memory (exact symbol-lookup semantics),
 *  - the test binary itself (/proc/self/exe, own function addresses),
 *  - small programs compiled at test time with cc: PIE, -no-pie, -static,
 *    -static-pie, stripped, stripped -rdynamic, a shared object and a
 *    stripped shared object; each prints its own symbol addresses and its
 *    /proc/self/maps, so every expected string is exact,
 *  - truncated, mutated and garbage ELF files (no crash; ASan build too).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve/resolve.h"
#include "resolve/symbols.h"
#include "test.h"

/* ---- helpers ---------------------------------------------------------- */

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				abort();
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int write_all(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	size_t w = fwrite(buf, 1, len, f);
	return fclose(f) == 0 && w == len ? 0 : -1;
}

static char tmpdir[128];

static const char *tmp_path(const char *name)
{
	static char bufs[8][256];
	static int next;
	char *b = bufs[next++ & 7];

	if (!tmpdir[0]) {
		/* $TMPDIR if set (the test runs programs it builds there) */
		const char *t = getenv("TMPDIR");
		if (!t || !t[0] || strlen(t) > 80)
			t = "/tmp";
		snprintf(tmpdir, sizeof(tmpdir), "%s/mt-symtest-XXXXXX", t);
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			abort();
		}
	}
	snprintf(b, 256, "%s/%s", tmpdir, name);
	return b;
}

/*
 * Expected "region+0xoff" for addr from a maps text, parsed here with
 * sscanf independently of maps.c.  Returns 0 if found; *anon set for a
 * mapping without a name.
 */
static int expect_region(const char *maps, uint64_t addr, char *region,
			 size_t len, uint64_t *off, int *anon)
{
	const char *p = maps;

	while (*p) {
		unsigned long long s, e, o, ino;
		unsigned maj, mn;
		char perms[8];
		int pos = 0;
		if (sscanf(p, "%llx-%llx %7s %llx %x:%x %llu%n", &s, &e, perms,
			   &o, &maj, &mn, &ino, &pos) == 7 &&
		    addr >= s && addr < e) {
			const char *path = p + pos;
			while (*path == ' ')
				path++;
			const char *nl = strchr(path, '\n');
			size_t plen = nl ? (size_t)(nl - path) : strlen(path);
			*anon = plen == 0;
			if (plen == 0) {
				snprintf(region, len, "[anon]");
				*off = addr - s;
			} else if (path[0] == '/') {
				const char *b = path + plen;
				while (b > path && b[-1] != '/')
					b--;
				snprintf(region, len, "%.*s",
					 (int)(path + plen - b), b);
				*off = addr - s + o;
			} else {
				snprintf(region, len, "%.*s", (int)plen, path);
				*off = addr - s;
			}
			return 0;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return -1;
}

/* ---- a synthetic ELF -------------------------------------------------- */

#define SYN_SIZE (0x3000 + 6 * sizeof(Elf64_Shdr))

struct syn_sym {
	const char *name;
	uint64_t value, size;
	uint8_t type, bind;
	uint16_t shndx;
};

static const struct syn_sym syn_syms[] = {
	{ "outer", 0x1000, 0x100, STT_FUNC, STB_GLOBAL, 1 },
	{ "inner", 0x1040, 0x10, STT_FUNC, STB_LOCAL, 1 },
	{ "zlocal", 0x1200, 0x20, STT_FUNC, STB_LOCAL, 1 },
	{ "alias_global", 0x1200, 0x20, STT_FUNC, STB_GLOBAL, 1 },
	{ "_alias_weak", 0x1200, 0x20, STT_FUNC, STB_WEAK, 1 },
	{ "asm_fn", 0x1300, 0, STT_FUNC, STB_GLOBAL, 1 },
	{ "next_fn", 0x1380, 0x80, STT_FUNC, STB_GLOBAL, 1 },
	{ "label", 0x1500, 0, STT_NOTYPE, STB_LOCAL, 1 },
	{ "last_asm", 0x1700, 0, STT_FUNC, STB_LOCAL, 1 },
	{ "ext_undef", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF },
	{ "abs_sym", 0x1100, 0x10, STT_OBJECT, STB_GLOBAL, SHN_ABS },
	{ "tls_var", 0x10, 8, STT_TLS, STB_GLOBAL, 4 },
	{ "obj", 0x4000, 0x1000, STT_OBJECT, STB_GLOBAL, 4 },
	{ "data_obj", 0x3f00, 0x40, STT_OBJECT, STB_GLOBAL, 5 },
};
#define SYN_NSYMS (sizeof(syn_syms) / sizeof(syn_syms[0]))

/*
 * ET_DYN (or ET_EXEC at base) with two PT_LOADs:
 *   [0] off 0      vaddr base+0      filesz 0x2100 memsz 0x2100 R X
 *   [1] off 0x2f00 vaddr base+0x3f00 filesz 0x100  memsz 0x5000 R W
 * sections: 1 .text 0x1000+0x800, 2 .symtab, 3 .strtab, 4 .bss
 * 0x4000+0x4f00 (NOBITS), 5 .data 0x3f00+0x100.
 */
static uint8_t *build_syn(uint16_t type, uint64_t base, size_t *len)
{
	uint8_t *f = calloc(1, SYN_SIZE);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	Elf64_Phdr *ph = (Elf64_Phdr *)(f + 64);
	char *str = (char *)f + 0x200;
	Elf64_Sym *sym = (Elf64_Sym *)(f + 0x400);
	Elf64_Shdr *sh = (Elf64_Shdr *)(f + 0x3000);
	size_t strpos = 1;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = type;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = 64;
	eh->e_shoff = 0x3000;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 6;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_offset = 0, .p_vaddr = base,
			      .p_filesz = 0x2100, .p_memsz = 0x2100,
			      .p_align = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W,
			      .p_offset = 0x2f00, .p_vaddr = base + 0x3f00,
			      .p_filesz = 0x100, .p_memsz = 0x5000,
			      .p_align = 0x1000 };
	for (size_t i = 0; i < SYN_NSYMS; i++) {
		const struct syn_sym *s = &syn_syms[i];
		Elf64_Sym *y = &sym[i + 1];
		size_t n = strlen(s->name) + 1;
		memcpy(str + strpos, s->name, n);
		y->st_name = (uint32_t)strpos;
		strpos += n;
		y->st_info = ELF64_ST_INFO(s->bind, s->type);
		y->st_shndx = s->shndx;
		y->st_value = s->shndx == SHN_UNDEF ? 0
			      : s->type == STT_TLS || s->shndx == SHN_ABS
				      ? s->value
				      : base + s->value;
		y->st_size = s->size;
	}
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = base + 0x1000, .sh_offset = 0x1000,
			      .sh_size = 0x800 };
	sh[2] = (Elf64_Shdr){ .sh_type = SHT_SYMTAB, .sh_offset = 0x400,
			      .sh_size = (SYN_NSYMS + 1) * sizeof(Elf64_Sym),
			      .sh_link = 3, .sh_entsize = sizeof(Elf64_Sym) };
	sh[3] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = 0x200,
			      .sh_size = strpos };
	sh[4] = (Elf64_Shdr){ .sh_type = SHT_NOBITS,
			      .sh_flags = SHF_ALLOC | SHF_WRITE,
			      .sh_addr = base + 0x4000, .sh_offset = 0x3000,
			      .sh_size = 0x4f00 };
	sh[5] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS,
			      .sh_flags = SHF_ALLOC | SHF_WRITE,
			      .sh_addr = base + 0x3f00, .sh_offset = 0x2f00,
			      .sh_size = 0x100 };
	*len = SYN_SIZE;
	return f;
}

static void check_sym(const struct mt_elf *e, uint64_t vaddr,
		      const char *want, uint64_t want_off, int line)
{
	uint64_t off = 12345;
	const struct mt_sym *s = mt_elf_lookup(e, vaddr, &off);

	if (!want) {
		if (s)
			TEST_FAIL("line %d: 0x%" PRIx64 " -> %s, expected none",
				  line, vaddr, s->name);
		return;
	}
	if (!s || strcmp(s->name, want) != 0 || off != want_off)
		TEST_FAIL("line %d: 0x%" PRIx64 " -> %s+0x%" PRIx64
			  ", expected %s+0x%" PRIx64,
			  line, vaddr, s ? s->name : "(none)", s ? off : 0,
			  want, want_off);
}
#define SYM(e, va, name, off) check_sym(e, va, name, off, __LINE__)

TEST(synthetic_lookup)
{
	size_t len;
	uint8_t *f = build_syn(ET_DYN, 0, &len);
	struct mt_elf *e = mt_elf_from_memory(f, len);

	free(f);
	CHECK(e != NULL);
	if (!e)
		return;
	CHECK_EQ_U64(mt_elf_type(e), ET_DYN);
	CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_SYMTAB);
	/* outer inner alias_global asm_fn next_fn last_asm data_obj obj */
	CHECK_EQ_U64(mt_elf_nsyms(e), 8);
	CHECK_EQ_U64(mt_elf_nsegments(e), 2);
	CHECK_STR(mt_elf_build_id(e), "");
	for (size_t i = 1; i < mt_elf_nsyms(e); i++)
		CHECK(mt_elf_sym(e, i - 1)->addr <= mt_elf_sym(e, i)->addr);
	CHECK(mt_elf_sym(e, mt_elf_nsyms(e)) == NULL);

	SYM(e, 0xfff, NULL, 0);
	SYM(e, 0x1000, "outer", 0);
	SYM(e, 0x103f, "outer", 0x3f);
	SYM(e, 0x1040, "inner", 0);     /* innermost wins */
	SYM(e, 0x104f, "inner", 0xf);
	SYM(e, 0x1050, "outer", 0x50);  /* after the nested one */
	SYM(e, 0x10ff, "outer", 0xff);
	SYM(e, 0x1100, NULL, 0);        /* end exclusive; ABS ignored */
	SYM(e, 0x1200, "alias_global", 0);
	SYM(e, 0x121f, "alias_global", 0x1f);
	SYM(e, 0x1220, NULL, 0);
	SYM(e, 0x1300, "asm_fn", 0);    /* zero size: up to next_fn */
	SYM(e, 0x137f, "asm_fn", 0x7f);
	SYM(e, 0x1380, "next_fn", 0);
	SYM(e, 0x1400, NULL, 0);
	SYM(e, 0x1500, NULL, 0);        /* NOTYPE label ignored */
	SYM(e, 0x17ff, "last_asm", 0xff); /* up to the section end */
	SYM(e, 0x1800, NULL, 0);
	SYM(e, 0x10, NULL, 0);          /* TLS offsets are not addresses */
	SYM(e, 0x3f3f, "data_obj", 0x3f);
	SYM(e, 0x3f40, NULL, 0);
	SYM(e, 0x4000, "obj", 0);
	SYM(e, 0x4fff, "obj", 0xfff);
	SYM(e, 0x5000, NULL, 0);
	SYM(e, UINT64_MAX, NULL, 0);

	uint64_t va = 0, bias = 0;
	CHECK(mt_elf_offset_to_vaddr(e, 0x1234, &va) == 0 && va == 0x1234);
	CHECK(mt_elf_offset_to_vaddr(e, 0x20ff, &va) == 0 && va == 0x20ff);
	CHECK(mt_elf_offset_to_vaddr(e, 0x2100, &va) == -1);
	CHECK(mt_elf_offset_to_vaddr(e, 0x2f10, &va) == 0 && va == 0x3f10);
	CHECK(mt_elf_offset_to_vaddr(e, 0x3000, &va) == -1);
	CHECK(!mt_elf_vaddr_in_bss(e, 0x3fff));
	CHECK(mt_elf_vaddr_in_bss(e, 0x4000));
	CHECK(mt_elf_vaddr_in_bss(e, 0x8eff));
	CHECK(!mt_elf_vaddr_in_bss(e, 0x8f00));
	CHECK(mt_elf_vaddr_loaded(e, 0x3000)); /* page-rounded start */
	CHECK(!mt_elf_vaddr_loaded(e, 0x2fff));
	CHECK(!mt_elf_vaddr_loaded(e, 0x8f00));
	CHECK(mt_elf_load_bias(e, 0x7f0000000000ull, 0, &bias) == 0);
	CHECK_EQ_U64(bias, 0x7f0000000000ull);
	/* the data mapping starts at file page 0x2000 = vaddr 0x3000 */
	CHECK(mt_elf_load_bias(e, 0x7f0000003000ull, 0x2000, &bias) == 0);
	CHECK_EQ_U64(bias, 0x7f0000000000ull);
	CHECK(mt_elf_load_bias(e, 0x7f0000003000ull, 0x5000, &bias) == -1);
	mt_elf_close(e);
}

TEST(synthetic_extended_numbering)
{
	size_t len;
	uint8_t *f = build_syn(ET_DYN, 0, &len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	Elf64_Shdr *sh0 = (Elf64_Shdr *)(f + eh->e_shoff);

	/* e_shnum 0: the count is in section 0's sh_size; e_phnum PN_XNUM:
	 * in its sh_info */
	eh->e_shnum = 0;
	sh0->sh_size = 6;
	eh->e_phnum = PN_XNUM;
	sh0->sh_info = 2;
	struct mt_elf *e = mt_elf_from_memory(f, len);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_nsyms(e), 8);
		CHECK_EQ_U64(mt_elf_nsegments(e), 2);
		SYM(e, 0x1040, "inner", 0);
		mt_elf_close(e);
	}
	/* a symbol table with a bad entry size is ignored */
	eh->e_shnum = 6;
	eh->e_phnum = 2;
	((Elf64_Shdr *)(f + eh->e_shoff))[2].sh_entsize = 23;
	e = mt_elf_from_memory(f, len);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_nsyms(e), 0);
		CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_NONE);
		mt_elf_close(e);
	}
	free(f);
}

static void add_syn_maps(struct resolver *r, uint32_t pid, uint64_t s,
			 const char *path)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "%" PRIx64 "-%" PRIx64 " r-xp 00000000 08:01 77 %s\n"
		 "%" PRIx64 "-%" PRIx64 " ---p 00002000 08:01 77 %s\n"
		 "%" PRIx64 "-%" PRIx64 " rw-p 00002000 08:01 77 %s\n"
		 "%" PRIx64 "-%" PRIx64 " rw-p 00000000 00:00 0\n",
		 s, s + 0x2000, path, s + 0x2000, s + 0x3000, path,
		 s + 0x3000, s + 0x4000, path, s + 0x4000, s + 0x9000);
	resolver_add_maps(r, 0, pid, text, strlen(text));
}

TEST(synthetic_resolve)
{
	size_t len;
	uint8_t *dyn = build_syn(ET_DYN, 0, &len);
	uint8_t *exe = build_syn(ET_EXEC, 0x400000, &len);
	char dynp[256], exep[256], buf[256];

	snprintf(dynp, sizeof(dynp), "%s", tmp_path("syn.so"));
	snprintf(exep, sizeof(exep), "%s", tmp_path("syn exe"));
	CHECK(write_all(dynp, dyn, len) == 0);
	CHECK(write_all(exep, exe, len) == 0);
	free(dyn);
	free(exe);

	struct resolver *r = resolver_new();
	const uint64_t S = 0x7f1234560000ull;
	add_syn_maps(r, 1, S, dynp);
	add_syn_maps(r, 2, 0x400000, exep);

	CHECK_EQ_U64(resolver_describe(r, 1, 0, S + 0x1210, buf, sizeof(buf)),
		     MT_RESOLVE_SYMBOL);
	CHECK_STR(buf, "syn.so+0x1210 alias_global+0x10");
	resolver_describe(r, 1, 0, S + 0x3f08, buf, sizeof(buf));
	CHECK_STR(buf, "syn.so+0x2f08 data_obj+0x8");
	resolver_describe(r, 1, 0, S + 0x4010, buf, sizeof(buf));
	CHECK_STR(buf, "syn.so[bss]+0x10 obj+0x10");
	CHECK_STR(resolver_mapping_name(r, 1, 0, S + 0x4010), "syn.so[bss]");
	/* in .bss but no symbol there */
	CHECK_EQ_U64(resolver_describe(r, 1, 0, S + 0x8e00, buf, sizeof(buf)),
		     MT_RESOLVE_MAPPING);
	CHECK_STR(buf, "syn.so[bss]+0x4e00");
	/* past memsz: plain anonymous memory */
	resolver_describe(r, 1, 0, S + 0x8f00, buf, sizeof(buf));
	CHECK_STR(buf, "[anon]+0x4f00");
	resolver_describe(r, 1, 0, S + 0x2800, buf, sizeof(buf));
	CHECK_STR(buf, "syn.so+0x2800");

	resolver_describe(r, 2, 0, 0x401040, buf, sizeof(buf));
	CHECK_STR(buf, "syn exe+0x1040 inner+0x0");
	resolver_describe(r, 2, 0, 0x404ffc, buf, sizeof(buf));
	CHECK_STR(buf, "syn exe[bss]+0xffc obj+0xffc");

	struct resolved res;
	CHECK_EQ_U64(resolver_lookup(r, 2, 0, 0x401381, &res),
		     MT_RESOLVE_SYMBOL);
	CHECK_STR(res.sym, "next_fn");
	CHECK_EQ_U64(res.sym_off, 1);
	CHECK_EQ_U64(res.elf_vaddr, 0x401381);

	/* maps that do not match the file: page offset of no PT_LOAD */
	char text[1024];
	snprintf(text, sizeof(text),
		 "10000-20000 r-xp 00005000 08:01 77 %s\n", dynp);
	resolver_add_maps(r, 3, 3, text, strlen(text));
	CHECK_EQ_U64(resolver_describe(r, 3, 5, 0x10000, buf, sizeof(buf)),
		     MT_RESOLVE_MAPPING);
	CHECK_STR(buf, "syn.so+0x5000");
	/* code executing from what the file says is a data segment */
	snprintf(text, sizeof(text),
		 "10000-12000 r-xp 00000000 08:01 77 %s\n"
		 "13000-14000 r-xp 00002000 08:01 77 %s\n", dynp, dynp);
	resolver_add_maps(r, 0, 6, text, strlen(text));
	CHECK_EQ_U64(resolver_describe(r, 6, 0, 0x11050, buf, sizeof(buf)),
		     MT_RESOLVE_SYMBOL);
	CHECK_STR(buf, "syn.so+0x1050 outer+0x50");
	CHECK_EQ_U64(resolver_describe(r, 6, 0, 0x13f08, buf, sizeof(buf)),
		     MT_RESOLVE_MAPPING);
	CHECK_STR(buf, "syn.so+0x2f08");
	/* deleted files are not opened (the path may hold another file) */
	snprintf(text, sizeof(text),
		 "10000-20000 r-xp 00000000 08:01 77 %s (deleted)\n", dynp);
	resolver_add_maps(r, 0, 4, text, strlen(text));
	CHECK_EQ_U64(resolver_describe(r, 4, 0, 0x11000, buf, sizeof(buf)),
		     MT_RESOLVE_MAPPING);
	CHECK_STR(buf, "syn.so+0x1000");
	resolver_free(r);

	/* resolver_set_root: paths looked up under a directory */
	r = resolver_new();
	resolver_set_root(r, tmpdir);
	snprintf(text, sizeof(text),
		 "10000-12000 r-xp 00000000 08:01 77 /syn.so\n");
	resolver_add_maps(r, 0, 5, text, strlen(text));
	resolver_describe(r, 5, 0, 0x11000, buf, sizeof(buf));
	CHECK_STR(buf, "syn.so+0x1000 outer+0x0");
	resolver_free(r);
}

/* ---- the test binary itself ------------------------------------------ */

__attribute__((noinline)) int self_func(int n);
__attribute__((noinline)) int self_func(int n)
{
	volatile int s = 0;

	for (int i = 0; i < n; i++)
		s += i * 7;
	return s;
}

int self_data[32] = { 5, 6, 7 };
static char self_bss[4 << 20];

static void check_describe(struct resolver *r, uint32_t pid,
			   const char *maps, uint64_t addr, const char *sym,
			   uint64_t sym_off, int bss, int line)
{
	char region[256], want[320], got[320];
	uint64_t off;
	int anon = 0;

	if (expect_region(maps, addr, region, sizeof(region), &off, &anon)) {
		TEST_FAIL("line %d: 0x%" PRIx64 " not in maps", line, addr);
		return;
	}
	if (bss) {
		if (!anon) {
			/* every .bss tested is far larger than a page */
			TEST_FAIL("line %d: 0x%" PRIx64 " not anonymous", line,
				  addr);
			return;
		} else {
			/* name of the file mapping just before */
			const char *p = maps, *prev_name = NULL;
			size_t prev_len = 0;
			while (*p) {
				unsigned long long s, e;
				int pos = 0;
				sscanf(p, "%llx-%llx%n", &s, &e, &pos);
				const char *nl = strchr(p, '\n');
				size_t ll = nl ? (size_t)(nl - p) : strlen(p);
				if (addr >= s && addr < e)
					break;
				const char *slash = memrchr(p, '/', ll);
				prev_name = slash ? slash + 1 : NULL;
				prev_len = slash ? ll - (size_t)(slash + 1 - p)
						 : 0;
				p += ll + (nl ? 1 : 0);
			}
			snprintf(region, sizeof(region), "%.*s[bss]",
				 (int)prev_len, prev_name ? prev_name : "");
		}
	}
	if (sym)
		snprintf(want, sizeof(want), "%s+0x%" PRIx64 " %s+0x%" PRIx64,
			 region, off, sym, sym_off);
	else
		snprintf(want, sizeof(want), "%s+0x%" PRIx64, region, off);
	int ret = resolver_describe(r, pid, 0, addr, got, sizeof(got));
	if (strcmp(got, want) != 0 ||
	    ret != (sym ? MT_RESOLVE_SYMBOL : MT_RESOLVE_MAPPING))
		TEST_FAIL("line %d: got \"%.200s\" (%d), expected \"%.200s\"", line,
			  got, ret, want);
}
#define DESCRIBE(r, pid, maps, addr, sym, off, bss) \
	check_describe(r, pid, maps, addr, sym, off, bss, __LINE__)

TEST(self_exe)
{
	size_t len;
	char *maps = read_all("/proc/self/maps", &len);
	struct resolver *r = resolver_new();

	self_bss[3 << 20] = (char)self_func(3);
	CHECK(maps != NULL);
	if (!maps)
		return;
	resolver_add_maps(r, 100, (uint32_t)getpid(), maps, len);
	DESCRIBE(r, (uint32_t)getpid(), maps, (uintptr_t)self_func, "self_func",
		 0, 0);
	DESCRIBE(r, (uint32_t)getpid(), maps, (uintptr_t)self_func + 3,
		 "self_func", 3, 0);
	DESCRIBE(r, (uint32_t)getpid(), maps, (uintptr_t)&self_data[2],
		 "self_data", 8, 0);
	DESCRIBE(r, (uint32_t)getpid(), maps, (uintptr_t)&self_bss[3 << 20],
		 "self_bss", 3 << 20, 1);
	DESCRIBE(r, (uint32_t)getpid(), maps, (uintptr_t)test_main, "test_main",
		 0, 0);

	struct mt_elf *e = mt_elf_open("/proc/self/exe");
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_SYMTAB);
		CHECK(mt_elf_nsyms(e) > 10);
		/* Debian's gcc links with --build-id: 20 bytes of sha1 */
		CHECK_EQ_U64(strlen(mt_elf_build_id(e)), 40);
		mt_elf_close(e);
	}
	free(maps);
	resolver_free(r);
}

TEST(libc_dynsym)
{
	/* Debian's libc.so.6 has no .symtab: exported names from .dynsym;
	 * "getpid" (WEAK) is preferred over its alias "__getpid" (GLOBAL) */
	size_t len;
	char *maps = read_all("/proc/self/maps", &len);
	struct resolver *r = resolver_new();

	CHECK(maps != NULL);
	if (!maps)
		return;
	resolver_add_maps(r, 0, 1, maps, len);
	DESCRIBE(r, 1, maps, (uintptr_t)getpid, "getpid", 0, 0);
	DESCRIBE(r, 1, maps, (uintptr_t)getpid + 1, "getpid", 1, 0);
	DESCRIBE(r, 1, maps, (uintptr_t)&environ, "environ", 0, 0);
	free(maps);
	resolver_free(r);
}

/* ---- programs compiled at test time ----------------------------------- */

static const char child_src[] =
	"#include <stdio.h>\n"
	"int data_tab[256] = { 1, 2, 3 };\n"
	"char bss_big[1 << 21];\n"
	"__attribute__((noinline)) int work_a(int n)\n"
	"{ int s = 0; for (int i = 0; i < n; i++) s += data_tab[i & 255] * i;"
	" return s; }\n"
	"__attribute__((noinline)) static int hidden_fn(int n)\n"
	"{ int s = 1; for (int i = 0; i < n; i++) s ^= s * 31 + i; return s; }\n"
	"#ifdef WITH_LIB\nvoid lib_report(void);\n#endif\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"  (void)argv; bss_big[argc << 20] = 1;\n"
	"  printf(\"work_a %p\\nhidden_fn %p\\ndata_tab %p\\nbss_big %p\\n\",\n"
	"    (void *)work_a, (void *)hidden_fn, (void *)data_tab,"
	" (void *)bss_big);\n"
	"  printf(\"sum %d\\n\", work_a(argc) + hidden_fn(argc));\n"
	"#ifdef WITH_LIB\n  lib_report();\n#endif\n"
	"  printf(\"MAPS\\n\"); fflush(stdout);\n"
	"  FILE *f = fopen(\"/proc/self/maps\", \"r\"); int c;\n"
	"  while ((c = getc(f)) != EOF) putchar(c);\n"
	"  return 0;\n"
	"}\n";

static const char lib_src[] =
	"#include <stdio.h>\n"
	"int lib_data[64] = { 1 };\n"
	"__attribute__((noinline)) int lib_fn(int n)\n"
	"{ int s = 0; for (int i = 0; i < n; i++) s += lib_data[i & 63] ^ i;"
	" return s; }\n"
	"__attribute__((noinline)) static int lib_static(int n)\n"
	"{ int s = 3; for (int i = 0; i < n; i++) s = s * 5 + i; return s; }\n"
	"void lib_report(void)\n"
	"{\n"
	"  printf(\"lib_fn %p\\nlib_static %p\\nlib_data %p\\n\",\n"
	"    (void *)lib_fn, (void *)lib_static, (void *)lib_data);\n"
	"  printf(\"libsum %d\\n\", lib_fn(3) + lib_static(3));\n"
	"}\n";

struct child {
	char *out;      /* whole output */
	const char *maps;
	char path[256]; /* the executable */
};

static uint64_t child_addr(const struct child *c, const char *name)
{
	char key[64];
	const char *p;
	size_t n = strlen(name);

	snprintf(key, sizeof(key), "\n%s 0x", name);
	if (strncmp(c->out, key + 1, n + 3) == 0)
		p = c->out;
	else if ((p = strstr(c->out, key)))
		p++;
	else
		return 0;
	return strtoull(p + n + 1, NULL, 16);
}

/* Compile (cmd gets the source/output paths) and run; 0 on success. */
static int run_child(struct child *c, const char *name, const char *flags,
		     const char *post)
{
	char cmd[2048], src[256], outp[300];
	size_t len;

	memset(c, 0, sizeof(*c));
	snprintf(src, sizeof(src), "%s", tmp_path("child.c"));
	snprintf(c->path, sizeof(c->path), "%s", tmp_path(name));
	snprintf(outp, sizeof(outp), "%s.out", c->path);
	if (access(src, F_OK) != 0 &&
	    write_all(src, child_src, strlen(child_src)) != 0)
		return -1;
	char libflags[600] = "";
	if (strstr(flags, "WITH_LIB"))
		snprintf(libflags, sizeof(libflags),
			 "-L'%s' -lmtchild -Wl,-rpath,'%s'", tmpdir, tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "cc -O1 -g0 %s -o '%s' '%s' %s >/dev/null 2>&1%s%s"
		 " && '%s' > '%s'",
		 flags, c->path, src, libflags, post ? " && " : "",
		 post ? post : "", c->path, outp);
	if (system(cmd) != 0)
		return -1;
	c->out = read_all(outp, &len);
	if (!c->out)
		return -1;
	char *m = strstr(c->out, "\nMAPS\n");
	if (!m)
		return -1;
	c->maps = m + 6;
	return 0;
}

static void child_checks(const char *name, const char *flags,
			 const char *post, uint16_t want_type,
			 enum mt_symtab_source want_src, int see_work_a,
			 int see_hidden)
{
	struct child c;

	if (run_child(&c, name, flags, post) != 0) {
		TEST_FAIL("could not build/run %s with cc %s", name, flags);
		free(c.out);
		return;
	}
	struct mt_elf *e = mt_elf_open(c.path);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_type(e), want_type);
		CHECK_EQ_U64(mt_elf_symtab_source(e), want_src);
		mt_elf_close(e);
	}
	struct resolver *r = resolver_new();
	resolver_add_maps(r, 0, 7, c.maps, strlen(c.maps));
	uint64_t wa = child_addr(&c, "work_a"), hf = child_addr(&c, "hidden_fn");
	uint64_t dt = child_addr(&c, "data_tab"), bb = child_addr(&c, "bss_big");
	CHECK(wa && hf && dt && bb);
	DESCRIBE(r, 7, c.maps, wa + 2, see_work_a ? "work_a" : NULL, 2, 0);
	DESCRIBE(r, 7, c.maps, hf, see_hidden ? "hidden_fn" : NULL, 0, 0);
	DESCRIBE(r, 7, c.maps, dt + 12, see_work_a ? "data_tab" : NULL, 12, 0);
	DESCRIBE(r, 7, c.maps, bb + (1 << 20),
		 see_work_a ? "bss_big" : NULL, 1 << 20, 1);
	resolver_free(r);
	free(c.out);
}

TEST(child_pie)
{
	child_checks("pie", "-fPIE -pie", NULL, ET_DYN, MT_SYMS_SYMTAB, 1, 1);
}

TEST(child_no_pie)
{
	child_checks("nopie", "-fno-pie -no-pie", NULL, ET_EXEC,
		     MT_SYMS_SYMTAB, 1, 1);
}

TEST(child_static)
{
	child_checks("static", "-fno-pie -no-pie -static", NULL, ET_EXEC,
		     MT_SYMS_SYMTAB, 1, 1);
}

TEST(child_static_pie)
{
	child_checks("staticpie", "-fPIE -static-pie", NULL, ET_DYN,
		     MT_SYMS_SYMTAB, 1, 1);
}

TEST(child_stripped)
{
	/* no .symtab; .dynsym has libc imports and _IO_stdin_used only */
	char post[512];
	snprintf(post, sizeof(post), "strip '%s'", tmp_path("stripped"));
	child_checks("stripped", "-fPIE -pie", post, ET_DYN, MT_SYMS_DYNSYM, 0,
		     0);
}

TEST(child_stripped_rdynamic)
{
	/* -rdynamic exports work_a & co. in .dynsym; hidden_fn is static */
	char post[512];
	snprintf(post, sizeof(post), "strip '%s'", tmp_path("stripdyn"));
	child_checks("stripdyn", "-fPIE -pie -rdynamic", post, ET_DYN,
		     MT_SYMS_DYNSYM, 1, 0);
}

TEST(debug_file_by_build_id)
{
	struct child c;
	char post[1024], dir[300], dst[1400];
	const char *exe = tmp_path("dbgchild");

	snprintf(post, sizeof(post),
		 "objcopy --only-keep-debug '%s' '%s.debug' && strip '%s'",
		 exe, exe, exe);
	if (run_child(&c, "dbgchild", "-fPIE -pie -Wl,--build-id", post)) {
		TEST_FAIL("could not build/run dbgchild");
		free(c.out);
		return;
	}
	struct mt_elf *e = mt_elf_open(c.path);
	CHECK(e != NULL);
	if (!e) {
		free(c.out);
		return;
	}
	CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_DYNSYM);
	CHECK_EQ_U64(strlen(mt_elf_build_id(e)), 40);
	snprintf(dir, sizeof(dir), "%s", tmp_path("debug"));
	snprintf(dst, sizeof(dst), "mkdir -p '%s/.build-id/%.2s' && "
		 "mv '%s.debug' '%s/.build-id/%.2s/%s.debug'", dir,
		 mt_elf_build_id(e), c.path, dir, mt_elf_build_id(e),
		 mt_elf_build_id(e) + 2);
	CHECK(system(dst) == 0);
	mt_elf_close(e);

	uint64_t wa = child_addr(&c, "work_a"), hf = child_addr(&c, "hidden_fn");
	struct resolver *r = resolver_new();
	resolver_add_maps(r, 0, 7, c.maps, strlen(c.maps));
	DESCRIBE(r, 7, c.maps, wa, NULL, 0, 0); /* default dir: not there */
	resolver_free(r);

	r = resolver_new();
	resolver_set_debug_dir(r, dir);
	resolver_add_maps(r, 0, 7, c.maps, strlen(c.maps));
	DESCRIBE(r, 7, c.maps, wa + 5, "work_a", 5, 0);
	DESCRIBE(r, 7, c.maps, hf, "hidden_fn", 0, 0);
	resolver_free(r);
	free(c.out);
}

static void lib_checks(int stripped)
{
	char cmd[1024], libsrc[256];

	snprintf(libsrc, sizeof(libsrc), "%s", tmp_path("lib.c"));
	CHECK(write_all(libsrc, lib_src, strlen(lib_src)) == 0);
	snprintf(cmd, sizeof(cmd),
		 "cc -O1 -g0 -shared -fPIC -o '%s' '%s' >/dev/null 2>&1%s%s",
		 tmp_path("libmtchild.so"), libsrc,
		 stripped ? " && strip " : "",
		 stripped ? tmp_path("libmtchild.so") : "");
	if (system(cmd) != 0) {
		TEST_FAIL("could not build the shared object");
		return;
	}
	struct mt_elf *e = mt_elf_open(tmp_path("libmtchild.so"));
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_type(e), ET_DYN);
		CHECK_EQ_U64(mt_elf_symtab_source(e),
			     stripped ? MT_SYMS_DYNSYM : MT_SYMS_SYMTAB);
		mt_elf_close(e);
	}

	struct child c;
	if (run_child(&c, stripped ? "withlib_s" : "withlib",
		      "-fPIE -pie -DWITH_LIB", NULL) != 0) {
		TEST_FAIL("could not build/run the program using the library");
		free(c.out);
		return;
	}
	struct resolver *r = resolver_new();
	resolver_add_maps(r, 0, 9, c.maps, strlen(c.maps));
	uint64_t lf = child_addr(&c, "lib_fn"), ls = child_addr(&c, "lib_static");
	uint64_t ld = child_addr(&c, "lib_data");
	CHECK(lf && ls && ld);
	DESCRIBE(r, 9, c.maps, lf + 1, "lib_fn", 1, 0);
	DESCRIBE(r, 9, c.maps, ls, stripped ? NULL : "lib_static", 0, 0);
	DESCRIBE(r, 9, c.maps, ld + 4, "lib_data", 4, 0);
	DESCRIBE(r, 9, c.maps, child_addr(&c, "work_a"), "work_a", 0, 0);
	CHECK_STR(resolver_mapping_name(r, 9, 0, lf), "libmtchild.so");
	resolver_free(r);
	free(c.out);
}

TEST(shared_object)
{
	lib_checks(0);
}

TEST(shared_object_stripped)
{
	lib_checks(1);
}

/* ---- garbage ---------------------------------------------------------- */

static void poke(struct mt_elf *e)
{
	uint64_t v = 0, off;

	if (!e)
		return;
	for (uint64_t a = 0; a < 0x10000; a += 0x123)
		(void)mt_elf_lookup(e, a, &off);
	(void)mt_elf_lookup(e, UINT64_MAX, &off);
	(void)mt_elf_offset_to_vaddr(e, 0x1000, &v);
	(void)mt_elf_load_bias(e, 0x7f0000000000ull, 0, &v);
	(void)mt_elf_vaddr_in_bss(e, 0x4000);
	(void)mt_elf_vaddr_loaded(e, 0x4000);
	for (size_t i = 0; i < mt_elf_nsyms(e); i++)
		(void)strlen(mt_elf_sym(e, i)->name);
	(void)strlen(mt_elf_build_id(e));
}

TEST(garbage_small)
{
	static const uint8_t junk[] = "\x7f" "ELF\x02\x01\x01 garbage garbage";
	uint8_t hdr[64];

	CHECK(mt_elf_from_memory(NULL, 0) == NULL);
	CHECK(mt_elf_from_memory("", 0) == NULL);
	CHECK(mt_elf_from_memory("\x7f" "ELF", 4) == NULL);
	CHECK(mt_elf_from_memory(junk, sizeof(junk)) == NULL);
	/* a valid-looking header with no program headers */
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, ELFMAG, SELFMAG);
	hdr[EI_CLASS] = ELFCLASS64;
	hdr[EI_DATA] = ELFDATA2LSB;
	CHECK(mt_elf_from_memory(hdr, sizeof(hdr)) == NULL);
	hdr[EI_CLASS] = ELFCLASS32;
	CHECK(mt_elf_from_memory(hdr, sizeof(hdr)) == NULL);
	CHECK(mt_elf_open("/nonexistent/memtrace/file") == NULL);
	CHECK(mt_elf_open("/dev/null") == NULL);
	CHECK(mt_elf_open("/tmp") == NULL);
	CHECK(mt_elf_open("/proc/self/maps") == NULL);
}

TEST(garbage_truncated)
{
	size_t len, flen;
	uint8_t *syn = build_syn(ET_DYN, 0, &len);
	char *self = read_all("/proc/self/exe", &flen);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)self;

	CHECK(self != NULL && flen > 4096);
	if (!self) {
		free(syn);
		return;
	}
	/* every prefix of the synthetic file */
	for (size_t n = 0; n <= len; n++) {
		struct mt_elf *e = mt_elf_from_memory(syn, n);
		poke(e);
		if (n == len && (!e || mt_elf_nsyms(e) != 8))
			TEST_FAIL("full synthetic file lost its symbols");
		if (n >= 64 + 2 * 56 && n < len && (!e || mt_elf_nsyms(e)))
			TEST_FAIL("prefix %zu: expected segments, no symbols", n);
		mt_elf_close(e);
	}
	/* ~700 prefixes of the test binary, and its last 300 bytes one by one */
	size_t step = flen / 700 + 1;
	for (size_t n = 0; n < flen; n += (n + 300 >= flen ? 1 : step)) {
		struct mt_elf *e = mt_elf_from_memory(self, n);
		poke(e);
		mt_elf_close(e);
	}
	/* gcc puts the section headers last: cut one byte -> no symbols,
	 * but the program headers still load */
	CHECK_EQ_U64(eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize,
		     flen);
	struct mt_elf *e = mt_elf_from_memory(self, flen - 1);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_nsyms(e), 0);
		CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_NONE);
		mt_elf_close(e);
	}
	/* a truncated file on disk, through the resolver */
	const char *tp = tmp_path("truncated.so");
	CHECK(write_all(tp, self, flen / 2) == 0);
	struct resolver *r = resolver_new();
	char text[512], buf[256];
	snprintf(text, sizeof(text), "10000-30000 r-xp 00000000 08:01 1 %s\n"
		 "30000-40000 rw-p 00000000 00:00 0\n", tp);
	resolver_add_maps(r, 0, 1, text, strlen(text));
	CHECK_EQ_U64(resolver_describe(r, 1, 0, 0x11000, buf, sizeof(buf)),
		     MT_RESOLVE_MAPPING);
	CHECK_STR(buf, "truncated.so+0x1000");
	resolver_describe(r, 1, 0, 0x38000, buf, sizeof(buf));
	CHECK(strcmp(buf, "[anon]+0x8000") == 0 ||
	      strcmp(buf, "truncated.so[bss]+0x8000") == 0);
	resolver_free(r);
	free(self);
	free(syn);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

TEST(garbage_mutated)
{
	size_t len;
	uint8_t *syn = build_syn(ET_DYN, 0, &len);
	uint8_t *m = malloc(len);
	/* the bytes that steer the parser: headers, symtab, strtab, shdrs */
	static const size_t zones[][2] = {
		{ 0, 64 + 2 * 56 }, { 0x400, 0x400 + 16 * 24 },
		{ 0x3000, 0x3000 + 6 * 64 }, { 0x200, 0x280 },
	};
	int opened = 0;

	for (int it = 0; it < 4000; it++) {
		memcpy(m, syn, len);
		int flips = 1 + (int)(rng() % 8);
		for (int k = 0; k < flips; k++) {
			const size_t *z = zones[rng() % 4];
			size_t pos = z[0] + rng() % (z[1] - z[0]);
			switch (rng() % 3) {
			case 0: m[pos] ^= (uint8_t)(1u << (rng() % 8)); break;
			case 1: m[pos] = 0xff; break;
			default: m[pos] = (uint8_t)rng(); break;
			}
		}
		struct mt_elf *e = mt_elf_from_memory(m, len);
		opened += e != NULL;
		poke(e);
		mt_elf_close(e);
	}
	CHECK(opened > 0); /* some mutations leave a loadable file */
	free(m);
	free(syn);
}

static void cleanup(void)
{
	char cmd[200];

	if (tmpdir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		/* silent: the summary line must stay the last line */
		if (system(cmd) != 0)
			tmpdir[0] = '\0';
	}
}

int main(void)
{
	int rc = test_main();

	cleanup();
	return rc;
}
