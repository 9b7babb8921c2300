/* metrics_http.c - record --metrics: GET /metrics over HTTP/1.x, non-blocking
 * (metrics_http.h). */
#include "record/metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "record/metrics.h"
#include "record/recorder.h"
#include "trace/codec.h"
#include "util/util.h"

struct client {
	int fd;			/* -1: a free slot */
	uint64_t since;		/* wall clock of the accept */
	char req[METRICS_HTTP_REQUEST];
	size_t len;
	struct bytebuf out;	/* the response, out.data[off..len) not sent yet */
	size_t off;
	int answered;
};

struct metrics_http {
	int fd;
	struct client c[METRICS_HTTP_CLIENTS];
};

int metrics_http_parse(const char *spec, void *addr, unsigned *len, char *err, size_t errlen)
{
	char host[64] = "127.0.0.1";
	const char *port = spec, *colon = strrchr(spec, ':');
	struct sockaddr_storage *ss = addr;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (colon) {
		size_t n = (size_t)(colon - spec);
		const char *h = spec;
		if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {	/* [v6]:port */
			h++;
			n -= 2;
		}
		if (!n || n >= sizeof(host)) {
			snprintf(err, errlen, "--metrics '%s': not [ADDR:]PORT (e.g. 9464, 0.0.0.0:9464)",
				 spec);
			return -1;
		}
		memcpy(host, h, n);
		host[n] = 0;
		port = colon + 1;
	}
	errno = 0;
	unsigned long p = strtoul(port, &end, 10);
	if (!*port || *end || errno || p < 1 || p > 65535 || *port == '-' || *port == '+') {
		snprintf(err, errlen, "--metrics '%s': the port is not a number from 1 to 65535", spec);
		return -1;
	}
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)p);
		*len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*v6);
	} else {
		snprintf(err, errlen, "--metrics '%s': '%s' is not an IPv4 address or a bracketed "
			 "IPv6 one", spec, host);
		return -1;
	}
	return 0;
}

struct metrics_http *metrics_http_open(const char *spec, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	unsigned len;
	int one = 1;

	if (metrics_http_parse(spec, &ss, &len, err, errlen))
		return NULL;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "--metrics %s: socket: %s", spec, strerror(errno));
		return NULL;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 16)) {
		snprintf(err, errlen, "--metrics %s: cannot listen: %s", spec, strerror(errno));
		close(fd);
		return NULL;
	}
	struct metrics_http *m = mt_xcalloc(1, sizeof(*m));
	m->fd = fd;
	for (int i = 0; i < METRICS_HTTP_CLIENTS; i++)
		m->c[i].fd = -1;
	return m;
}

static void client_drop(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	bytebuf_free(&c->out);
	c->fd = -1;
	c->len = c->off = 0;
	c->answered = 0;
}

void metrics_http_close(struct metrics_http *m)
{
	if (!m)
		return;
	for (int i = 0; i < METRICS_HTTP_CLIENTS; i++)
		client_drop(&m->c[i]);
	close(m->fd);
	free(m);
}

int metrics_http_fds(const struct metrics_http *m, struct pollfd *p, int max)
{
	int n = 0, free_slot = 0;

	for (int i = 0; i < METRICS_HTTP_CLIENTS && n < max; i++) {
		const struct client *c = &m->c[i];
		if (c->fd < 0) {
			free_slot = 1;
			continue;
		}
		p[n++] = (struct pollfd){ .fd = c->fd, .events = c->answered ? POLLOUT : POLLIN };
	}
	if (free_slot && n < max)	/* full: new connections wait in the backlog */
		p[n++] = (struct pollfd){ .fd = m->fd, .events = POLLIN };
	return n;
}

static void respond(struct client *c, const char *status, const char *type, const char *extra,
		    const void *body, size_t len, int head_only)
{
	char h[512];
	int n = snprintf(h, sizeof(h),
			 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
			 "Connection: close\r\n\r\n", status, type, len, extra);

	bytebuf_put(&c->out, h, (size_t)n);
	if (!head_only)
		bytebuf_put(&c->out, body, len);
	c->answered = 1;
}

