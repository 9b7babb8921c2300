/* lackey_file.c - a saved lackey log (plain, xz or zstd) as a sample
 * source for `memtracectl import`; see lackey_file.h. */
#include "source/import/lackey_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recorder.h"
#include "trace/words.h"
#include "util/util.h"

#define IN_BUF	(1u << 20)	/* compressed bytes per read() */
#define OUT_BUF	(1u << 20)	/* text bytes per parse */
#define PEEK	(256u << 10)	/* text looked at before the output is created */

/* ---- input: plain, xz or zstd, one stream --------------------------------- */

static const unsigned char XZ_MAGIC[6] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
static const unsigned char ZSTD_MAGIC[4] = { 0x28, 0xB5, 0x2F, 0xFD };

/* One read() into the free end of in[] (EINTR retried); -1 after an error. */
static int raw_read(struct lackey_input *in)
{
	ssize_t n;

	do
		n = read(in->fd, in->in + in->len, IN_BUF - in->len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		mt_errno("%s: read", in->name);
		return -1;
	}
	if (n == 0)
		in->raw_eof = true;
	in->len += (size_t)n;
	in->raw_bytes += (uint64_t)n;
	return 0;
}

/* Fills in[] from the file; -1 after an error. */
static int raw_fill(struct lackey_input *in)
{
	if (in->pos == in->len) {
		in->pos = in->len = 0;
	} else if (in->pos) {
		memmove(in->in, in->in + in->pos, in->len - in->pos);
		in->len -= in->pos;
		in->pos = 0;
	}
	while (!in->raw_eof && in->len < IN_BUF) {
		if (raw_read(in))
			return -1;
		if (in->codec != IN_PLAIN || in->len)
			break;	/* one read() at a time is enough */
	}
	return 0;
}

static int input_open(struct lackey_input *in, const char *name)
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
	while (!in->raw_eof && in->len < sizeof(XZ_MAGIC))
		if (raw_read(in))
			return -1;
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
static ssize_t input_read(struct lackey_input *in, char *out, size_t cap)
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

static void input_close(struct lackey_input *in)
{
	if (in->codec == IN_XZ)
		lzma_end(&in->xz);
	if (in->zs)
		ZSTD_freeDStream(in->zs);
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	free(in->in);
}

/* ---- the source ----------------------------------------------------------- */

struct lackey_file *lackey_file_open(const char *name)
{
	struct lackey_file *f = mt_xcalloc(1, sizeof(*f));

	if (input_open(&f->in, name) < 0)
		goto fail;
	f->buf = mt_xmalloc(OUT_BUF);
	/* Look at the start before creating the output. */
	while (f->have < PEEK) {
		ssize_t n = input_read(&f->in, f->buf + f->have, PEEK - f->have);

		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		f->have += (size_t)n;
	}
	if (!f->have) {
		mt_err("%s: empty input, not a lackey log", f->in.name);
		goto fail;
	}
	if (!lackey_looks_valid(f->buf, f->have)) {
		mt_err("%s: not a lackey log (expected the output of valgrind --tool=lackey --trace-mem=yes)",
		       f->in.name);
		goto fail;
	}
	return f;
fail:
	lackey_file_free(f);
	return NULL;
}

void lackey_file_free(struct lackey_file *f)
{
	free(f->buf);
	input_close(&f->in);
	free(f);
}

static void set_target_meta(struct lackey_file *f)
{
	const struct lackey_parser *p = &f->p;
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
	recorder_meta(f->r, "target_pid", "%u", p->log_pid);
	recorder_meta(f->r, "target_comm", "%s", comm);
}

/* The trace begins with the first samples: the log's header names the target. */
static int begin(struct lackey_file *f)
{
	if (f->begun)
		return 0;
	f->begun = true;
	set_target_meta(f);
	if (recorder_begin(f->r, 0, 0) < 0) {
		f->failed = 1;
		return -1;
	}
	return 0;
}

/* Trace lines were read: the trace takes the output's place (once). */
static int publish(struct lackey_file *f)
{
	if (f->published || (!f->p.insns && !f->p.accesses))
		return 0;
	if (recorder_publish(f->r) < 0) {
		f->failed = 1;
		return -1;
	}
	f->published = true;
	return 0;
}

