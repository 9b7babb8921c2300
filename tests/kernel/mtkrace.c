/* mtkrace.c - multi-threaded race test of memtrace.ko (guest test "race").
 *
 *   mtkrace [-n OPS] [-s SEED] [-t THREADS] [-T SECONDS]
 *
 * THREADS workers (default 4) make OPS calls on memtrace files in all
 * (default 100000; every open, ioctl, mmap, munmap, poll and close counts),
 * each picking with its own seeded RNG one of: open+CONFIGURE, CONFIGURE
 * again, START, STOP, STATS, CONSUME, TARGETS, mmap, munmap, reading a
 * mapped ring (drain + CONSUME), poll and close, on a session slot shared by
 * all workers or on the worker's own slot.  A worker uses a slot's file
 * through a dup() taken under the slot's lock, so a close of the slot races
 * with the ioctls, polls and mappings of the other workers and the last
 * reference (the release) drops in whichever thread or munmap comes last.
 * Meanwhile one thread keeps target processes coming and going (each touches
 * pages, some fork, every one exits after a random 20-400 ms: sessions end
 * under the workers) and one toggles CPU 1 offline/online when it can.
 *
 * Checks: no unexpected errno (EFAULT, EBADF, ENOTTY, ...: a worker only
 * passes valid pointers and its own files), every mapped ring header says
 * what its session was configured with, and when everything is closed and
 * unmapped the module counts 0 open sessions.  Splats are the guest's part
 * (panic_on_warn, dmesg check).  One "ok race: ..." or "FAIL race: ..."
 * line (with KCOV: how many code sites of the module worker 0's calls
 * reached, mtkcov.h); errno counts per operation follow, indented.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "mtkcov.h"
#include "mtlib.h"

#define MAX_THREADS	16
#define SHARED_SLOTS	6
#define MAX_MAPS	4
#define MAX_TARGETS	6
#define PG		4096UL

enum op { OP_OPEN, OP_CONFIGURE, OP_START, OP_STOP, OP_STATS, OP_CONSUME,
	  OP_TARGETS, OP_MMAP, OP_MUNMAP, OP_READ, OP_POLL, OP_CLOSE, NR_OPS };
static const char *const op_name[NR_OPS] = {
	"open", "configure", "start", "stop", "stats", "consume", "targets",
	"mmap", "munmap", "read", "poll", "close" };
/* relative frequency of each operation */
static const int op_weight[NR_OPS] = { 6, 3, 10, 8, 8, 8, 4, 8, 7, 14, 10, 4 };

struct slot {			/* a session some workers share */
	pthread_mutex_t lock;
	int fd;			/* -1: none */
	uint32_t ring_records;	/* as configured, 0 until then */
	size_t ring_bytes;
};

struct mapping {		/* one mapped ring of a worker */
	int fd;			/* dup of the session's file */
	unsigned char *addr;
	size_t len;
	uint32_t ring_records;
	int cpu;
};

struct worker {
	pthread_t th;
	int id;
	uint64_t rng;
	struct mapping map[MAX_MAPS];
	int nmaps;
	struct mtkcov kcov;
};

static struct slot slots[SHARED_SLOTS + MAX_THREADS];
static atomic_int targets[MAX_TARGETS];	/* live target pids, 0: none */
static long nops = 100000;
static atomic_long ops_done;	/* calls on memtrace files so far */
static atomic_long err_count[NR_OPS][134];	/* [op][errno], 0 = success */
static atomic_int bad;				/* unexpected result seen */
static char bad_msg[200];
static atomic_int stop_helpers;
static volatile sig_atomic_t timed_out;	/* -T passed: workers stop */
static long target_exits, hotplug_toggles;
static int ncpus;

static uint64_t rnd(uint64_t *s)	/* xorshift64* */
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static uint32_t rnd_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)((rnd(s) >> 32) % n);
}

static void complain(const char *fmt, const char *what, int val)
{
	if (atomic_exchange(&bad, 1) == 0)
		snprintf(bad_msg, sizeof(bad_msg), fmt, what, val);
}

/* Counts the outcome of one operation; rc < 0 means errno holds why. */
static void note(enum op op, int rc)
{
	int e = rc < 0 ? errno : 0;

	if (e < 0 || e >= 134)
		e = 133;
	atomic_fetch_add(&err_count[op][e], 1);
	atomic_fetch_add(&ops_done, 1);
	/* what a valid call on a memtrace file can never give */
	if (e == EFAULT || e == EBADF || e == ENOTTY || e == EIO)
		complain("%s: unexpected errno %d", op_name[op], e);
}

