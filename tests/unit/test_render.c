// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * render: the graph builder and the writer of a format behind one
 * object. What render__new() says when a writer cannot be made, and what
 * render__finish() says of the calls a flame graph left out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "render.h"

/*
 * No output file: every writer refuses with EINVAL, and render__new()
 * passes that on. It used to say ENOMEM whatever the writer said.
 */
static void test_new_errno(void **state)
{
	static const enum bg_format formats[] = { BG_FMT_TEXT, BG_FMT_JSON, BG_FMT_CHROME,
						  BG_FMT_FOLDED, BG_FMT_SVG };
	struct functab ft;

	functab__init(&ft);
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct render_opts ro = { .out = NULL, .funcs = &ft, .format = formats[i] };

		errno = 0;
		assert_null(render__new(&ro));
		if (errno != EINVAL)
			fail_msg("%s: errno %d, expected EINVAL", render__format_name(formats[i]),
				 errno);
	}
	functab__free(&ft);
}

/* Graph events through render__events(); what went to stderr, to free(). */
static char *render_events(enum bg_format format, const struct gev *ev, size_t n)
{
	char path[] = "/tmp/bg-render-err-XXXXXX", *out = NULL, *err;
	size_t len = 0, cap = 4096;
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	FILE *m = open_memstream(&out, &len);
	struct functab ft;
	struct render *r;
	struct gsink s;
	ssize_t got;

	assert_true(fd >= 0 && saved >= 0 && m);
	functab__init(&ft);
	assert_int_equal(functab__add(&ft, "f", NULL, 0, 0), 0);
	r = render__new(&(struct render_opts){ .out = m, .funcs = &ft, .format = format });
	assert_non_null(r);
	s = render__events(r);
	for (size_t i = 0; i < n; i++)
		s.emit(s.ctx, &ev[i]);
	fflush(stderr);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	assert_int_equal(render__finish(r), 0);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	render__free(r);
	fclose(m);
	free(out);
	functab__free(&ft);
	err = calloc(1, cap);
	assert_non_null(err);
	got = pread(fd, err, cap - 1, 0);
	assert_true(got >= 0);
	close(fd);
	unlink(path);
	return err;
}

/*
 * Flame graphs say on stderr, once at the end, how many calls they left
 * out; they used to leave out calls deeper than 64 levels and calls that
 * never finished without a word.
 */
static void test_folded_left_out(void **state)
{
	struct gev ev[2 * (BG_MAX_DEPTH + 2) + 1];
	size_t n = 0;
	char *err;

	/* 66 levels, then one more entry that is never left */
	for (uint32_t d = 0; d < BG_MAX_DEPTH + 2; d++)
		ev[n++] = (struct gev){ .type = GEV_ENTER, .depth = d, .ts = d };
	for (uint32_t d = BG_MAX_DEPTH + 2; d-- > 0;)
		ev[n++] = (struct gev){ .type = GEV_EXIT, .depth = d, .ts = 1000 - d,
					.dur = 1000 - 2 * d };
	ev[n++] = (struct gev){ .type = GEV_ENTER, .ts = 2000 };
	err = render_events(BG_FMT_FOLDED, ev, n);
	assert_string_equal(err, "bpfgraph: folded: 3 calls left out "
				 "(2 deeper than 64 levels, 1 never finished)\n");
	free(err);
	err = render_events(BG_FMT_SVG, ev, n);
	assert_string_equal(err, "bpfgraph: svg: 3 calls left out "
				 "(2 deeper than 64 levels, 1 never finished)\n");
	free(err);

	/* a call on a CPU beyond the stacks is shown, without its callers */
	ev[0] = (struct gev){ .type = GEV_LEAF, .cpu = BG_MAX_CPUS, .ts = 1, .dur = 5 };
	err = render_events(BG_FMT_FOLDED, ev, 1);
	assert_string_equal(err, "bpfgraph: folded: 1 call on CPUs above 4095 shown without "
				 "callers\n");
	free(err);
	/* nothing left out, nothing said */
	err = render_events(BG_FMT_FOLDED, ev + 1, 0);
	assert_string_equal(err, "");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_errno),
		cmocka_unit_test(test_folded_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
