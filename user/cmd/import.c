/* cmd_import.c - `memtracectl import`: a trace from a saved lackey log.
 *
 *   memtracectl import [--format lackey] [-c N] [--random-period] [--seed S]
 *                      [-o FILE] INPUT|-
 *
 * INPUT is plain text, xz or zstd; the compression is detected from the
 * first bytes, not from the name.  See docs/valgrind-backend.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "cmd/commands.h"
#include "source/lackey.h"
#include "record/recorder.h"
#include "util/util.h"

#define IN_BUF	(1u << 20)	/* compressed bytes per read() */
#define OUT_BUF	(1u << 20)	/* text bytes per parse */
#define PEEK	(256u << 10)	/* text looked at before the output is created */

/* ---- input: plain, xz or zstd, one stream --------------------------------- */

enum codec { IN_PLAIN, IN_XZ, IN_ZSTD };

struct input {
	const char *name;
	int fd;
	enum codec codec;
	unsigned char *in;		/* raw bytes read, in[pos..len) unused */
	size_t pos, len;
	bool raw_eof;
	bool done;			/* decoder finished (or failed) */
	bool truncated;			/* compressed stream ended early */
	bool failed;			/* read or decode error (reported) */
	lzma_stream xz;
	ZSTD_DStream *zs;
	uint64_t raw_bytes;
	size_t zs_last;			/* result of the last call that made progress */
};

static const unsigned char XZ_MAGIC[6] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
static const unsigned char ZSTD_MAGIC[4] = { 0x28, 0xB5, 0x2F, 0xFD };

/* Fills in[] from the file; -1 after an error. */
static int raw_fill(struct input *in)
{
	if (in->pos == in->len) {
		in->pos = in->len = 0;
	} else if (in->pos) {
		memmove(in->in, in->in + in->pos, in->len - in->pos);
		in->len -= in->pos;
		in->pos = 0;
	}
	while (!in->raw_eof && in->len < IN_BUF) {
		ssize_t n = read(in->fd, in->in + in->len, IN_BUF - in->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mt_errno("%s: read", in->name);
			return -1;
		}
		if (n == 0)
			in->raw_eof = true;
		in->len += (size_t)n;
		in->raw_bytes += (uint64_t)n;
		if (in->codec != IN_PLAIN || in->len)
			break;	/* one read() at a time is enough */
	}
	return 0;
}

