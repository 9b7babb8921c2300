/* test_metrics.c - record --metrics: the text exposition (format 0.0.4) of
 * a metrics_view, and the [ADDR:]PORT values metrics_http takes. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../test.h"
#include "record/metrics.h"
#include "record/metrics_http.h"

static struct metrics_view view(void)
{
	return (struct metrics_view){
		.sample_class = "first-touch", .samples_word = "page faults",
		.data_series = "data pages first touched", .code_series = "code at page faults",
		.event = "page-faults", .backend = "perf", .pid = 4242, .window_ns = 1500000000ull,
		.have_code = 1, .no_windows = METRICS_WINDOWS_OK,
		.w = { .k = 7, .end_ms = 1795923852656ull, .data_pages = 1108, .code_pages = 15,
		       .samples = 8278, .seen = 1 },
		.samples = 30806, .lost = 3, .throttled = 2, .dropped = 1,
	};
}

static char *text(const struct metrics_view *v)
{
	struct bytebuf b = { 0 };

	metrics_format(v, &b);
	bytebuf_put(&b, "", 1);
	return (char *)b.data;
}

/* the whole line, between newlines */
static int has_line(const char *t, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = t; (p = strstr(p, line)); p++)
		if ((p == t || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

TEST(a_closed_window_is_served_with_its_end_as_timestamp)
{
	struct metrics_view v = view();
	char *t = text(&v);

	CHECK(has_line(t, "memtrace_recording_info{sample_class=\"first-touch\",event=\"page-faults\","
			  "backend=\"perf\",pid=\"4242\"} 1"));
	CHECK(has_line(t, "# TYPE memtrace_samples_total counter"));
	CHECK(has_line(t, "memtrace_samples_total{sample_class=\"first-touch\"} 30806"));
	CHECK(has_line(t, "memtrace_lost_total 3"));
	CHECK(has_line(t, "memtrace_throttled_total 2"));
	CHECK(has_line(t, "memtrace_dropped_total 1"));
	CHECK(has_line(t, "memtrace_window_seconds 1.5"));
	CHECK(has_line(t, "# TYPE memtrace_window_pages gauge"));
	CHECK(has_line(t, "memtrace_window_index 7 1795923852656"));
	CHECK(has_line(t, "memtrace_window_seen 1 1795923852656"));
	CHECK(has_line(t, "memtrace_window_pages{sample_class=\"first-touch\",space=\"data\"} 1108 "
			  "1795923852656"));
	CHECK(has_line(t, "memtrace_window_pages{sample_class=\"first-touch\",space=\"code\"} 15 "
			  "1795923852656"));
	CHECK(has_line(t, "memtrace_window_samples{sample_class=\"first-touch\"} 8278 1795923852656"));
	/* the words of the source, never "working set" for first touches */
	CHECK(strstr(t, "space data = data pages first touched, space code = code at page faults"));
	CHECK(!strstr(t, "working set"));
	/* every metric has one HELP and one TYPE line, before its samples */
	static const char *names[] = { "memtrace_recording_info", "memtrace_samples_total",
				       "memtrace_lost_total", "memtrace_throttled_total",
				       "memtrace_dropped_total", "memtrace_window_seconds",
				       "memtrace_window_index", "memtrace_window_seen",
				       "memtrace_window_pages", "memtrace_window_samples" };
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		char help[96], type[96], sample[96];
		snprintf(help, sizeof(help), "\n# HELP %s ", names[i]);
		snprintf(type, sizeof(type), "\n# TYPE %s ", names[i]);
		snprintf(sample, sizeof(sample), "\n%s", names[i]);
		const char *h = strstr(t, help), *ty = strstr(t, type), *s = strstr(t, sample);
		if (i == 0) {	/* the first line */
			h = !strncmp(t, help + 1, strlen(help) - 1) ? t : NULL;
		}
		CHECK(h && ty && s && h < ty && ty < s);
		CHECK(!strstr(ty + 1, type));	/* once */
	}
	CHECK(t[strlen(t) - 1] == '\n');
	free(t);
}

TEST(no_code_series_without_instruction_pointers)
{
	struct metrics_view v = view();

	v.have_code = 0;
	char *t = text(&v);
	CHECK(strstr(t, "space=\"data\""));
	CHECK(!strstr(t, "space=\"code\""));
	free(t);
}

TEST(no_window_series_says_why_and_keeps_the_counters)
{
	static const int whys[] = { METRICS_WINDOWS_NOT_YET, METRICS_WINDOWS_INSTRUCTIONS,
				    METRICS_WINDOWS_AGGREGATED, METRICS_WINDOWS_PASSES };
	for (size_t i = 0; i < 4; i++) {
		struct metrics_view v = view();
		v.no_windows = whys[i];
		char *t = text(&v);
		CHECK(has_line(t, "memtrace_samples_total{sample_class=\"first-touch\"} 30806"));
		CHECK(strstr(t, "\n# memtrace: no window series: "));
		/* a window not judged is absent: neither 0 pages nor seen */
		CHECK(!strstr(t, "memtrace_window_pages"));
		CHECK(!strstr(t, "memtrace_window_seen"));
		CHECK(!strstr(t, "memtrace_window_index"));
		free(t);
	}
}

TEST(a_blind_window_has_no_pages)
{
	struct metrics_view v = view();

	v.w.seen = 0;
	char *t = text(&v);
	CHECK(has_line(t, "memtrace_window_seen 0 1795923852656"));
	CHECK(!strstr(t, "memtrace_window_pages{"));
	free(t);
}

TEST(label_values_and_help_are_escaped)
{
	struct metrics_view v = view();

	v.backend = "a\"b\\c\nd";
	v.samples_word = "x\\y\nz";
	char *t = text(&v);
	CHECK(strstr(t, "backend=\"a\\\"b\\\\c\\nd\""));
	CHECK(strstr(t, "# HELP memtrace_samples_total Samples (x\\\\y\\nz) recorded\n"));
	free(t);
}

static int parse(const char *spec, int *family, char *host, size_t hostlen, unsigned *port)
{
	struct sockaddr_storage ss;
	unsigned len;
	char err[256];

	if (metrics_http_parse(spec, &ss, &len, err, sizeof(err)))
		return -1;
	*family = ss.ss_family;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &a->sin_addr, host, (socklen_t)hostlen);
		*port = ntohs(a->sin_port);
		return len == sizeof(*a) ? 0 : -1;
	}
	struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
	inet_ntop(AF_INET6, &a->sin6_addr, host, (socklen_t)hostlen);
	*port = ntohs(a->sin6_port);
	return len == sizeof(*a) ? 0 : -1;
}

TEST(listen_addresses)
{
	char host[64];
	unsigned port;
	int family;

	CHECK(!parse("9464", &family, host, sizeof(host), &port));
	CHECK(family == AF_INET);
	CHECK_STR(host, "127.0.0.1");	/* the loopback unless asked */
	CHECK_EQ_U64(port, 9464);
	CHECK(!parse("0.0.0.0:65535", &family, host, sizeof(host), &port));
	CHECK_STR(host, "0.0.0.0");
	CHECK_EQ_U64(port, 65535);
	CHECK(!parse("[::1]:1", &family, host, sizeof(host), &port));
	CHECK(family == AF_INET6);
	CHECK_STR(host, "::1");
	CHECK_EQ_U64(port, 1);
	static const char *bad[] = { "", "0", "65536", "x", "-1", "+80", "80x", ":80", "1.2.3:80",
				     "localhost:80", "[::1]", "::1:80x", "127.0.0.1:" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (!parse(bad[i], &family, host, sizeof(host), &port))
			TEST_FAIL("'%s' taken as %s port %u", bad[i], host, port);
	}
}

int main(void)
{
	return test_main();
}
