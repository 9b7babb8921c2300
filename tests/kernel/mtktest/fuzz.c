/* fuzz.c - mtktest fuzz [N]: N random configurations fail cleanly or work. */
#include "mtktest.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int allowed_errno(int e)
{
	return e == EINVAL || e == EFAULT || e == ESRCH || e == EACCES ||
	       e == ENOENT || e == EOPNOTSUPP || e == ENOSPC || e == ENOMEM ||
	       e == EBUSY || e == ENODEV || e == E2BIG || e == EPERM ||
	       e == EFBIG;	/* rings over max_ring_mb (many CPUs) */
}

void test_fuzz(int iters)
{
	int started = 0, configured = 0, bad = 0;

	for (int it = 0; it < iters; it++) {
		struct memtrace_config c;
		pid_t list[3] = { getpid(), 1 + (pid_t)(rnd() % 300), (pid_t)rnd() };
		unsigned char *raw = (unsigned char *)&c;
		int fd = open(MEMTRACE_DEVICE_PATH, O_RDWR);
		long rc;

		if (fd < 0) {
			FAIL("fuzz", "open: %s", strerror(errno));
			return;
		}
		if (rnd() % 5 == 0) {
			/* all random */
			for (size_t i = 0; i < sizeof(c); i++)
				raw[i] = (unsigned char)rnd();
			if (rnd() % 2)
				c.size = sizeof(c);
		} else {
			/* a good config with 1..3 fields broken or varied */
			mt_default_config(&c, rnd() % 2 ? getpid() : 1 + (pid_t)(rnd() % 300),
					  1U << (1 + rnd() % 12));
			c.flags = (uint32_t)(rnd() % 8);
			c.fields = (uint32_t)(rnd() % 8);
			c.sample_period = 1 + rnd() % 100;
			for (int k = 1 + (int)(rnd() % 3); k > 0; k--) {
				switch (rnd() % 13) {
				case 0: c.size = (uint32_t)rnd() % 256; break;
				case 1: c.flags = (uint32_t)rnd(); break;
				case 2: c.pid = (pid_t)rnd(); break;
				case 3: c.event_type = (uint32_t)(rnd() % 12); break;
				case 4: c.event_config = rnd() % 16; break;
				case 5: c.event_config1 = rnd(); c.event_config2 = rnd(); break;
				case 6: c.sample_period = rnd() >> (rnd() % 64); break;
				case 7: c.ring_records = (uint32_t)rnd() >> (rnd() % 32); break;
				case 8: c.wakeup_records = (uint32_t)rnd() % 8192; break;
				case 9: c.precise_ip = (uint32_t)rnd() % 6; break;
				case 10: c.fields = (uint32_t)rnd(); break;
				case 11:	/* a pid list: own, random, garbage */
					c.nr_pids = (uint32_t)(rnd() % 4);
					c.pids = rnd() % 4 ? (uintptr_t)list : rnd();
					c.size = rnd() % 4 ? sizeof(c) : MEMTRACE_CONFIG_SIZE_V1;
					break;
				default: c.reserved[rnd() % 3] = rnd() % 2; break;
				}
			}
		}
		rc = ioctl(fd, MEMTRACE_IOC_CONFIGURE, &c);
		if (rc && !allowed_errno(errno)) {
			printf("  configure: errno %d\n", errno);
			bad++;
		}
		if (!rc) {
			configured++;
			rc = ioctl(fd, MEMTRACE_IOC_START);
			if (rc && !allowed_errno(errno)) {
				printf("  start: errno %d\n", errno);
				bad++;
			}
			if (!rc) {
				volatile char *p = malloc(65536);

				started++;
				for (int i = 0; i < 65536; i += 4096)
					p[i] = 1;
				free((void *)p);
			}
			struct memtrace_consume cs = { .cpu = (uint32_t)(rnd() % 4),
						       .tail = rnd() % 3 };
			ioctl(fd, MEMTRACE_IOC_CONSUME, &cs);
			if (rnd() % 2)
				ioctl(fd, MEMTRACE_IOC_STOP);
		}
		close(fd);
	}
	if (bad)
		FAIL("fuzz", "%d calls failed with an unexpected errno", bad);
	else
		OK("fuzz", " %d random configs: %d accepted, %d started, all others refused cleanly",
		   iters, configured, started);
}
