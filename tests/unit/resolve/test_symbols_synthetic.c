/*
 * test_symbols_synthetic.c - symbols.c on a synthetic ELF built in memory
 * (exact symbol-lookup semantics, extended numbering, resolve.c naming on
 * it) and on truncated, mutated and garbage files (no crash; ASan too).
 */
#include "resolve_testutil.h"

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
	eh->e_shstrndx = 3; /* libelf wants section names: all "" */
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
	CHECK(mt_elf_vaddr_flags(e, 0x3000) >= 0); /* page-rounded start */
	CHECK(mt_elf_vaddr_flags(e, 0x2fff) < 0);
	CHECK(mt_elf_vaddr_flags(e, 0x8f00) < 0);
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
	/* a bad sh_entsize: libelf reads Elf64_Sym records regardless */
	eh->e_shnum = 6;
	eh->e_shstrndx = 3; /* libelf wants section names: all "" */
	eh->e_phnum = 2;
	((Elf64_Shdr *)(f + eh->e_shoff))[2].sh_entsize = 23;
	e = mt_elf_from_memory(f, len);
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_nsyms(e), 8);
		CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_SYMTAB);
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
	(void)mt_elf_vaddr_flags(e, 0x4000);
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
	CHECK(mt_elf_open("/nonexistent/memtrace/file", NULL) == NULL);
	CHECK(mt_elf_open("/dev/null", NULL) == NULL);
	CHECK(mt_elf_open("/tmp", NULL) == NULL);
	CHECK(mt_elf_open("/proc/self/maps", NULL) == NULL);
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
	/* gcc puts the section headers last: cut one byte -> no sections,
	 * but the program headers still load, and libdwfl reads .dynsym
	 * through PT_DYNAMIC (a few defined symbols: stdout's copy) */
	CHECK_EQ_U64(eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize,
		     flen);
	struct mt_elf *e = mt_elf_from_memory(self, flen - 1);
	CHECK(e != NULL);
	if (e) {
		CHECK(mt_elf_nsyms(e) >= 1 && mt_elf_nsyms(e) < 50);
		CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_DYNSYM);
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

int main(void)
{
	return resolve_test_main();
}