/* A dup of the slot's file (-1: the slot is empty), with its ring layout. */
static int slot_get(struct slot *sl, uint32_t *records, size_t *ring_bytes)
{
	int fd = -1;

	pthread_mutex_lock(&sl->lock);
	if (sl->fd >= 0) {
		fd = dup(sl->fd);
		if (fd < 0)
			complain("%s: dup failed, errno %d", "slot", errno);
		*records = sl->ring_records;
		*ring_bytes = sl->ring_bytes;
	}
	pthread_mutex_unlock(&sl->lock);
	return fd;
}

static int live_target(uint64_t *rng)
{
	for (int i = 0; i < MAX_TARGETS; i++) {
		int pid = atomic_load(&targets[(rnd_below(rng, MAX_TARGETS) + i) % MAX_TARGETS]);

		if (pid > 0)
			return pid;
	}
	return getpid();	/* no target now: trace ourselves */
}

static void random_config(struct memtrace_config *c, uint64_t *rng)
{
	mt_default_config(c, live_target(rng), 2u << rnd_below(rng, 9));
	switch (rnd_below(rng, 4)) {
	case 0:
		c->pid = 0;
		c->flags = MEMTRACE_CFG_SYSTEM_WIDE;
		break;
	case 1:
		c->flags = MEMTRACE_CFG_DESCENDANTS;
		break;
	}
	c->wakeup_records = rnd_below(rng, 2) ? 1 : 0;
	c->fields = rnd_below(rng, MEMTRACE_FIELDS_ALL + 1);
}

static size_t ring_bytes_of(uint32_t records)
{
	return (PG + (size_t)records * sizeof(struct memtrace_sample) + PG - 1) / PG * PG;
}

/* open + CONFIGURE into an empty slot, or replace the slot's session */
static void op_open(struct slot *sl, uint64_t *rng)
{
	struct memtrace_config c;
	int fd = open(MEMTRACE_DEVICE_PATH, O_RDWR | O_CLOEXEC), rc, old;

	note(OP_OPEN, fd < 0 ? -1 : 0);
	if (fd < 0)
		return;
	random_config(&c, rng);
	rc = ioctl(fd, MEMTRACE_IOC_CONFIGURE, &c);
	note(OP_CONFIGURE, rc);
	pthread_mutex_lock(&sl->lock);
	old = sl->fd;
	sl->fd = fd;
	sl->ring_records = rc ? 0 : c.ring_records;
	sl->ring_bytes = rc ? 0 : ring_bytes_of(c.ring_records);
	pthread_mutex_unlock(&sl->lock);
	if (old >= 0)
		close(old);
}

static void op_close(struct slot *sl)
{
	int old;

	pthread_mutex_lock(&sl->lock);
	old = sl->fd;
	sl->fd = -1;
	pthread_mutex_unlock(&sl->lock);
	if (old >= 0)
		note(OP_CLOSE, close(old));
}

static void drop_mapping(struct worker *w, int i, uint64_t *rng)
{
	struct mapping *m = &w->map[i];

	/* either order: the release may come from munmap or from close */
	if (rnd_below(rng, 2)) {
		close(m->fd);
		note(OP_MUNMAP, munmap(m->addr, m->len));
	} else {
		note(OP_MUNMAP, munmap(m->addr, m->len));
		close(m->fd);
	}
	w->map[i] = w->map[--w->nmaps];
}

static void op_mmap(struct worker *w, int fd, uint32_t records, size_t rb,
		    uint64_t *rng)
{
	struct mapping *m;
	int cpu = (int)rnd_below(rng, (uint32_t)ncpus);
	int prot = rnd_below(rng, 16) ? PROT_READ : PROT_READ | PROT_WRITE;
	void *p;

	if (w->nmaps == MAX_MAPS)
		drop_mapping(w, (int)rnd_below(rng, MAX_MAPS), rng);
	if (!records) {
		/* CONFIGURE failed at open (or came later): layout unknown */
		p = mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 0);
		note(OP_MMAP, p == MAP_FAILED ? -1 : 0);
		if (p != MAP_FAILED)
			munmap(p, PG);
		close(fd);
		return;
	}
	p = mmap(NULL, rb, prot, MAP_SHARED, fd, (off_t)(rb * (size_t)cpu));
	note(OP_MMAP, p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED) {
		if (prot == PROT_READ)
			complain("%s: a valid ring mapping failed, errno %d",
				 "mmap", errno);
		close(fd);
		return;
	}
	if (prot != PROT_READ)
		complain("%s: mapped what must be refused (%d)", "mmap", prot);
	m = &w->map[w->nmaps++];
	*m = (struct mapping){ .fd = fd, .addr = p, .len = rb,
			       .ring_records = records, .cpu = cpu };
}