static int input_open(struct input *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->name = name;
	if (!strcmp(name, "-")) {
		in->fd = STDIN_FILENO;
		in->name = "stdin";
	} else {
		in->fd = open(name, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			mt_errno("%s", name);
			return -1;
		}
	}
	in->in = mt_xmalloc(IN_BUF);
	/* enough bytes for the magic (a pipe may deliver them piecemeal) */
	while (!in->raw_eof && in->len < sizeof(XZ_MAGIC)) {
		ssize_t n = read(in->fd, in->in + in->len, IN_BUF - in->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			mt_errno("%s: read", in->name);
			return -1;
		}
		if (n == 0)
			in->raw_eof = true;
		in->len += (size_t)n;
		in->raw_bytes += (uint64_t)n;
	}
	if (in->len >= sizeof(XZ_MAGIC) && !memcmp(in->in, XZ_MAGIC, sizeof(XZ_MAGIC))) {
		in->codec = IN_XZ;
		lzma_stream init = LZMA_STREAM_INIT;

		in->xz = init;
		if (lzma_stream_decoder(&in->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
			mt_err("%s: cannot start the xz decoder", in->name);
			return -1;
		}
	} else if (in->len >= sizeof(ZSTD_MAGIC) &&
		   !memcmp(in->in, ZSTD_MAGIC, sizeof(ZSTD_MAGIC))) {
		in->codec = IN_ZSTD;
		in->zs = ZSTD_createDStream();
		if (!in->zs || ZSTD_isError(ZSTD_initDStream(in->zs))) {
			mt_err("%s: cannot start the zstd decoder", in->name);
			return -1;
		}
	}
	return 0;
}

/* Decoded bytes into out (up to cap); 0 at the end; -1 after an error. */
static ssize_t input_read(struct input *in, char *out, size_t cap)
{
	for (;;) {
		if (in->done)
			return 0;
		if (in->pos == in->len && !in->raw_eof && raw_fill(in) < 0)
			return -1;
		if (in->codec == IN_PLAIN) {
			size_t n = in->len - in->pos;

			if (!n) {
				in->done = in->raw_eof;
				continue;
			}
			if (n > cap)
				n = cap;
			memcpy(out, in->in + in->pos, n);
			in->pos += n;
			return (ssize_t)n;
		}
		if (in->codec == IN_XZ) {
			in->xz.next_in = in->in + in->pos;
			in->xz.avail_in = in->len - in->pos;
			in->xz.next_out = (uint8_t *)out;
			in->xz.avail_out = cap;
			lzma_ret ret = lzma_code(&in->xz, in->raw_eof ? LZMA_FINISH : LZMA_RUN);

			in->pos = in->len - in->xz.avail_in;
			size_t n = cap - in->xz.avail_out;

			if (ret == LZMA_STREAM_END) {
				in->done = true;
			} else if (ret == LZMA_BUF_ERROR && in->raw_eof) {
				in->truncated = in->done = true;
			} else if (ret != LZMA_OK) {
				mt_err("%s: corrupt xz data (lzma error %d) near compressed byte %llu",
				       in->name, (int)ret, (unsigned long long)in->xz.total_in);
				in->done = in->failed = true;
				return n ? (ssize_t)n : -1;
			}
			if (n)
				return (ssize_t)n;
			continue;
		}
		/* zstd */
		size_t before = in->pos;
		ZSTD_inBuffer ib = { in->in, in->len, in->pos };
		ZSTD_outBuffer ob = { out, cap, 0 };

		size_t ret = ZSTD_decompressStream(in->zs, &ob, &ib);

		in->pos = ib.pos;
		if (ZSTD_isError(ret)) {
			mt_err("%s: corrupt zstd data (%s)", in->name, ZSTD_getErrorName(ret));
			in->done = in->failed = true;
			return ob.pos ? (ssize_t)ob.pos : -1;
		}
		if (ob.pos || ib.pos != before)
			in->zs_last = ret;
		if (ob.pos)
			return (ssize_t)ob.pos;
		if (in->pos == in->len && in->raw_eof) {
			/* the last frame is not complete */
			in->done = true;
			in->truncated = in->zs_last != 0;
			return 0;
		}
	}
}

static void input_close(struct input *in)
{
	if (in->codec == IN_XZ)
		lzma_end(&in->xz);
	if (in->zs)
		ZSTD_freeDStream(in->zs);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	free(in->in);
}

/* ---- the verb ------------------------------------------------------------- */

struct import_ctx {
	struct recorder *r;
	struct lackey_parser *p;
	const char *format;
	bool begun;
	int failed;
};

static void set_target_meta(struct import_ctx *c)
{
	const struct lackey_parser *p = c->p;
	char comm[16] = "";

	if (p->command[0]) {
		/* first word of "Command: /path/prog args", basename, 15 chars */
		size_t len = strcspn(p->command, " ");
		const char *s = p->command, *slash;

		while ((slash = memchr(s, '/', len - (size_t)(s - p->command))))
			s = slash + 1;
		len -= (size_t)(s - p->command);
		if (len > 15)
			len = 15;
		memcpy(comm, s, len);
		comm[len] = 0;
	}
	recorder_meta(c->r, "target_pid", "%u", p->log_pid);
	recorder_meta(c->r, "target_comm", "%s", comm);
}

static int begin(struct import_ctx *c)
{
	if (c->begun)
		return 0;
	c->begun = true;
	set_target_meta(c);
	if (recorder_begin(c->r, 0, 0) < 0) {
		c->failed = 1;
		return -1;
	}
	return 0;
}

static int emit(void *ctx, const struct memtrace_sample *s, size_t n)
{
	struct import_ctx *c = ctx;

	if (begin(c) < 0)
		return -1;
	if (recorder_add_samples(c->r, s, n) < 0) {
		c->failed = 1;
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memtracectl import [--format lackey] [-c N] [--random-period] [--seed S]\n"
		"                          [-o FILE] INPUT|-\n"
		"\n"
		"Makes a trace from a saved `valgrind --tool=lackey --trace-mem=yes` log\n"
		"(plain text, .xz or .zst: detected from the first bytes; - reads stdin).\n"
		"\n"
		"  -f, --format FMT     input format; only \"lackey\" (the default)\n"
		"  -c, --period N       keep every N-th data access (default 1: exact)\n"
		"      --random-period  draw each gap uniformly from [N - N/2, N + N/2]\n"
		"      --seed S         seed of the random period (default 1)\n"
		"  -o, --output FILE    trace to write (default memtrace.mtrace)\n"
		"  -h, --help           this text\n"
		"\n"
		"Time in the trace is guest instructions (time_unit=insn).  A log cut in the\n"
		"middle of a line is fine: the partial last line is ignored with a warning.\n");
}

static char *join_args(int argc, char **argv)
{
	size_t len = strlen("memtracectl") + 1;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = mt_xmalloc(len), *p = s;

	p += sprintf(p, "memtracectl");
	for (int i = 0; i < argc; i++)
		p += sprintf(p, " %s", argv[i]);
	return s;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "period", required_argument, NULL, 'c' },
		{ "random-period", no_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "lackey", *output = "memtrace.mtrace";
	uint64_t period = 1, seed = 1;
	bool random = false;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+f:c:o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			format = optarg;
			break;
		case 'c':
			if (mt_parse_u64(optarg, &period) || period == 0) {
				mt_err("import: bad period '%s' (a whole number >= 1)", optarg);
				return 2;
			}
			break;
		case 'R':
			random = true;
			break;
		case 'S':
			if (mt_parse_u64(optarg, &seed)) {
				mt_err("import: bad seed '%s'", optarg);
				return 2;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				mt_err("import: bad or incomplete option '-%c' (see import --help)", optopt);
			else
				mt_err("import: bad option '%s' (see import --help)", argv[optind - 1]);
			return 2;
		}
	}
	if (strcmp(format, "lackey")) {
		mt_err("import: unknown format '%s' (known: lackey)", format);
		return 2;
	}
	if (optind != argc - 1) {
		mt_err("import: %s (see import --help)",
		       optind >= argc ? "no INPUT given" : "more than one INPUT given");
		return 2;
	}
	const char *name = argv[optind];
	struct input in;
	char *buf = NULL;
	int rc = 1;

	if (input_open(&in, name) < 0)
		goto out_in;
	buf = mt_xmalloc(OUT_BUF);
	/* Look at the start before creating the output. */
	size_t have = 0;

	while (have < PEEK) {
		ssize_t n = input_read(&in, buf + have, PEEK - have);

		if (n < 0)
			goto out_in;
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (!have) {
		mt_err("%s: empty input, not a lackey log", in.name);
		goto out_in;
	}
	if (!lackey_looks_valid(buf, have)) {
		mt_err("%s: not a lackey log (expected the output of valgrind --tool=lackey --trace-mem=yes)",
		       in.name);
		goto out_in;
	}

	char *cmdline = join_args(argc, argv);
	struct recorder *r = recorder_open(output, cmdline);

	free(cmdline);
	if (!r)
		goto out_in;
	struct lackey_parser *p = mt_xmalloc(sizeof(*p));
	struct import_ctx c = { .r = r, .p = p, .format = format };

	lackey_init(p, period, random, seed, emit, &c);
	recorder_meta(r, "backend", "lackey-import");
	recorder_meta(r, "source", "valgrind-lackey");
	recorder_meta(r, "event", "all-data-accesses");
	recorder_meta(r, "sample_period", "%llu", (unsigned long long)period);
	recorder_meta(r, "random_period", "%d", random ? 1 : 0);
	recorder_meta(r, "seed", "%llu", (unsigned long long)seed);
	recorder_meta(r, "clock", "instructions");
	recorder_meta(r, "time_unit", "insn");
	recorder_meta(r, "fields", "ip,data_src");
	recorder_meta(r, "sees", "every data access (sampled 1 in %llu); time is instructions, not ns",
		      (unsigned long long)period);

	const char *reason = "input-ended";
	bool read_failed = false;
	ssize_t n = (ssize_t)have;

	while (n > 0) {
		if (lackey_feed(p, buf, (size_t)n) < 0 || c.failed)
			break;
		if (recorder_tick(r, p->insns) < 0) {
			c.failed = 1;
			break;
		}
		if (recorder_stop_requested(r, p->insns)) {
			reason = "signal";
			break;
		}
		n = input_read(&in, buf, OUT_BUF);
		if (n < 0)
			read_failed = true;
	}
	uint64_t cut = lackey_finish(p);

	if (!c.failed && begin(&c) < 0)
		mt_err("%s: cannot write the trace header", output);
	read_failed |= in.failed;
	if (cut && !strcmp(reason, "input-ended") && !read_failed)
		mt_warn("%s: input ends in the middle of a line (%llu bytes ignored)",
			in.name, (unsigned long long)cut);
	if (in.truncated)
		mt_warn("%s: compressed stream is truncated (kept everything before the cut)",
			in.name);
	if (p->other_pid)
		mt_warn("%s: the log also holds process %u (a forked child?): its accesses "
			"are mixed in and attributed to pid %u", in.name, p->other_pid, p->log_pid);
	if (p->bad_lines && !read_failed)	/* garbled by the damage: expected */
		mt_warn("%s: %llu malformed lines ignored (first at line %llu: \"%s\")", in.name,
			(unsigned long long)p->bad_lines, (unsigned long long)p->first_bad_line,
			p->first_bad);
	int end_rc = c.begun && !c.failed ? recorder_end(r, reason) : -1;
	int close_rc = recorder_close(r);

	if (c.failed || end_rc || close_rc) {
		mt_err("%s: writing the trace failed", output);
	} else if (read_failed) {
		/* error already printed; the trace holds everything before it */
	} else if (!p->insns && !p->accesses) {
		mt_err("%s: no trace lines (was valgrind run with --trace-mem=yes?)", in.name);
	} else {
		rc = 0;
	}
	free(p);
out_in:
	free(buf);
	input_close(&in);
	return rc;
}
