/*
 * usdtspans - phases between two USDT probes, for record --mark
 * BIN:phase__start (provider usdtspans; ends at phase__done).  The probes
 * are SystemTap SDT notes written here as <sys/sdt.h> writes them (a nop,
 * and a .note.stapsdt entry naming its address, the provider, the probe and
 * the argument's location), so no systemtap header is needed.
 *
 *   usdtspans [-r ROUNDS]     (default 2)
 *
 * A first phase "warm" faults in the code of every phase; then each round
 * runs "scan 8" (writes 8 fresh pages: 8 page faults), "scan 16" (16) and
 * "idle" (none).  A phase's pages are a new private mapping (MADV_NOHUGEPAGE)
 * unmapped at its end.  The label, the probe's first argument, is a string
 * on the stack (resident, so the probe reads it).  Prints "rounds N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096ul

/* One SDT note: provider, name, argument spec ("" or "8@%0"). */
#define USDT_NOTE(prov, name, args)                                             \
	"990: nop\n"                                                            \
	".pushsection .note.stapsdt,\"?\",\"note\"\n"                           \
	".balign 4\n"                                                           \
	".4byte 992f-991f, 994f-993f, 3\n"                                      \
	"991: .asciz \"stapsdt\"\n"                                             \
	"992: .balign 4\n"                                                      \
	"993: .8byte 990b\n"                                                    \
	".8byte _.stapsdt.base\n"                                               \
	".8byte 0\n"                                                            \
	".asciz \"" prov "\"\n"                                                 \
	".asciz \"" name "\"\n"                                                 \
	".asciz \"" args "\"\n"                                                 \
	"994: .balign 4\n"                                                      \
	".popsection\n"                                                         \
	".ifndef _.stapsdt.base\n"                                              \
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
	".weak _.stapsdt.base\n"                                                \
	".hidden _.stapsdt.base\n"                                              \
	"_.stapsdt.base: .space 1\n"                                            \
	".size _.stapsdt.base, 1\n"                                             \
	".popsection\n"                                                         \
	".endif\n"

static void phase(const char *name, size_t pages)
{
	char label[32];
	size_t len = pages ? pages * PAGE : PAGE;

	snprintf(label, sizeof(label), "%s", name);
	__asm__ __volatile__(USDT_NOTE("usdtspans", "phase__start", "8@%0") : : "r"(label) : "memory");
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = 1;
	munmap(p, len);
	__asm__ __volatile__(USDT_NOTE("usdtspans", "phase__done", "") : : : "memory");
}

int main(int argc, char **argv)
{
	int rounds = 2, c;

	while ((c = getopt(argc, argv, "r:")) != -1) {
		if (c == 'r')
			rounds = atoi(optarg);
		else
			return 2;
	}
	phase("warm", 8);
	for (int r = 0; r < rounds; r++) {
		phase("scan 8", 8);
		phase("scan 16", 16);
		phase("idle", 0);
	}
	printf("rounds %d\n", rounds);
	return 0;
}