/* drains one mapped ring the way the collector does */
static void op_read(struct mapping *m)
{
	struct memtrace_ring_header *h = (void *)m->addr;
	const struct memtrace_sample *rec = (const void *)(m->addr + PG);
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_RELAXED);
	struct memtrace_consume c = { .cpu = (uint32_t)m->cpu, .tail = head };
	volatile uint64_t sum = 0;

	if (h->ring_records != m->ring_records ||
	    h->record_size != sizeof(struct memtrace_sample) ||
	    h->cpu != (uint32_t)m->cpu)
		complain("%s: ring header of cpu %d disagrees with the config",
			 "read", m->cpu);
	for (uint64_t i = tail; i < head && i - tail < m->ring_records; i++)
		sum += rec[i & (m->ring_records - 1)].addr;
	/* CONSUME may lose against another reader of the ring: EINVAL */
	note(OP_READ, ioctl(m->fd, MEMTRACE_IOC_CONSUME, &c));
}

static void op_poll(struct worker *w, int fd, uint64_t *rng)
{
	struct pollfd p[1 + MAX_MAPS];
	int n = 0;

	if (fd >= 0)
		p[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	for (int i = 0; i < w->nmaps; i++)
		p[n++] = (struct pollfd){ .fd = w->map[i].fd, .events = POLLIN };
	if (n)
		note(OP_POLL, poll(p, (nfds_t)n, (int)rnd_below(rng, 3)));
}

static void op_ioctl(enum op op, int fd, uint32_t records, uint64_t *rng)
{
	struct memtrace_cpu_stats cs[MT_MAX_CPUS];
	struct memtrace_stats st = { .size = sizeof(st), .nr_cpus = MT_MAX_CPUS,
				     .cpus = (uintptr_t)cs };
	struct memtrace_targets t = { .size = sizeof(t) };
	struct memtrace_consume c = { .cpu = rnd_below(rng, (uint32_t)ncpus + 1) };
	struct memtrace_config cfg;

	switch (op) {
	case OP_CONFIGURE:
		random_config(&cfg, rng);
		note(op, ioctl(fd, MEMTRACE_IOC_CONFIGURE, &cfg));
		break;
	case OP_START:
		note(op, ioctl(fd, MEMTRACE_IOC_START));
		break;
	case OP_STOP:
		note(op, ioctl(fd, MEMTRACE_IOC_STOP));
		break;
	case OP_STATS:
		note(op, ioctl(fd, MEMTRACE_IOC_STATS, &st));
		break;
	case OP_CONSUME:	/* a tail from 0 to past any head */
		c.tail = rnd_below(rng, records ? 4 * records : 4);
		note(op, ioctl(fd, MEMTRACE_IOC_CONSUME, &c));
		break;
	case OP_TARGETS:
		note(op, ioctl(fd, MEMTRACE_IOC_TARGETS, &t));
		break;
	default:
		break;
	}
}

static int weight_total;

static enum op pick_op(uint64_t *rng)
{
	int r = (int)rnd_below(rng, (uint32_t)weight_total);

	for (int i = 0; i < NR_OPS; i++) {
		if (r < op_weight[i])
			return (enum op)i;
		r -= op_weight[i];
	}
	return OP_STATS;
}

static void one_op(struct worker *w)
{
	uint64_t *rng = &w->rng;
	struct slot *sl = rnd_below(rng, 3) ? &slots[rnd_below(rng, SHARED_SLOTS)]
					    : &slots[SHARED_SLOTS + w->id];
	enum op op = pick_op(rng);
	uint32_t records = 0;
	size_t rb = 0;
	int fd;

	if (op == OP_OPEN)
		return op_open(sl, rng);
	if (op == OP_CLOSE)
		return op_close(sl);
	if (op == OP_MUNMAP) {
		if (w->nmaps)
			drop_mapping(w, (int)rnd_below(rng, (uint32_t)w->nmaps), rng);
		return;
	}
	if (op == OP_READ) {
		if (w->nmaps)
			op_read(&w->map[rnd_below(rng, (uint32_t)w->nmaps)]);
		return;
	}
	fd = slot_get(sl, &records, &rb);
	if (op == OP_POLL) {
		op_poll(w, fd, rng);
	} else if (fd >= 0 && op == OP_MMAP) {
		op_mmap(w, fd, records, rb, rng);	/* keeps fd */
		return;
	} else if (fd >= 0) {
		op_ioctl(op, fd, records, rng);
	}
	if (fd >= 0)
		close(fd);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* KCOV only in worker 0: scanning every call's PCs slows TCG guests */
	if (w->id == 0)
		mtkcov_thread_start(&w->kcov);
	while (atomic_load(&ops_done) < nops && !atomic_load(&bad) && !timed_out) {
		one_op(w);
		mtkcov_collect(&w->kcov);
	}
	while (w->nmaps)
		drop_mapping(w, 0, &w->rng);
	mtkcov_thread_stop(&w->kcov);
	return NULL;
}

/* A target: touches fresh pages now and then, maybe forks a child that
 * does too, exits after 20-400 ms. */
static void target_body(uint64_t seed)
{
	uint64_t rng = seed | 1;
	uint64_t end = mt_now_ns() + (20 + rnd_below(&rng, 381)) * 1000000ull;

	if (rnd_below(&rng, 3) == 0 && fork() == 0)
		rng ^= 0x9e3779b97f4a7c15ull;
	while (mt_now_ns() < end) {
		size_t len = 16 * PG;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		for (size_t i = 0; i < len; i += PG)
			p[i] = 1;
		munmap(p, len);
		usleep(500);	/* leave the 2 vCPUs to the workers */
	}
	_exit(0);
}

static void *targets_main(void *arg)
{
	uint64_t rng = *(uint64_t *)arg;

	while (!atomic_load(&stop_helpers)) {
		int i = (int)rnd_below(&rng, MAX_TARGETS), st;
		pid_t pid;

		/* reap what ended (grandchildren are reparented to init) */
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (int k = 0; k < MAX_TARGETS; k++) {
				int p = pid;

				atomic_compare_exchange_strong(&targets[k], &p, 0);
			}
			target_exits++;
		}
		if (atomic_load(&targets[i]) == 0) {
			pid = fork();
			if (pid == 0)
				target_body(rnd(&rng));
			if (pid > 0)
				atomic_store(&targets[i], pid);
		}
		usleep(2000);
	}
	while (waitpid(-1, NULL, 0) > 0)
		target_exits++;
	return NULL;
}

