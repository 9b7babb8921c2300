/* Compiled by tests/fuzz/make-seeds.sh (cc -g -O1): a small ELF file with
 * .symtab, DWARF lines and an inlined call, the seed of fuzz_elf. */
static int table[64];
int counter;

static inline int twice(int x)
{
	return 2 * x;
}

int work(int n)
{
	for (int i = 0; i < n; i++)
		table[i & 63] += twice(i);
	return table[n & 63];
}

int main(int argc, char **argv)
{
	(void)argv;
	counter = work(argc * 100);
	return counter & 1;
}
