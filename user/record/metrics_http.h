/* metrics_http.h - record --metrics [ADDR:]PORT: a small HTTP/1.x server of
 * GET /metrics (record/metrics.h), polled by the record loop beside the
 * source's fds: non-blocking throughout, so a scraper never holds up the
 * drain.  At most METRICS_HTTP_CLIENTS connections at once (more wait in
 * the listen backlog), a request of at most METRICS_HTTP_REQUEST bytes,
 * each closed after its response (Connection: close) or after
 * METRICS_HTTP_IDLE_NS without one.  Errors are one-line bodies: 400 (not
 * a request line, or too large), 404 (another path), 405 (not GET/HEAD).
 */
#ifndef MEMTRACE_RECORD_METRICS_HTTP_H
#define MEMTRACE_RECORD_METRICS_HTTP_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

struct recorder;
struct metrics_http;

#define METRICS_HTTP_CLIENTS	8
#define METRICS_HTTP_REQUEST	4096
#define METRICS_HTTP_IDLE_NS	5000000000ull

/*
 * Parses "[ADDR:]PORT" (ADDR an IPv4 address, or an IPv6 one in brackets;
 * default 127.0.0.1, the loopback: a fleet exposes it on purpose; PORT 1 to
 * 65535) into *addr (a struct sockaddr_storage) and *len.  0, or -1 with a
 * one-line reason in err.
 */
int metrics_http_parse(const char *spec, void *addr, unsigned *len, char *err, size_t errlen);

/* Listens on spec (close-on-exec: a recorded command does not inherit
 * it).  NULL with a one-line reason in err. */
struct metrics_http *metrics_http_open(const char *spec, char *err, size_t errlen);
void metrics_http_close(struct metrics_http *m);

/* The fds to poll (the listener, the clients) into p[0..max); returns how
 * many (never more than 1 + METRICS_HTTP_CLIENTS). */
int metrics_http_fds(const struct metrics_http *m, struct pollfd *p, int max);

/* Accepts, reads and answers what poll() found ready in p[0..n) (as filled
 * by metrics_http_fds), the metrics from r; drops idle clients (wall:
 * mt_now_ns).  Never blocks. */
void metrics_http_serve(struct metrics_http *m, const struct pollfd *p, int n, struct recorder *r,
			uint64_t wall);

#endif