static void error_reply(struct client *c, const char *status, const char *extra, const char *line)
{
	char body[256];
	int n = snprintf(body, sizeof(body), "memtracectl: %s\n", line);

	respond(c, status, "text/plain; charset=utf-8", extra, body, (size_t)n, 0);
}

/* The request head is complete (or can be no longer): the response. */
static void answer(struct client *c, struct recorder *r, int complete)
{
	char method[16], target[256];
	int head_only;

	if (!complete) {
		error_reply(c, "400 Bad Request", "", "request too large");
		return;
	}
	c->req[c->len < sizeof(c->req) ? c->len : sizeof(c->req) - 1] = 0;
	int end = -1;
	if (sscanf(c->req, "%15[A-Z] %255[^ \r\n] HTTP/1.%*1[01]%n", method, target, &end) != 2 ||
	    end < 0 || (c->req[end] != '\r' && c->req[end] != '\n')) {
		error_reply(c, "400 Bad Request", "", "not an HTTP/1.x request line");
		return;
	}
	head_only = !strcmp(method, "HEAD");
	if (!head_only && strcmp(method, "GET")) {
		error_reply(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n", "only GET /metrics");
		return;
	}
	size_t path = strcspn(target, "?");
	if (path != 8 || strncmp(target, "/metrics", 8)) {
		error_reply(c, "404 Not Found", "", "no such page: GET /metrics");
		return;
	}
	struct metrics_view v;
	struct bytebuf body = { 0 };
	recorder_metrics_view(r, &v);
	metrics_format(&v, &body);
	respond(c, "200 OK", METRICS_CONTENT_TYPE, "", body.data, body.len, head_only);
	bytebuf_free(&body);
}

static int head_done(const struct client *c)
{
	for (size_t i = 0; i + 1 < c->len; i++)
		if (c->req[i] == '\n' && (c->req[i + 1] == '\n' ||
					  (c->req[i + 1] == '\r' && i + 2 < c->len && c->req[i + 2] == '\n')))
			return 1;
	return 0;
}

static void client_read(struct client *c, struct recorder *r)
{
	ssize_t n = recv(c->fd, c->req + c->len, sizeof(c->req) - 1 - c->len, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {	/* closed before a whole request, or an error */
		client_drop(c);
		return;
	}
	c->len += (size_t)n;
	if (head_done(c))
		answer(c, r, 1);
	else if (c->len == sizeof(c->req) - 1)
		answer(c, r, 0);
}

static void client_write(struct client *c)
{
	while (c->off < c->out.len) {
		ssize_t n = send(c->fd, c->out.data + c->off, c->out.len - c->off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c->off += (size_t)n;
	}
	client_drop(c);	/* sent (or the client went away) */
}

static void accept_new(struct metrics_http *m, uint64_t wall)
{
	for (int i = 0; i < METRICS_HTTP_CLIENTS; i++) {
		struct client *c = &m->c[i];
		if (c->fd >= 0)
			continue;
		int fd = accept4(m->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;	/* none waiting (EAGAIN), or gone: the next poll says */
		c->fd = fd;
		c->since = wall;
		c->len = c->off = 0;
		c->answered = 0;
	}
}

void metrics_http_serve(struct metrics_http *m, const struct pollfd *p, int n, struct recorder *r,
			uint64_t wall)
{
	int listener = 0;

	for (int j = 0; j < n; j++) {
		if (!p[j].revents)
			continue;
		if (p[j].fd == m->fd) {
			listener = 1;
			continue;
		}
		for (int i = 0; i < METRICS_HTTP_CLIENTS; i++) {
			struct client *c = &m->c[i];
			if (c->fd != p[j].fd)
				continue;
			if (!c->answered)
				client_read(c, r);
			/* answered now or before: send what the socket takes */
			if (c->fd >= 0 && c->answered)
				client_write(c);
			break;
		}
	}
	for (int i = 0; i < METRICS_HTTP_CLIENTS; i++)
		if (m->c[i].fd >= 0 && wall - m->c[i].since > METRICS_HTTP_IDLE_NS)
			client_drop(&m->c[i]);
	if (listener)
		accept_new(m, wall);
}