static int emit(void *ctx, const struct memtrace_sample *s, size_t n)
{
	struct lackey_file *f = ctx;

	if (begin(f) < 0 || publish(f) < 0)
		return -1;
	if (recorder_add_samples(f->r, s, n) < 0) {
		f->failed = 1;
		return -1;
	}
	return 0;
}

void lackey_file_start(struct lackey_file *f, struct recorder *r, const char *output,
		       uint64_t period, bool random, uint64_t seed)
{
	f->r = r;
	f->output = output;
	lackey_init(&f->p, period, random, seed, emit, f);
	recorder_meta(r, "backend", "lackey-import");
	recorder_meta(r, "source", "valgrind-lackey");
	recorder_meta(r, "event", "all-data-accesses");
	recorder_meta(r, "sample_period", "%llu", (unsigned long long)period);
	recorder_meta(r, "random_period", "%d", random && period > 1 ? 1 : 0);
	recorder_meta(r, "seed", "%llu", (unsigned long long)seed);
	recorder_meta(r, "clock", "instructions");
	recorder_meta(r, "time_unit", "insn");
	recorder_meta(r, "fields", "ip,data_src");
	recorder_meta(r, "sees", "every data access (sampled 1 in %llu); time is instructions, not ns",
		      (unsigned long long)period);
	recorder_meta(r, "sample_class", "%s",
		      words_class_name(period == 1 ? WORDS_EVERY_ACCESS : WORDS_SAMPLED_ACCESS));
}

/* One block: the first look, then 1 MiB of text per call. */
static int lf_drain(void *state, struct recorder *r, const struct pollfd *pfd, int npfd,
		    struct source_step *step)
{
	struct lackey_file *f = state;
	ssize_t n = (ssize_t)f->have;

	(void)r;
	(void)pfd;
	(void)npfd;
	if (f->have) {
		f->have = 0;
	} else {
		n = input_read(&f->in, f->buf, OUT_BUF);
		if (n < 0)
			f->read_failed = true;
	}
	if (n <= 0 || lackey_feed(&f->p, f->buf, (size_t)n) < 0 || f->failed) {
		step->ended = true;
		return f->failed ? -1 : 0;
	}
	step->now = f->p.insns;
	step->tick = true;
	return 0;
}

static int lf_finish(void *state, struct recorder *r, int failed, const char **reason)
{
	struct lackey_file *f = state;
	const struct lackey_parser *p = &f->p;
	uint64_t cut = lackey_finish(&f->p);

	(void)r;
	f->failed |= failed;
	if (!f->failed && begin(f) < 0)
		mt_err("%s: cannot write the trace header", f->output);
	else if (!f->failed)
		publish(f);	/* trace lines but no sample kept (a long period) */
	f->read_failed |= f->in.failed;
	if (cut && !strcmp(*reason, "input-ended") && !f->read_failed)
		mt_warn("%s: input ends in the middle of a line (%llu bytes ignored)",
			f->in.name, (unsigned long long)cut);
	if (f->in.truncated)
		mt_warn("%s: compressed stream is truncated (kept everything before the cut)",
			f->in.name);
	if (p->other_pid)
		mt_warn("%s: the log also holds process %u (a forked child?): its accesses "
			"are mixed in and attributed to pid %u", f->in.name, p->other_pid, p->log_pid);
	if (p->aliased) {
		char who[300];
		snprintf(who, sizeof(who), "%s: ", f->in.name);
		lackey_warn_aliasing(p, who);
	}
	if (p->bad_lines && !f->read_failed)	/* garbled by the damage: expected */
		mt_warn("%s: %llu malformed lines ignored (first at line %llu: \"%s\")", f->in.name,
			(unsigned long long)p->bad_lines, (unsigned long long)p->first_bad_line,
			p->first_bad);
	return f->failed || !f->begun || !f->published ? -1 : 0;
}

static int lf_close(void *state, int rc)
{
	lackey_file_free(state);
	return rc;
}

const struct source_ops source_lackey_file = {
	.name = "lackey-import",
	.end_reason = "input-ended",
	.publish_late = true,
	.drain = lf_drain,
	.finish = lf_finish,
	.close = lf_close,
};