static int set_cpu1(int on)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu1/online", "w");
	int rc;

	if (!f)
		return -1;
	rc = fprintf(f, "%d\n", on) < 0;
	return fclose(f) || rc ? -1 : 0;
}

static void *hotplug_main(void *arg)
{
	uint64_t rng = *(uint64_t *)arg;
	int on = 1;

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		return NULL;
	while (!atomic_load(&stop_helpers)) {
		usleep(100000 + 1000 * rnd_below(&rng, 500));
		if (set_cpu1(!on) == 0) {
			on = !on;
			hotplug_toggles++;
		}
	}
	if (!on && set_cpu1(1))
		complain("%s: CPU 1 did not come back online (%d)", "hotplug", errno);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static int open_sessions(void)
{
	FILE *f = fopen("/sys/module/memtrace/parameters/sessions", "r");
	int n = -1;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* the module's possible CPUs (rings per session), from a throwaway session */
static int possible_cpus(void)
{
	struct memtrace_config c;
	struct mt_session s = { .fd = -1 };
	int n;

	mt_default_config(&c, 0, 2);
	c.flags = MEMTRACE_CFG_SYSTEM_WIDE;
	s.fd = open(MEMTRACE_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (s.fd < 0 || ioctl(s.fd, MEMTRACE_IOC_CONFIGURE, &c))
		return -1;
	n = mt_possible_cpus(s.fd);
	close(s.fd);
	return n;
}

/* ", KCOV: N sites ..." on a kernel with KCOV, else "" */
static const char *kcov_note(void)
{
	static char buf[96];
	long n = mtkcov_sites();

	if (n < 0)
		return "";
	snprintf(buf, sizeof(buf), ", KCOV (worker 0): %ld code sites of memtrace.ko reached", n);
	return buf;
}

/*
 * The module caps open sessions per user (max_sessions_per_user, 16): the
 * slots and the sessions kept alive by mappings need more, else most opens
 * would end in EMFILE.  Returns the old value to restore, or -1.
 */
#define MAX_SESSIONS_PARAM "/sys/module/memtrace/parameters/max_sessions_per_user"
static int set_session_cap(int cap)
{
	FILE *f = fopen(MAX_SESSIONS_PARAM, "r+");
	int old = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	rewind(f);
	fprintf(f, "%d\n", cap);
	fclose(f);
	return old;
}

static void print_counts(void)
{
	for (int op = 0; op < NR_OPS; op++) {
		char line[512];
		int len = snprintf(line, sizeof(line), "%-9s", op_name[op]);

		for (int e = 0; e < 134; e++) {
			long n = atomic_load(&err_count[op][e]);

			if (n && len < (int)sizeof(line) - 40)
				len += snprintf(line + len, sizeof(line) - (size_t)len,
						" %s=%ld", e ? strerrorname_np(e) : "ok", n);
		}
		printf("    %s\n", line);
	}
}

int main(int argc, char **argv)
{
	long limit_s = 1200;
	uint64_t seed = 1, hrng, trng;
	int nthreads = 4, opt, sessions, old_cap;
	static struct worker w[MAX_THREADS];
	pthread_t th_targets, th_hotplug;
	uint64_t t0 = mt_now_ns();

	while ((opt = getopt(argc, argv, "n:s:t:T:")) != -1) {
		switch (opt) {
		case 'n': nops = atol(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': nthreads = atoi(optarg); break;
		case 'T': limit_s = atol(optarg); break;
		default:
			fprintf(stderr, "usage: mtkrace [-n OPS] [-s SEED] [-t THREADS] [-T SECONDS]\n");
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || nops < 1) {
		fprintf(stderr, "mtkrace: 1..%d threads and at least 1 op\n", MAX_THREADS);
		return 2;
	}
	ncpus = possible_cpus();
	if (ncpus < 1 || ncpus > MT_MAX_CPUS) {
		printf("FAIL race: no session to count CPUs with (%s)\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < NR_OPS; i++)
		weight_total += op_weight[i];
	old_cap = set_session_cap(SHARED_SLOTS + 2 * MAX_THREADS + MAX_THREADS * MAX_MAPS);
	mtkcov_init();
	/* targets' children come back to us when their parent exits */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (int i = 0; i < SHARED_SLOTS + MAX_THREADS; i++) {
		pthread_mutex_init(&slots[i].lock, NULL);
		slots[i].fd = -1;
	}
	trng = seed * 7919 + 1;
	hrng = seed * 104729 + 3;
	pthread_create(&th_targets, NULL, targets_main, &trng);
	pthread_create(&th_hotplug, NULL, hotplug_main, &hrng);
	usleep(20000);
	for (int i = 0; i < nthreads; i++) {
		w[i].id = i;
		w[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ull + (uint64_t)i * 1000003u;
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	}
	signal(SIGALRM, on_alarm);	/* too slow: stop, report how far */
	alarm((unsigned)limit_s);
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].th, NULL);
	for (int i = 0; i < SHARED_SLOTS + MAX_THREADS; i++)
		op_close(&slots[i]);
	atomic_store(&stop_helpers, 1);
	pthread_join(th_hotplug, NULL);
	pthread_join(th_targets, NULL);
	alarm(0);
	if (old_cap >= 0)
		set_session_cap(old_cap);
	sessions = open_sessions();
	if (timed_out)
		complain("%s: -T limit reached after %d s", "time", (int)limit_s);
	if (!atomic_load(&bad) && sessions != 0)
		complain("%s: %d sessions still open after every file was closed",
			 "end", sessions);
	if (atomic_load(&bad))
		printf("FAIL race: %s (seed %llu, after %ld ops)\n", bad_msg,
		       (unsigned long long)seed, atomic_load(&ops_done));
	else
		printf("ok   race: %ld calls on memtrace files by %d threads (seed %llu), %ld target exits, "
		       "%ld CPU 1 on/offline switches, 0 sessions left, %.1f s%s\n",
		       atomic_load(&ops_done), nthreads, (unsigned long long)seed,
		       target_exits, hotplug_toggles, (double)(mt_now_ns() - t0) / 1e9,
		       kcov_note());
	print_counts();
	return atomic_load(&bad) ? 1 : 0;
}
