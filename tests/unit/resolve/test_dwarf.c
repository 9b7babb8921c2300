/*
 * test_dwarf.c - symbols.c/dwarf.c through elfutils on files compiled at
 * test time: symbol extents (an address in the padding after a function
 * gets no symbol), DWARF file:line, an inlined frame, a stripped file with
 * its symbols and lines in a separate debug file found by build-id, a
 * -no-pie ET_EXEC, and Debian's libc.so.6 (.dynsym).  Expected addresses
 * come from nm, run here independently of the code under test.
 */
#include "resolve_testutil.h"

/* Line numbers matter: dw_src line N is "line N" below. */
static const char dw_src[] =
	"static inline __attribute__((always_inline)) int inl_callee(int x)\n" /* 1 */
	"{\n"                                                                  /* 2 */
	"	return x * x * 5 + 7;\n"                                    /* 3 */
	"}\n"                                                                  /* 4 */
	"__attribute__((noinline)) int first_fn(int x)\n"                      /* 5 */
	"{\n"                                                                  /* 6 */
	"	return inl_callee(x) ^ 0x1234;\n"                           /* 7 */
	"}\n"                                                                  /* 8 */
	"__attribute__((noinline, aligned(256))) int second_fn(int x) { return x - 3; }\n" /* 9 */
	"static __attribute__((noinline, used)) int hidden_local(int x) { return x ^ 0x55; }\n" /* 10 */
	"int (*keep_hidden)(int) = hidden_local;\n"                            /* 11 */
	"int main(void) { return first_fn(2) + second_fn(1); }\n";             /* 12 */

/* Address of a defined symbol per nm (0 if missing); *size from -S. */
static uint64_t nm_addr(const char *file, const char *name, uint64_t *size)
{
	char cmd[600], line[512];
	uint64_t addr = 0;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s' 2>/dev/null", file);
	FILE *p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, s = 0;
		char t, n[256];
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &t, n) == 4 &&
		    strcmp(n, name) == 0) {
			addr = a;
			if (size)
				*size = s;
		}
	}
	pclose(p);
	return addr;
}

static int build(const char *out, const char *flags)
{
	char cmd[1200];
	const char *src = tmp_path("dw.c");

	if (write_all(src, dw_src, strlen(dw_src)) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -g -Wl,--build-id %s -o '%s' '%s' >/dev/null 2>&1",
		 flags, out, src);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *lib_path(void)
{
	static int built; /* 0 not yet, 1 ok, -1 failed */
	const char *lib = tmp_path("libdw.so");

	if (!built)
		built = build(lib, "-shared -fPIC") == 0 ? 1 : -1;
	return built > 0 ? lib : NULL;
}

#define SRC_LINE(e, va, want_line)                                          \
	do {                                                                \
		struct mt_srcinfo si_;                                      \
		CHECK(mt_elf_srcinfo((e), (va), &si_));                     \
		CHECK_STR(si_.file, tmp_path("dw.c"));                      \
		CHECK_EQ_U64(si_.line, (want_line));                        \
	} while (0)

/* Past first_fn's st_size, before second_fn: the padding has no symbol. */
TEST(gap_after_sized_function)
{
	const char *lib = lib_path();
	uint64_t fsz = 0, ssz = 0, off;

	CHECK(lib != NULL);
	if (!lib)
		return;
	uint64_t f = nm_addr(lib, "first_fn", &fsz);
	uint64_t s = nm_addr(lib, "second_fn", &ssz);
	CHECK(f != 0 && s != 0 && fsz != 0 && f + fsz < s);
	struct mt_elf *e = mt_elf_open(lib, NULL);
	CHECK(e != NULL);
	if (!e || !f || !s)
		goto out;
	CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_SYMTAB);
	const struct mt_sym *y = mt_elf_lookup(e, f + fsz - 1, &off);
	CHECK(y != NULL);
	if (y) {
		CHECK_STR(y->name, "first_fn");
		CHECK_EQ_U64(y->size, fsz);
		CHECK_EQ_U64(off, fsz - 1);
	}
	CHECK(mt_elf_lookup(e, f + fsz, &off) == NULL);
	CHECK(mt_elf_lookup(e, s - 1, &off) == NULL);
	y = mt_elf_lookup(e, s, &off);
	CHECK(y && strcmp(y->name, "second_fn") == 0 && off == 0 &&
	      y->size == ssz);

	/* through the resolver: the whole file mapped r-x at 0x7f0000000000 */
	char maps[600], buf[128], want[128];
	snprintf(maps, sizeof(maps),
		 "7f0000000000-7f0000100000 r-xp 00000000 08:01 77 %s\n", lib);
	struct resolver *r = resolver_new();
	resolver_add_maps(r, 1, 5, maps, strlen(maps));
	uint64_t base = 0x7f0000000000ull;
	CHECK_EQ_U64(resolver_describe(r, 5, 1, base + f + fsz, buf, sizeof(buf)),
		     MT_RESOLVE_MAPPING);
	snprintf(want, sizeof(want), "libdw.so+0x%" PRIx64, f + fsz);
	CHECK_STR(buf, want);
	CHECK_EQ_U64(resolver_describe(r, 5, 1, base + f + 2, buf, sizeof(buf)),
		     MT_RESOLVE_SYMBOL);
	snprintf(want, sizeof(want), "libdw.so+0x%" PRIx64 " first_fn+0x2", f + 2);
	CHECK_STR(buf, want);
	struct resolved res;
	CHECK_EQ_U64(resolver_lookup(r, 5, 1, base + s, &res), MT_RESOLVE_SYMBOL);
	CHECK_STR(res.sym, "second_fn");
	CHECK_EQ_U64(res.sym_size, ssz);
	CHECK_EQ_U64(res.elf_vaddr, s);
	CHECK_STR(res.file, tmp_path("dw.c"));
	CHECK_EQ_U64(res.line, 9);
	CHECK_EQ_U64(res.ninlined, 0);
	resolver_free(r);
out:
	mt_elf_close(e);
}

