/* alloc_elf.c - allocator functions in ELF files, and the files of a target
 * that may hold its allocator (alloc_elf.h). */
#include "source/probes/alloc_elf.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/target.h"
#include "util/util.h"

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
	"/lib", "/usr/lib", "/usr/local/lib",
};

/* The file offset of vaddr through the PT_LOAD segments, or 0. */
static uint64_t file_offset(Elf *e, uint64_t vaddr)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

static void scan_symtab(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *const *names,
			size_t n, uint64_t *offs)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < count; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		size_t len = strcspn(name, "@");
		for (size_t k = 0; k < n; k++)
			if (!offs[k] && strlen(names[k]) == len && !strncmp(names[k], name, len))
				offs[k] = file_offset(e, sym.st_value);
	}
}

int alloc_elf_funcs(const char *path, const char *const *names, size_t n, uint64_t *offs)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(offs, 0, n * sizeof(*offs));
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		close(fd);
		return -1;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			scan_symtab(e, scn, &sh, names, n, offs);
	}
	elf_end(e);
	close(fd);
	return 0;
}

void alloc_files_add(struct alloc_files *f, const char *path)
{
	char real[4096];

	if (!realpath(path, real))
		return;
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->path[i], real))
			return;
	f->path = mt_xrealloc(f->path, (f->n + 1) * sizeof(*f->path));
	f->path[f->n++] = mt_xstrdup(real);
}

void alloc_files_free(struct alloc_files *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->path[i]);
	free(f->path);
	f->path = NULL;
	f->n = 0;
}

/* A library whose allocator functions matter: libc, jemalloc, tcmalloc. */
static int allocator_lib(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5) ||
	       strstr(base, "jemalloc") || strstr(base, "tcmalloc");
}

/* name found in dirs (colon-separated) then the usual directories. */
static int find_lib(const char *name, const char *dirs, char *out, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, R_OK);
	}
	while (dirs && *dirs) {
		size_t n = strcspn(dirs, ":");
		snprintf(out, len, "%.*s/%s", (int)n, dirs, name);
		if (n && access(out, R_OK) == 0)
			return 0;
		dirs += n + (dirs[n] == ':');
	}
	for (size_t i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		snprintf(out, len, "%s/%s", lib_dirs[i], name);
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* DT_NEEDED of path that are allocator libraries, into f. */
static void add_needed(const char *path, struct alloc_files *f)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char lib[4096];

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (Elf_Scn *scn = NULL; e && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)))
			continue;
		size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Dyn dyn;
			const char *name;
			if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED ||
			    !(name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)))
				continue;
			if (allocator_lib(name) && !find_lib(name, getenv("LD_LIBRARY_PATH"), lib,
							     sizeof(lib)))
				alloc_files_add(f, lib);
		}
	}
	elf_end(e);
	close(fd);
}

/* Does path start with the ELF magic? */
static int is_elf(const char *path)
{
	unsigned char m[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	ssize_t n = read(fd, m, sizeof(m));
	close(fd);
	return n == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
}

void alloc_files_of_command(const char *cmd, struct alloc_files *f)
{
	char path[4096], lib[4096];

	if (strchr(cmd, '/'))
		snprintf(path, sizeof(path), "%s", cmd);
	else if (target_which(cmd, path, sizeof(path)))
		path[0] = 0;
	if (path[0]) {
		alloc_files_add(f, path);
		add_needed(path, f);
	}
	/* a script: its interpreter is not known before it runs; the system's
	 * libc (the one memtracectl runs on) is the likely allocator */
	if (path[0] && !is_elf(path))
		alloc_files_of_pid(getpid(), f);
	/* LD_PRELOAD=libjemalloc.so.2: space or colon separated */
	const char *pre = getenv("LD_PRELOAD");
	while (pre && *pre) {
		size_t n = strcspn(pre, ": ");
		char name[4096];
		snprintf(name, sizeof(name), "%.*s", (int)n, pre);
		if (n && allocator_lib(name) && !find_lib(name, getenv("LD_LIBRARY_PATH"), lib, sizeof(lib)))
			alloc_files_add(f, lib);
		pre += n + (pre[n] != 0);
	}
}

void alloc_files_of_pid(pid_t pid, struct alloc_files *f)
{
	char path[64], line[4608], file[4096];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, file, sizeof(file) - 1);
	if (n > 0) {
		file[n] = 0;
		alloc_files_add(f, file);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *m = fopen(path, "re");
	while (m && fgets(line, sizeof(line), m)) {
		char *slash = strchr(line, '/');
		if (!slash)
			continue;
		slash[strcspn(slash, "\n")] = 0;
		if (allocator_lib(slash))
			alloc_files_add(f, slash);
	}
	if (m)
		fclose(m);
}
