/* usdt_notes.c - find USDT probes in an ELF file's stapsdt notes (usdt_notes.h). */
#include "source/probes/usdt_notes.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NT_STAPSDT 3

/* One note's descriptor: pc, base, semaphore (3 words), then provider, name, args. */
static int note_matches(const char *desc, size_t len, size_t word, const char *provider,
			const char *name, char *prov, size_t provlen)
{
	if (len < 3 * word)
		return 0;
	const char *p = desc + 3 * word, *end = desc + len;
	const char *pz = memchr(p, 0, (size_t)(end - p));
	if (!pz)
		return 0;
	const char *n = pz + 1;
	const char *nz = n < end ? memchr(n, 0, (size_t)(end - n)) : NULL;
	if (!nz || strcmp(n, name) || (provider && strcmp(p, provider)))
		return 0;
	snprintf(prov, provlen, "%s", p);
	return 1;
}

static int scan_notes(Elf *e, const char *provider, const char *name, char *prov,
		      size_t provlen)
{
	size_t word = gelf_getclass(e) == ELFCLASS32 ? 4 : 8;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8))
				continue;
			if (note_matches((const char *)d->d_buf + desc_off, nh.n_descsz, word,
					 provider, name, prov, provlen))
				return 1;
		}
	}
	return 0;
}

int usdt_find(const char *path, const char *provider, const char *name, char *prov,
	      size_t provlen, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int rc;
	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(err, errlen, "%s is not an ELF file", path);
		rc = -1;
	} else {
		rc = scan_notes(e, provider, name, prov, provlen);
	}
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}
