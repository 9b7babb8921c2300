/* vgtool_allocs.c - known allocations for the memtrace Valgrind tool's test
 * (tests/integration/valgrind_tool.sh builds it as a dynamic program: the
 * malloc replacement needs LD_PRELOAD). */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static char *make(size_t n)
{
	char *p = malloc(n);

	memset(p, 1, n);
	return p;
}

int main(void)
{
	char *a = make(1111), *b = make(2222), *c = calloc(3, 1000);

	b = realloc(b, 4444);
	free(a);
	int rc = b[0] + c[2999] == 1 ? 0 : 1;

	free(c);
	return rc;
}
