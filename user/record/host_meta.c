/* host_meta.c - header keys that describe the machine (host, kernel, arch,
 * cpu_model) and the defaults a source may override. */
#include "record/recorder_impl.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

const char *meta_value(const struct recorder *r, const char *key, char *buf, size_t len)
{
	return mt_kv_value((const char *)r->meta.data, r->meta.len, key, buf, len);
}

static int meta_has(const struct recorder *r, const char *key)
{
	char buf[2];

	return meta_value(r, key, buf, sizeof(buf)) != NULL;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ')
					c++;
				c[strcspn(c, "\n")] = 0;
				snprintf(buf, len, "%s", c);
			}
			break;
		}
	}
	fclose(f);
}

void host_meta_defaults(struct recorder *r)
{
	struct utsname u;
	char buf[512];

	uname(&u);
	if (!meta_has(r, "host"))
		recorder_meta(r, "host", "%s", u.nodename);
	if (!meta_has(r, "kernel"))
		recorder_meta(r, "kernel", "%s", u.release);
	if (!meta_has(r, "arch"))
		recorder_meta(r, "arch", "%s", u.machine);
	if (!meta_has(r, "cpu_model")) {
		cpu_model(buf, sizeof(buf));
		recorder_meta(r, "cpu_model", "%s", buf);
	}
	if (!meta_has(r, "bucket_default"))
		recorder_meta(r, "bucket_default", "4096");
	if (!meta_has(r, "clock"))
		recorder_meta(r, "clock", "monotonic");
	if (!meta_has(r, "time_unit"))
		recorder_meta(r, "time_unit", "ns");
}
