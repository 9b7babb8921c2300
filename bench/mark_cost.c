/* mark_cost.c - the probed task of bench/mark/probe_cost.sh: calls
 * mark_cost_span(i) CALLS times (a function that does almost nothing) and
 * prints its own CPU time, so that `record --mark ...:mark_cost_span` costs
 * per span (uprobe at entry + uretprobe at return, two BPF ring records, in
 * the probed task) are this time minus an unprobed run's, per call.
 *
 *   mark_cost [CALLS]   (default 200000)   prints "calls=N cpu_ns=T"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

volatile long mark_cost_sink;

__attribute__((noinline)) long mark_cost_span(long i)
{
	mark_cost_sink += i;
	return mark_cost_sink;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000;
	struct rusage ru;

	for (long i = 0; i < calls; i++)
		mark_cost_span(i);
	getrusage(RUSAGE_SELF, &ru);
	printf("calls=%ld cpu_ns=%lld\n", calls,
	       (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
		       (long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll);
	return 0;
}
