// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A trace's outputs (output.h): a rendered trace that cannot be written
 * ends the session through the sink and is told once at close; a reader
 * that went away (EPIPE) ends it quietly.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include "golden.h"

#include "bpfgraph.h"
#include "options.h"
#include "output.h"

static struct functab ft;

static int setup(void **state)
{
	(void)state;
	functab__init(&ft);
	return functab__add(&ft, "do_sys_openat2", NULL, 0xffffffff81000000ULL, 0x100) < 0 ||
	       functab__add(&ft, "getname", NULL, 0xffffffff81000100ULL, 0x100) < 0;
}

static int teardown(void **state)
{
	(void)state;
	functab__free(&ft);
	return 0;
}

static void text_opts(struct bg_opts *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->flags = BG_O_DEFAULTS;
	o->dialect = BG_DIALECT_6_13;
	o->format = BG_FMT_TEXT;
	o->output = path;
}

/* Call i: do_sys_openat2 calling getname, on cpu 0. */
static int feed_call(struct rec_sink *s, uint64_t i)
{
	uint64_t t = 1000000ULL + i * 10000;
	struct bg_rec r[] = {
		{ .ts = t, .pid = 7, .func = 0, .type = BG_REC_ENTRY, .depth = 0 },
		{ .ts = t + 100, .pid = 7, .func = 1, .type = BG_REC_ENTRY, .depth = 1 },
		{ .ts = t + 900, .pid = 7, .func = 1, .type = BG_REC_EXIT, .depth = 1, .dur = 800 },
		{ .ts = t + 2000, .pid = 7, .func = 0, .type = BG_REC_EXIT, .depth = 0,
		  .dur = 2000, .val = (uint64_t)-2 },
	};
	int err;

	for (size_t k = 0; k < sizeof(r) / sizeof(r[0]); k++) {
		err = s->feed(s->ctx, &r[k]);
		if (err)
			return err;
	}
	s->drain(s->ctx, t + 2001);
	return 0;
}

/* stderr into a pipe for the duration of fn; what it printed in buf. */
static int saved_stderr = -1, err_pipe[2];

static void grab_stderr(void)
{
	assert_int_equal(pipe2(err_pipe, O_NONBLOCK), 0);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	dup2(err_pipe[1], STDERR_FILENO);
}

static size_t release_stderr(char *buf, size_t len)
{
	ssize_t n;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	close(err_pipe[1]);
	n = read(err_pipe[0], buf, len - 1);
	close(err_pipe[0]);
	buf[n > 0 ? n : 0] = 0;
	return n > 0 ? (size_t)n : 0;
}

/* A full file system takes not even the header: told at open, before attaching. */
static void test_full_at_open(void **state)
{
	struct tracer_sinks ts = { .print = true };
	struct output *out;
	struct bg_opts o;
	char msg[512];

	(void)state;
	text_opts(&o, "/dev/full");
	grab_stderr();
	out = output__open(&o, &ts, &ft, NULL);
	assert_int_equal(errno, ENOSPC);
	release_stderr(msg, sizeof(msg));
	assert_null(out);
	assert_string_equal(msg, "bpfgraph: cannot write the trace to '/dev/full': "
				 "No space left on device\n");
}

/* A write that fails while tracing (here: a file size limit) ends the session, told once. */
static void test_fails_later(void **state)
{
	struct tracer_sinks ts = { .print = true };
	static const struct record_trailer t;
	char path[] = "/tmp/bg-output-XXXXXX";
	struct rlimit old, lim = { 200000, 200000 };
	struct output *out;
	struct rec_sink s;
	struct bg_opts o;
	char msg[512], want[512];
	int fd, err = 0;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	setrlimit(RLIMIT_FSIZE, &lim);
	text_opts(&o, path);
	out = output__open(&o, &ts, &ft, NULL);
	assert_non_null(out);
	s = output__sink(out);
	for (uint64_t i = 0; i < 20000 && !err; i++)
		err = feed_call(&s, i);
	assert_int_equal(err, -EFBIG);
	grab_stderr();
	err = output__close(out, &t, NULL);
	release_stderr(msg, sizeof(msg));
	setrlimit(RLIMIT_FSIZE, &old);
	unlink(path);
	assert_int_equal(err, -EFBIG);
	snprintf(want, sizeof(want), "bpfgraph: cannot write the trace to '%s': File too large\n",
		 path);
	assert_string_equal(msg, want);
}

/* The reader of standard output went away (| head): -EPIPE, and no word. */
static void test_reader_gone(void **state)
{
	struct tracer_sinks ts = { .print = true };
	static const struct record_trailer t;
	int p[2], saved_out, err = 0;
	struct output *out;
	struct rec_sink s;
	struct bg_opts o;
	char msg[512];

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	saved_out = dup(STDOUT_FILENO);
	dup2(p[1], STDOUT_FILENO);
	close(p[1]);
	text_opts(&o, NULL);
	out = output__open(&o, &ts, &ft, NULL);
	assert_non_null(out);
	/* The header went; then the reader goes. */
	close(p[0]);
	s = output__sink(out);
	for (uint64_t i = 0; i < 5000 && !err; i++)
		err = feed_call(&s, i);
	assert_int_equal(err, -EPIPE);
	grab_stderr();
	err = output__close(out, &t, NULL);
	release_stderr(msg, sizeof(msg));
	clearerr(stdout);
	dup2(saved_out, STDOUT_FILENO);
	close(saved_out);
	assert_int_equal(err, -EPIPE);
	assert_string_equal(msg, "");
}

/* A writable file: no error, the records all in it. */
static void test_written(void **state)
{
	struct tracer_sinks ts = { .print = true };
	static const struct record_trailer t;
	char path[] = "/tmp/bg-output-XXXXXX";
	struct output *out;
	struct rec_sink s;
	struct bg_opts o;
	char *text;
	size_t len;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	text_opts(&o, path);
	out = output__open(&o, &ts, &ft, NULL);
	assert_non_null(out);
	s = output__sink(out);
	for (uint64_t i = 0; i < 3; i++)
		assert_int_equal(feed_call(&s, i), 0);
	s.flush(s.ctx);
	assert_int_equal(output__close(out, &t, NULL), 0);
	text = golden_slurp(path, &len);
	unlink(path);
	assert_non_null(text);
	assert_non_null(strstr(text, "# tracer: function_graph"));
	assert_int_equal(strstr(strstr(strstr(text, "} /* do_sys_openat2 ret=-2 */"), "\n") + 1,
				"} /* do_sys_openat2 ret=-2 */") != NULL, 1);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_at_open),
		cmocka_unit_test(test_fails_later),
		cmocka_unit_test(test_reader_gone),
		cmocka_unit_test(test_written),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