TEST(source_lines)
{
	const char *lib = lib_path();

	CHECK(lib != NULL);
	struct mt_elf *e = lib ? mt_elf_open(lib, NULL) : NULL;
	CHECK(e != NULL);
	if (!e)
		return;
	SRC_LINE(e, nm_addr(lib, "second_fn", NULL), 9);
	SRC_LINE(e, nm_addr(lib, "hidden_local", NULL), 10);
	SRC_LINE(e, nm_addr(lib, "main", NULL), 12);
	/* data has no line */
	struct mt_srcinfo si;
	uint64_t kh = nm_addr(lib, "keep_hidden", NULL);
	CHECK(kh != 0 && !mt_elf_srcinfo(e, kh, &si));
	CHECK(si.file == NULL && si.line == 0 && si.ninlined == 0);
	mt_elf_close(e);
}

/*
 * Some instruction of first_fn is inl_callee's (line 3) and has exactly one
 * inline frame: inl_callee, called from dw.c:7.  Every address of line 3
 * has that frame; no address outside first_fn's inline body does.
 */
TEST(inlined_frame)
{
	const char *lib = lib_path();
	uint64_t fsz = 0;

	CHECK(lib != NULL);
	struct mt_elf *e = lib ? mt_elf_open(lib, NULL) : NULL;
	CHECK(e != NULL);
	if (!e)
		return;
	uint64_t f = nm_addr(lib, "first_fn", &fsz);
	int seen = 0;
	for (uint64_t a = f; a < f + fsz; a++) {
		struct mt_srcinfo si;
		if (!mt_elf_srcinfo(e, a, &si))
			continue;
		if (si.line == 3) {
			seen++;
			CHECK_EQ_U64(si.ninlined, 1);
			if (si.ninlined != 1)
				break;
			CHECK_STR(si.inlined[0].function, "inl_callee");
			CHECK_STR(si.inlined[0].file, tmp_path("dw.c"));
			CHECK_EQ_U64(si.inlined[0].line, 7);
			/* cached: the same array on a second query */
			struct mt_srcinfo again;
			mt_elf_srcinfo(e, a, &again);
			CHECK(again.inlined == si.inlined);
		} else if (si.ninlined) {
			CHECK_STR(si.inlined[0].function, "inl_callee");
		}
	}
	CHECK(seen > 0);
	mt_elf_close(e);
}

