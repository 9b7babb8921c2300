/* mtktest.h - what the guest tests of memtrace.ko (mtktest, one test per
 * file of this folder) share: the ok/FAIL lines and the helpers of main.c.
 */
#ifndef MEMTRACE_MTKTEST_H
#define MEMTRACE_MTKTEST_H

#include "../mtk_child.h"

extern int failures;

#define FAIL(name, ...) do { \
	printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); \
	fflush(stdout); failures++; } while (0)
#define OK(name, ...) do { \
	printf("ok   %s", name); printf(__VA_ARGS__); printf("\n"); \
	fflush(stdout); } while (0)

/* main.c */
struct mtk_report *shared_report(int npages);
int reap(pid_t c);
void sleeper(void *a);

void test_pages(void);			/* pages.c */
void test_overflow(void);		/* overflow.c */
void test_ioctl(void);			/* ioctl.c */
void test_fuzz(int iters);		/* fuzz.c */
void test_perm(void);			/* perm.c */
void test_lifecycle(const char *ko);	/* lifecycle.c */
void test_cpuoff(void);			/* cpuoff.c */
void test_targets(void);		/* targets.c */
void test_faulttp(void);		/* faulttp.c */
void test_probe(void);			/* probe.c */
void test_security(const char *arg);	/* security.c */
void test_pebs(const char *tag);	/* pebs.c */
void test_limits(void);			/* seclimits.c */
int sec_write(const char *path, const char *v);
int sec_read_int(const char *path, int *v);
int sec_drop_to(uid_t uid, int perfmon);

#endif
