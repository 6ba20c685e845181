// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folded and SVG writers fed graph events directly: what they do with
 * the calls the call tracker cannot place (CPUs beyond its stacks, calls
 * deeper than its stacks, calls that never ended), and that every call
 * they leave out is counted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "out_folded.h"
#include "out_svg.h"

/* Functions "f0", "f1", ... "f79". */
static void make_funcs(struct functab *ft)
{
	char name[16];

	functab__init(ft);
	for (int i = 0; i < 80; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(functab__add(ft, name, NULL, 0, 0), i);
	}
}

static struct gev call_ev(enum gev_type type, uint32_t cpu, uint32_t depth, uint32_t func,
			  uint64_t ts, uint64_t dur)
{
	return (struct gev){ .type = type, .cpu = cpu, .depth = depth, .func = func, .ts = ts,
			     .dur = dur, .comm = "t" };
}

typedef void (*emit_fn)(void *w, const struct gev *ev);

static void feed(emit_fn emit, void *w, enum gev_type type, uint32_t cpu, uint32_t depth,
		 uint32_t func, uint64_t ts, uint64_t dur)
{
	struct gev ev = call_ev(type, cpu, depth, func, ts, dur);

	emit(w, &ev);
}

/*
 * On a CPU beyond the tracker's stacks (BG_MAX_CPUS): f0 { f1(); }, then
 * f2 { never closed.
 */
static void feed_far_cpu(emit_fn emit, void *w)
{
	feed(emit, w, GEV_ENTER, BG_MAX_CPUS, 0, 0, 0, 0);
	feed(emit, w, GEV_LEAF, BG_MAX_CPUS, 1, 1, 10, 5);
	feed(emit, w, GEV_EXIT, BG_MAX_CPUS, 0, 0, 100, 100);
	feed(emit, w, GEV_ENTER, BG_MAX_CPUS, 0, 2, 200, 0);
}

/* The folded text of the stacks fed by fill; free() it. */
static char *folded_of(void (*fill)(emit_fn, void *), bool count, struct folded_stats *st)
{
	struct functab ft;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct folded *w;

	assert_non_null(m);
	make_funcs(&ft);
	w = folded__new(&(struct folded_opts){ m, &ft, count });
	assert_non_null(w);
	fill(folded__emit, w);
	assert_int_equal(out_folded__end(w), 0);
	*st = *folded__stats(w);
	folded__free(w);
	assert_int_equal(fclose(m), 0);
	functab__free(&ft);
	return buf;
}

/*
 * The tracker reports the calls of a CPU beyond its stacks without
 * callers: root frames weighing their duration, not -ENOMEM as if memory
 * had run out with the calls dropped. The entry that never ended is
 * counted.
 */
static void test_far_cpu_folded(void **state)
{
	struct folded_stats st;
	char *out = folded_of(feed_far_cpu, false, &st);

	assert_string_equal(out, "f0 100\nf1 5\n");
	assert_int_equal(st.rootless, 2);
	assert_int_equal(st.unfinished, 1);
	assert_int_equal(st.deep, 0);
	free(out);
	out = folded_of(feed_far_cpu, true, &st);
	assert_string_equal(out, "f0 1\nf1 1\n");
	free(out);
}

static void test_far_cpu_svg(void **state)
{
	struct functab ft;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct folded *w;

	assert_non_null(m);
	make_funcs(&ft);
	w = folded__new(&(struct folded_opts){ m, &ft, false });
	assert_non_null(w);
	feed_far_cpu(folded__emit, w);
	assert_int_equal(out_svg__end(w), 0);
	assert_int_equal(folded__stats(w)->rootless, 2);
	assert_int_equal(folded__stats(w)->unfinished, 1);
	folded__free(w);
	assert_int_equal(fclose(m), 0);
	assert_non_null(strstr(buf, "data-total=\"105\""));
	assert_non_null(strstr(buf, "<title>f0 (0.100 us, 95.24%)</title>"));
	assert_non_null(strstr(buf, "<title>f1 (0.005 us, 4.76%)</title>"));
	free(buf);
	functab__free(&ft);
}

/*
 * On CPU 0, f0 { f1 { ... f69 { } ... } }: 70 levels, entered at ts =
 * depth, left at 1000 - depth. The 6 calls below 64 levels are left out
 * and counted; their time stays with f63.
 */
static void feed_deep(emit_fn emit, void *w)
{
	for (uint32_t d = 0; d < 70; d++)
		feed(emit, w, GEV_ENTER, 0, d, d, d, 0);
	for (uint32_t d = 70; d-- > 0;)
		feed(emit, w, GEV_EXIT, 0, d, d, 1000 - d, 1000 - 2 * d);
}

static void test_deep(void **state)
{
	struct folded_stats st;
	char *out = folded_of(feed_deep, false, &st), *line, *save = NULL;
	uint64_t sum = 0;
	size_t lines = 0;

	assert_int_equal(st.deep, 6);
	assert_int_equal(st.unfinished, 0);
	assert_int_equal(st.rootless, 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t frames = 1;

		for (const char *p = line; *p; p++)
			frames += *p == ';';
		assert_true(frames <= BG_MAX_DEPTH);
		sum += strtoull(strrchr(line, ' ') + 1, NULL, 10);
		lines++;
	}
	/* f63 weighs its own time and that of the calls below it */
	assert_int_equal(lines, 64);
	assert_int_equal(sum, 1000);
	free(out);
}

/*
 * On CPU 1: f0 { f1 { f2(); then f3 at f1's depth (f1's exit never
 * came), f3 { f4(); and the trace ends: f1, f3 and f0 never finished.
 */
static void feed_unfinished(emit_fn emit, void *w)
{
	feed(emit, w, GEV_ENTER, 1, 0, 0, 0, 0);
	feed(emit, w, GEV_ENTER, 1, 1, 1, 10, 0);
	feed(emit, w, GEV_LEAF, 1, 2, 2, 20, 5);
	feed(emit, w, GEV_ENTER, 1, 1, 3, 30, 0);
	feed(emit, w, GEV_LEAF, 1, 2, 4, 40, 5);
}

static void test_unfinished(void **state)
{
	struct folded_stats st;
	char *out = folded_of(feed_unfinished, false, &st);

	assert_string_equal(out, "f0;f1;f2 5\nf0;f3;f4 5\n");
	assert_int_equal(st.unfinished, 3);
	assert_int_equal(st.deep, 0);
	free(out);
	out = folded_of(feed_unfinished, true, &st);
	assert_string_equal(out, "f0;f1;f2 1\nf0;f3;f4 1\n");
	assert_int_equal(st.unfinished, 3);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_far_cpu_folded),
		cmocka_unit_test(test_far_cpu_svg),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_unfinished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