/* strip --strip-all + the debug file under DIR/.build-id/xx/rest.debug */
TEST(separate_debug_file)
{
	const char *lib = lib_path();
	char cmd[1600], dir[300];

	CHECK(lib != NULL);
	if (!lib)
		return;
	struct mt_elf *full = mt_elf_open(lib, NULL);
	CHECK(full && strlen(mt_elf_build_id(full)) == 40);
	if (!full)
		return;
	const char *id = mt_elf_build_id(full);
	const char *stripped = tmp_path("libdw-stripped.so");
	snprintf(dir, sizeof(dir), "%s", tmp_path("dbg"));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p '%s/.build-id/%.2s' && "
		 "objcopy --only-keep-debug '%s' '%s/.build-id/%.2s/%s.debug' && "
		 "objcopy --strip-all '%s' '%s'",
		 dir, id, lib, dir, id, id + 2, lib, stripped);
	CHECK(system(cmd) == 0);
	uint64_t h = nm_addr(lib, "hidden_local", NULL);

	struct mt_elf *e = mt_elf_open(stripped, "/nonexistent/memtrace-dbg");
	CHECK(e != NULL);
	if (e) {
		CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_DYNSYM);
		CHECK(mt_elf_lookup(e, h, NULL) == NULL);
		const struct mt_sym *y =
			mt_elf_lookup(e, nm_addr(lib, "second_fn", NULL), NULL);
		CHECK(y && strcmp(y->name, "second_fn") == 0);
		struct mt_srcinfo si;
		CHECK(!mt_elf_srcinfo(e, h, &si));
		mt_elf_close(e);
	}
	e = mt_elf_open(stripped, dir);
	CHECK(e != NULL);
	if (e) {
		uint64_t off;
		CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_DEBUGFILE);
		CHECK_STR(mt_elf_build_id(e), id);
		const struct mt_sym *y = mt_elf_lookup(e, h + 1, &off);
		CHECK(y && strcmp(y->name, "hidden_local") == 0 && off == 1);
		SRC_LINE(e, h, 10);
		mt_elf_close(e);
	}
	mt_elf_close(full);
}

/* -no-pie: ET_EXEC at its link address, bias 0 for a consistent mapping */
TEST(et_exec_and_pie)
{
	const char *exe = tmp_path("dwexe"), *pie = tmp_path("dwpie");

	CHECK(build(exe, "-no-pie") == 0);
	CHECK(build(pie, "-fPIE -pie") == 0);
	struct mt_elf *e = mt_elf_open(exe, NULL);
	CHECK(e != NULL);
	if (e) {
		uint64_t bias = 1, s = nm_addr(exe, "second_fn", NULL), off;
		const struct mt_segment *g0 = mt_elf_segment(e, 0);
		CHECK_EQ_U64(mt_elf_type(e), ET_EXEC);
		CHECK(g0 && mt_elf_load_bias(e, g0->vaddr & ~0xfffull,
					     g0->offset & ~0xfffull, &bias) == 0);
		CHECK_EQ_U64(bias, 0);
		CHECK(s >= 0x400000);
		const struct mt_sym *y = mt_elf_lookup(e, s + 1, &off);
		CHECK(y && strcmp(y->name, "second_fn") == 0 && off == 1);
		SRC_LINE(e, s, 9);
		mt_elf_close(e);
	}
	e = mt_elf_open(pie, NULL);
	CHECK(e != NULL);
	if (e) {
		uint64_t s = nm_addr(pie, "second_fn", NULL), bias = 0;
		CHECK_EQ_U64(mt_elf_type(e), ET_DYN);
		CHECK(s < 0x400000);
		CHECK(mt_elf_load_bias(e, 0x555555554000ull, 0, &bias) == 0);
		CHECK_EQ_U64(bias, 0x555555554000ull);
		SRC_LINE(e, s, 9);
		mt_elf_close(e);
	}
}

/* Debian's libc.so.6: no .symtab; memcpy (an IFUNC) from .dynsym. */
TEST(libc_memcpy)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char cmd[300], line[300];
	uint64_t addr = 0, size = 0, off;

	snprintf(cmd, sizeof(cmd), "nm -D -S --defined-only %s", libc);
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && fgets(line, sizeof(line), p)) {
		unsigned long long a, s;
		char t, n[200];
		if (sscanf(line, "%llx %llx %c %199s", &a, &s, &t, n) == 4 &&
		    strcmp(n, "memcpy@@GLIBC_2.14") == 0) {
			addr = a;
			size = s;
		}
	}
	if (p)
		pclose(p);
	CHECK(addr != 0);
	struct mt_elf *e = mt_elf_open(libc, "/nonexistent/memtrace-dbg");
	CHECK(e != NULL);
	if (!e || !addr) {
		mt_elf_close(e);
		return;
	}
	CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_DYNSYM);
	const struct mt_sym *y = mt_elf_lookup(e, addr + 1, &off);
	CHECK(y != NULL);
	if (y) {
		CHECK_STR(y->name, "memcpy");
		CHECK_EQ_U64(y->addr, addr);
		CHECK_EQ_U64(y->size, size);
		CHECK_EQ_U64(off, 1);
	}
	mt_elf_close(e);
}

int main(void)
{
	return resolve_test_main();
}
