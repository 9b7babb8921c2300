/*
 * test_symbols_programs.c - symbols.c and resolve.c on real programs: the
 * test binary itself (/proc/self/exe) and programs compiled at test time
 * with cc (PIE, -no-pie, -static, -static-pie, stripped, stripped
 * -rdynamic, separate debug file by build-id, shared objects); each prints
 * its own symbol addresses and /proc/self/maps, so expectations are exact.
 */
#include "resolve_testutil.h"

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

	struct mt_elf *e = mt_elf_open("/proc/self/exe", NULL);
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
	struct mt_elf *e = mt_elf_open(c.path, NULL);
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
	struct mt_elf *e = mt_elf_open(c.path, NULL);
	CHECK(e != NULL);
	if (!e) {
		free(c.out);
		return;
	}
	/* elfutils finds NAME.debug next to the file */
	CHECK_EQ_U64(mt_elf_symtab_source(e), MT_SYMS_DEBUGFILE);
	CHECK_EQ_U64(strlen(mt_elf_build_id(e)), 40);
	snprintf(dir, sizeof(dir), "%s", tmp_path("debug"));
	snprintf(dst, sizeof(dst), "mkdir -p '%s/.build-id/%.2s' && "
		 "mv '%s.debug' '%s/.build-id/%.2s/%s.debug'", dir,
		 mt_elf_build_id(e), c.path, dir, mt_elf_build_id(e),
		 mt_elf_build_id(e) + 2);
	CHECK(system(dst) == 0);
	mt_elf_close(e);
	e = mt_elf_open(c.path, "/nonexistent/memtrace-debug");
	CHECK(e && mt_elf_symtab_source(e) == MT_SYMS_DYNSYM);
	mt_elf_close(e);
	e = mt_elf_open(c.path, dir);
	CHECK(e && mt_elf_symtab_source(e) == MT_SYMS_DEBUGFILE);
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
	struct mt_elf *e = mt_elf_open(tmp_path("libmtchild.so"), NULL);
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


int main(void)
{
	return resolve_test_main();
}
