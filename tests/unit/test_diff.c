// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff tests: small graphs that differ in one known way (a
 * missing call, an extra one, a moved one, a slower one, invocations in
 * another order), the seeds, and the command line with its exit codes
 * and the summary line the VM fidelity suite parses: damaged lines,
 * inputs with nothing to compare, record files.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "golden.h"

#include "canned.h"
#include "cli.h"
#include "diff.h"
#include "record.h"

#define SEED_000 "seeds/000_552e225c0d5c94bb.txt"
#define SEED_002 "seeds/002_76c6522b3146f63d.txt"
#define SEED_003 "seeds/003_9ac0de771dae3076.txt"
#define SEED_004 "seeds/004_cf19708d00924ebb.txt"

/* --- helpers ------------------------------------------------------------- */

static void read_side(struct diff *d, int side, const char *text, const char *name)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	assert_int_equal(diff__read_text(d, side, f, name, stderr), 0);
	fclose(f);
}

/* Compares texts a and b; the report goes to *report when not NULL. */
static struct diff_stats compare_opts(const char *a, const char *b, const struct diff_opts *o,
				      char **report)
{
	struct diff *d = diff__new(o);
	struct diff_stats st;
	size_t len;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(d);
	assert_non_null(out);
	read_side(d, DIFF_A, a, "a.txt");
	read_side(d, DIFF_B, b, "b.txt");
	assert_int_equal(diff__compare(d, out, &st), 0);
	fclose(out);
	diff__free(d);
	if (report)
		*report = buf;
	else
		free(buf);
	return st;
}

static struct diff_stats compare(const char *a, const char *b)
{
	struct diff_opts o = { .max_lines = 20 };

	return compare_opts(a, b, &o, NULL);
}

static void assert_ratio(double got, double want)
{
	if (got < want - 1e-9 || got > want + 1e-9)
		fail_msg("ratio %.6f, expected %.6f", got, want);
}

static char *golden_text(const char *rel)
{
	char *path = golden_path(rel), *buf;
	size_t len;

	buf = golden_slurp(path, &len);
	if (!buf)
		fail_msg("cannot read %s", path);
	free(path);
	return buf;
}

/* --- the base graph and its variants ------------------------------------- */

static const char base[] = " 0)               |  do_sys_openat2() {\n"
			   " 0)               |    getname() {\n"
			   " 0)   2.000 us    |      kmem_cache_alloc();\n"
			   " 0)   3.000 us    |    }\n"
			   " 0)   1.000 us    |    get_unused_fd_flags();\n"
			   " 0)               |    do_filp_open() {\n"
			   " 0)   4.000 us    |      path_openat();\n"
			   " 0)   5.000 us    |    }\n"
			   " 0) + 12.000 us   |  }\n";

/* base without get_unused_fd_flags() */
static const char missing[] = " 0)               |  do_sys_openat2() {\n"
			      " 0)               |    getname() {\n"
			      " 0)   2.000 us    |      kmem_cache_alloc();\n"
			      " 0)   3.000 us    |    }\n"
			      " 0)               |    do_filp_open() {\n"
			      " 0)   4.000 us    |      path_openat();\n"
			      " 0)   5.000 us    |    }\n"
			      " 0) + 12.000 us   |  }\n";

/* base plus kfree() in do_filp_open() */
static const char extra[] = " 0)               |  do_sys_openat2() {\n"
			    " 0)               |    getname() {\n"
			    " 0)   2.000 us    |      kmem_cache_alloc();\n"
			    " 0)   3.000 us    |    }\n"
			    " 0)   1.000 us    |    get_unused_fd_flags();\n"
			    " 0)               |    do_filp_open() {\n"
			    " 0)   4.000 us    |      path_openat();\n"
			    " 0)   0.500 us    |      kfree();\n"
			    " 0)   5.000 us    |    }\n"
			    " 0) + 12.000 us   |  }\n";

/* kmem_cache_alloc() called by do_sys_openat2() itself, after getname() */
static const char moved[] = " 0)               |  do_sys_openat2() {\n"
			    " 0)   3.000 us    |    getname();\n"
			    " 0)   2.000 us    |    kmem_cache_alloc();\n"
			    " 0)   1.000 us    |    get_unused_fd_flags();\n"
			    " 0)               |    do_filp_open() {\n"
			    " 0)   4.000 us    |      path_openat();\n"
			    " 0)   5.000 us    |    }\n"
			    " 0) + 12.000 us   |  }\n";

/* path_openat() ten times slower, its callers too, do_sys_openat2() more */
static const char slower[] = " 0)               |  do_sys_openat2() {\n"
			     " 0)               |    getname() {\n"
			     " 0)   2.000 us    |      kmem_cache_alloc();\n"
			     " 0)   3.000 us    |    }\n"
			     " 0)   1.000 us    |    get_unused_fd_flags();\n"
			     " 0)               |    do_filp_open() {\n"
			     " 0) + 40.000 us   |      path_openat();\n"
			     " 0) + 41.000 us   |    }\n"
			     " 0) + 80.000 us   |  }\n";

static void test_identical(void **state)
{
	struct diff_stats st = compare(base, base);

	assert_int_equal(st.calls[DIFF_A], 6);
	assert_int_equal(st.calls[DIFF_B], 6);
	assert_int_equal(st.invocations[DIFF_A], 1);
	assert_int_equal(st.paired, 1);
	assert_int_equal(st.matched, 6);
	assert_int_equal(st.only[DIFF_A] + st.only[DIFF_B] + st.moved, 0);
	assert_int_equal(st.dur_funcs, 6);
	assert_int_equal(st.dur_changed, 0);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
}

static void test_missing_call(void **state)
{
	char *report;
	struct diff_opts o = { .max_lines = 20 };
	struct diff_stats st = compare_opts(base, missing, &o, &report);

	assert_int_equal(st.only[DIFF_A], 1);
	assert_int_equal(st.only[DIFF_B], 0);
	assert_int_equal(st.moved, 0);
	assert_int_equal(st.matched, 5);
	assert_ratio(st.recall, 5.0 / 6);
	assert_ratio(st.precision, 1);
	/* where it is in A, and where it would be in B */
	assert_non_null(strstr(report, "1 call only in A:\n"
				       "  a.txt:5: get_unused_fd_flags (depth 1, in do_sys_openat2), near b.txt:3\n"));
	assert_non_null(strstr(report, "\nrecall 0.833 precision 1.000 (A: 6 calls in 1 invocations, B: 5 calls in 1 invocations)\n"));
	free(report);
}

static void test_extra_call(void **state)
{
	struct diff_stats st = compare(base, extra);

	assert_int_equal(st.only[DIFF_A], 0);
	assert_int_equal(st.only[DIFF_B], 1);
	assert_int_equal(st.matched, 6);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 6.0 / 7);
}

static void test_moved_call(void **state)
{
	char *report;
	struct diff_opts o = { .max_lines = 20 };
	struct diff_stats st = compare_opts(base, moved, &o, &report);

	assert_int_equal(st.moved, 1);
	assert_int_equal(st.only[DIFF_A] + st.only[DIFF_B], 0);
	assert_int_equal(st.matched, 5);
	assert_non_null(strstr(report, "1 call moved:\n  a.txt:3 -> b.txt:3: kmem_cache_alloc (depth 2, in getname)"
				       " -> kmem_cache_alloc (depth 1, in do_sys_openat2)\n"));
	free(report);
}

/* c moves from a() to b(): same depth, so it can even stay aligned. */
static void test_moved_reordered(void **state)
{
	static const char a[] = " 0)               |  root() {\n"
				" 0)               |    a() {\n"
				" 0)   1.000 us    |      c();\n"
				" 0)   2.000 us    |    }\n"
				" 0)   1.000 us    |    b();\n"
				" 0)   9.000 us    |  }\n";
	static const char b[] = " 0)               |  root() {\n"
				" 0)   2.000 us    |    a();\n"
				" 0)               |    b() {\n"
				" 0)   1.000 us    |      c();\n"
				" 0)   2.000 us    |    }\n"
				" 0)   9.000 us    |  }\n";
	struct diff_stats st = compare(a, b);

	assert_int_equal(st.matched, 3);
	assert_int_equal(st.moved, 2);
	assert_int_equal(st.only[DIFF_A] + st.only[DIFF_B], 0);
	assert_ratio(st.recall, 0.75);
}

static void test_duration_change(void **state)
{
	char *report;
	struct diff_opts o = { .max_lines = 2 };
	struct diff_stats st = compare_opts(base, slower, &o, &report);

	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
	assert_int_equal(st.dur_funcs, 6);
	/* path_openat x10, do_filp_open x8.2, do_sys_openat2 x6.7 */
	assert_int_equal(st.dur_changed, 3);
	/* biggest change of total time first */
	assert_non_null(strstr(report, "durations of 6 functions called on both sides, 3 changed 2x or more:\n"));
	assert_non_null(strstr(report, "\n  do_filp_open "));
	assert_true(strstr(report, "\n  do_sys_openat2 ") < strstr(report, "\n  do_filp_open "));
	assert_null(strstr(report, "\n  kmem_cache_alloc "));
	assert_non_null(strstr(report, "  ... 4 more\n"));
	free(report);
	/* a higher ratio counts fewer changes */
	o.ratio = 9;
	st = compare_opts(base, slower, &o, NULL);
	assert_int_equal(st.dur_changed, 1);
}

/* Each invocation of A goes with the B that shares most call lines. */
static void test_best_pairing(void **state)
{
	static const char a[] = " 0)               |  vfs_read() {\n"
				" 0)   1.000 us    |    rw_verify_area();\n"
				" 0)   1.000 us    |    fsnotify();\n"
				" 0)   3.000 us    |  }\n"
				" 0)               |  vfs_read() {\n"
				" 0)   1.000 us    |    rw_verify_area();\n"
				" 0)   1.000 us    |    ext4_file_read_iter();\n"
				" 0)   1.000 us    |    touch_atime();\n"
				" 0)   1.000 us    |    fsnotify();\n"
				" 0)   5.000 us    |  }\n";
	/* a near copy of A's second, a partial one, A's first, another root */
	static const char b[] = " 0)               |  vfs_read() {\n"
				" 0)   1.000 us    |    rw_verify_area();\n"
				" 0)   1.000 us    |    ext4_file_read_iter();\n"
				" 0)   1.000 us    |    touch_atime();\n"
				" 0)   1.000 us    |    fsnotify();\n"
				" 0)   1.000 us    |    kfree();\n"
				" 0)   5.000 us    |  }\n"
				" 0)               |  vfs_read() {\n"
				" 0)   1.000 us    |    rw_verify_area();\n"
				" 0)   3.000 us    |  }\n"
				" 0)               |  vfs_read() {\n"
				" 0)   1.000 us    |    rw_verify_area();\n"
				" 0)   1.000 us    |    fsnotify();\n"
				" 0)   3.000 us    |  }\n"
				" 0)   3.000 us    |  vfs_write();\n";
	struct diff_stats st = compare(a, b);

	assert_int_equal(st.invocations[DIFF_A], 2);
	assert_int_equal(st.invocations[DIFF_B], 4);
	assert_int_equal(st.paired, 2);
	assert_int_equal(st.matched, 8);
	assert_ratio(st.recall, 1);
	/* kfree, the partial invocation (2 calls) and vfs_write */
	assert_int_equal(st.only[DIFF_B], 4);
	assert_ratio(st.precision, 8.0 / 12);
}

static const char with_irq[] = " 0)               |  do_sys_openat2() {\n"
			       " 0)               |    getname() {\n"
			       " 0)   2.000 us    |      kmem_cache_alloc();\n"
			       " 0)   3.000 us    |    }\n"
			       " 0)               |    irq_enter_rcu() {\n"
			       " 0)   0.500 us    |      rcu_irq_enter();\n"
			       " 0)   1.000 us    |    }\n"
			       " 0)   1.000 us    |    get_unused_fd_flags();\n"
			       " 0)               |    do_filp_open() {\n"
			       " 0)   4.000 us    |      path_openat();\n"
			       " 0)   0.200 us    |      irq_exit_rcu();\n"
			       " 0)   5.000 us    |    }\n"
			       " 0) + 12.000 us   |  }\n";

static void test_ignore(void **state)
{
	char *globs[] = { "irq_*", "nothing" };
	struct diff_opts o = { .max_lines = 20, .ignore = globs, .n_ignore = 2 };
	struct diff_stats st = compare(with_irq, base);

	assert_int_equal(st.only[DIFF_A], 3);
	st = compare_opts(with_irq, base, &o, NULL);
	assert_int_equal(st.calls[DIFF_A], 6);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
	/* a glob matching the root drops the whole invocation */
	globs[1] = "do_sys_*";
	st = compare_opts(with_irq, base, &o, NULL);
	assert_int_equal(st.calls[DIFF_A] + st.calls[DIFF_B], 0);
	assert_ratio(st.recall, 1);
}

static void test_root(void **state)
{
	static const char two[] = " 0)   1.000 us    |  vfs_write();\n"
				  " 0)               |  do_sys_openat2() {\n"
				  " 0)   1.000 us    |    getname();\n"
				  " 0)   2.000 us    |  }\n";
	static const char one[] = " 0)               |  do_sys_openat2() {\n"
				  " 0)   1.000 us    |    getname();\n"
				  " 0)   2.000 us    |  }\n";
	struct diff_opts o = { .max_lines = 20, .root = "do_sys_*" };
	struct diff_stats st = compare(two, one);

	assert_int_equal(st.invocations[DIFF_A], 2);
	assert_ratio(st.recall, 2.0 / 3);
	st = compare_opts(two, one, &o, NULL);
	assert_int_equal(st.invocations[DIFF_A], 1);
	assert_int_equal(st.calls[DIFF_A], 2);
	assert_ratio(st.recall, 1);
}

/* A warm do_sys_openat2 call (test_last, test_skip_last). */
static const char warm[] = " 0)               |  do_sys_openat2() {\n"
			   " 0)   1.000 us    |    getname();\n"
			   " 0)   1.000 us    |    do_filp_open();\n"
			   " 0)   3.000 us    |  }\n";

/* --last: a cold first invocation (B found functions late) is left out. */
static void test_last(void **state)
{
	static const char cold_then_warm[] = " 0)               |  do_sys_openat2() {\n"
					     " 0)   1.000 us    |    getname();\n"
					     " 0)   2.000 us    |  }\n"
					     " 0)               |  do_sys_openat2() {\n"
					     " 0)   1.000 us    |    getname();\n"
					     " 0)   1.000 us    |    do_filp_open();\n"
					     " 0)   3.000 us    |  }\n";
	char a[sizeof(warm) * 2];
	struct diff_opts o = { .max_lines = 20, .last = 1 };
	struct diff_stats st;

	(void)state;
	snprintf(a, sizeof(a), "%s%s", warm, warm);
	st = compare(a, cold_then_warm);
	assert_int_equal(st.invocations[DIFF_B], 2);
	assert_true(st.recall < 0.9);
	st = compare_opts(a, cold_then_warm, &o, NULL);
	assert_int_equal(st.invocations[DIFF_A], 1);
	assert_int_equal(st.invocations[DIFF_B], 1);
	assert_int_equal(st.calls[DIFF_A], 3);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
}

/*
 * --skip-last: B's last call was cut short (tracing stopped inside it);
 * with --last=1 the warm one before it is compared, and more skipped
 * than there are leaves nothing.
 */
static void test_skip_last(void **state)
{
	static const char cut[] = " 0)               |  do_sys_openat2() {\n"
				  " 0)   1.000 us    |    getname();\n";
	char a[sizeof(warm) * 3], b[sizeof(warm) * 2 + sizeof(cut)];
	struct diff_opts o = { .max_lines = 20, .last = 1, .skip_last = 1 };
	struct diff_stats st;

	(void)state;
	snprintf(a, sizeof(a), "%s%s%s", warm, warm, warm);
	snprintf(b, sizeof(b), "%s%s%s", warm, warm, cut);
	st = compare_opts(a, b, &(struct diff_opts){ .max_lines = 20, .last = 1 }, NULL);
	assert_int_equal(st.calls[DIFF_B], 2);
	assert_true(st.recall < 0.9);
	st = compare_opts(a, b, &o, NULL);
	assert_int_equal(st.invocations[DIFF_A], 1);
	assert_int_equal(st.invocations[DIFF_B], 1);
	assert_int_equal(st.calls[DIFF_B], 3);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
	o.last = 0;
	o.skip_last = 5;
	st = compare_opts(a, b, &o, NULL);
	assert_int_equal(st.invocations[DIFF_A], 0);
	assert_int_equal(st.invocations[DIFF_B], 0);
}

/* One task migrating inside a call: --one-task follows it across CPUs. */
static void test_one_task(void **state)
{
	static const char a[] = " 0)               |  f() {\n"
				" 0)               |    h() {\n"
				" 0)   1.000 us    |      k();\n"
				" 0)   3.000 us    |    }\n"
				" 0)   1.000 us    |    m();\n"
				" 0) + 10.000 us   |  }\n";
	static const char b[] = " 0)               |  f() {\n"
				" 0)               |    h() {\n"
				" 1)   1.000 us    |      k();\n"
				" 1)   3.000 us    |    }\n"
				" 1)   1.000 us    |    m();\n"
				" 1) + 10.000 us   |  }\n";
	struct diff_opts o = { .max_lines = 20, .one_task = true };
	struct diff_stats st;

	(void)state;
	st = compare(a, b);
	assert_true(st.recall < 0.9); /* per CPU: k and m lost their parents */
	st = compare_opts(a, b, &o, NULL);
	assert_int_equal(st.calls[DIFF_B], 4);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
}

/* Two tasks on one CPU: banners park and bring back their call stacks. */
static void test_context_switch(void **state)
{
	static const char a[] = " 0)               |  do_sys_openat2() {\n"
				" 0)   1.000 us    |    getname();\n"
				" ------------------------------------------\n"
				" 0)    wl-101    =>    wl-102    \n"
				" ------------------------------------------\n"
				"\n"
				" 0)               |  do_sys_openat2() {\n"
				" 0)   1.000 us    |    kfree();\n"
				" 0)   5.000 us    |  }\n"
				" ------------------------------------------\n"
				" 0)    wl-102    =>    wl-101    \n"
				" ------------------------------------------\n"
				"\n"
				" 0)   1.000 us    |    do_filp_open();\n"
				" 0)   9.000 us    |  }\n";
	static const char b[] = " 0)               |  do_sys_openat2() {\n"
				" 0)   1.000 us    |    getname();\n"
				" 0)   1.000 us    |    do_filp_open();\n"
				" 0)   9.000 us    |  }\n"
				" 1)               |  do_sys_openat2() {\n"
				" 1)   1.000 us    |    kfree();\n"
				" 1)   5.000 us    |  }\n";
	struct diff_stats st = compare(a, b);

	assert_int_equal(st.invocations[DIFF_A], 2);
	assert_int_equal(st.calls[DIFF_A], 5);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
}

/* tracing_thresh prints children first: the trees are the same. */
static void test_thresh(void **state)
{
	static const char normal[] = " 1)               |  alloc_bprm() {\n"
				     " 1)               |    mm_alloc() {\n"
				     " 1) + 32.445 us   |      mm_init();\n"
				     " 1)   2.000 us    |      foo();\n"
				     " 1) + 49.273 us   |    }\n"
				     " 1) + 84.795 us   |  }\n";
	static const char thresh[] = " 1) + 32.445 us   |      } /* mm_init */\n"
				     " 1)   2.000 us    |      } /* foo */\n"
				     " 1) + 49.273 us   |    } /* mm_alloc */\n"
				     " 1) + 84.795 us   |  } /* alloc_bprm */\n";
	struct diff_stats st = compare(normal, thresh);

	assert_int_equal(st.calls[DIFF_B], 4);
	assert_int_equal(st.invocations[DIFF_B], 1);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
	assert_int_equal(st.moved, 0);
	assert_int_equal(st.dur_changed, 0);
}

/* A trace that begins inside a call: those calls belong to no invocation. */
static void test_outside(void **state)
{
	static const char a[] = " 0)   1.000 us    |      kfree();\n"
				" 0)   2.000 us    |    }\n"
				" 0)   3.000 us    |  }\n"
				" 0)   1.000 us    |  vfs_write();\n";
	struct diff_stats st = compare(a, a);

	assert_int_equal(st.invocations[DIFF_A], 1);
	assert_int_equal(st.calls[DIFF_A], 1);
	assert_int_equal(st.outside[DIFF_A], 1);
}

static void test_seeds(void **state)
{
	char *s0 = golden_text(SEED_000), *s2 = golden_text(SEED_002);
	char *s3 = golden_text(SEED_003), *s4 = golden_text(SEED_004);
	struct diff_stats st = compare(s0, s0);

	assert_int_equal(st.calls[DIFF_A], 307);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
	/* the same function on two machines */
	st = compare(s2, s3);
	assert_int_equal(st.paired, 1);
	assert_true(st.recall > 0.3 && st.recall < 1);
	assert_true(st.precision > 0.5 && st.precision < 1);
	/* every call is aligned, moved or only on its side */
	assert_true(st.matched + st.only[DIFF_A] <= st.calls[DIFF_A]);
	assert_true(st.matched + st.only[DIFF_A] + st.moved >= st.calls[DIFF_A]);
	assert_true(st.matched + st.only[DIFF_B] <= st.calls[DIFF_B]);
	/* joined lines: recovered calls compare like any */
	st = compare(s4, s4);
	assert_int_equal(st.invocations[DIFF_A], 7);
	assert_ratio(st.recall, 1);
	free(s0);
	free(s2);
	free(s3);
	free(s4);
}

/* --- arguments and return addresses (funcgraph-args, funcgraph-retaddr) ---- */

/* base as a 6.19 kernel prints it with args, retaddr and retval */
static const char base_args[] =
	" 0)               |  do_sys_openat2(dfd=4294967196, filename=0x47a073, how=0xff46c0c0) { /* <-do_sys_open+0x6b/0xb0 */\n"
	" 0)               |    getname(filename=0x47a073) { /* <-do_sys_openat2+0x71/0x140 */\n"
	" 0)   2.000 us    |      kmem_cache_alloc(s=0xffff888100043600, gfpflags=0xcc0); /* <-getname_flags+0x38/0x1c0 ret=0xffff888103f1c000 */\n"
	" 0)   3.000 us    |    } /* getname ret=0xffff888103f1c000 */\n"
	" 0)   1.000 us    |    get_unused_fd_flags(flags=0x8000); /* <-do_sys_openat2+0x9c/0x140 ret=0x3 */\n"
	" 0)               |    do_filp_open(dfd=-100, pathname=0xffff888103f1c000, op=0xffffc90000237ec4) { /* <-do_sys_openat2+0xb8/0x140 */\n"
	" 0)   4.000 us    |      path_openat(nd=0xffffc90000237dc0, op=0xffffc90000237ec4, flags=0x41); /* <-do_filp_open+0xc4/0x170 ret=-2 */\n"
	" 0)   5.000 us    |    } /* do_filp_open ret=-2 */\n"
	" 0) + 12.000 us   |  } /* do_sys_openat2 ret=-2 */\n";

/*
 * base_args from another run: other pointers, another caller's offset,
 * only 6.15's arguments (no retaddr), a newer kernel's typed values, and
 * without get_unused_fd_flags()
 */
static const char missing_args[] =
	" 0)               |  do_sys_openat2(dfd=-100, filename=0x4a1b2c, how=0xffffc900) {\n"
	" 0)               |    getname(filename=0x4a1b2c) {\n"
	" 0)   2.000 us    |      kmem_cache_alloc(s=0xffff888100051200, gfpflags=0xcc0); /* ret=0xffff888104a20000 */\n"
	" 0)   3.000 us    |    } /* getname ret=0xffff888104a20000 */\n"
	" 0)               |    do_filp_open(dfd=-100, pathname=0xffff888104a20000, op=0xffffc90000377ec4) {\n"
	" 0)   4.000 us    |      path_openat(nd=0xffffc90000377dc0, op=0xffffc90000377ec4, flags=0x41); /* ret=0xfffffffffffffffe(trunc) */\n"
	" 0)   5.000 us    |    } /* do_filp_open ret=false */\n"
	" 0) + 12.000 us   |  } /* do_sys_openat2 ret=-2 */\n";

/* Calls are matched by name: arguments and return addresses differ between runs. */
static void test_args_retaddr(void **state)
{
	char *report;
	struct diff_opts o = { .max_lines = 20 };
	struct diff_stats st = compare(base_args, base);

	assert_int_equal(st.calls[DIFF_A], 6);
	assert_int_equal(st.calls[DIFF_B], 6);
	assert_int_equal(st.matched, 6);
	assert_int_equal(st.only[DIFF_A] + st.only[DIFF_B] + st.moved, 0);
	assert_int_equal(st.dur_funcs, 6);
	assert_int_equal(st.dur_changed, 0);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);

	/* the lists name functions, not what was printed with them */
	st = compare_opts(base_args, missing_args, &o, &report);
	assert_int_equal(st.calls[DIFF_B], 5);
	assert_int_equal(st.only[DIFF_A], 1);
	assert_int_equal(st.only[DIFF_B] + st.moved, 0);
	assert_int_equal(st.matched, 5);
	assert_non_null(strstr(report, "1 call only in A:\n"
				       "  a.txt:5: get_unused_fd_flags (depth 1, in do_sys_openat2), near b.txt:3\n"));
	assert_null(strstr(report, "0x"));
	assert_null(strstr(report, "<-"));
	free(report);
}

/* The same graph as CRLF text and as joined lines: the same comparison. */
static void test_args_dialects(void **state)
{
	char crlf[sizeof(base_args) * 2], joined[sizeof(base_args)], *q = crlf;
	struct diff_stats st;
	size_t n = 0;

	for (const char *p = base_args; *p; p++) {
		if (*p == '\n')
			*q++ = '\r';
		*q++ = *p;
	}
	*q = '\0';
	st = compare(crlf, base);
	assert_int_equal(st.matched, 6);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);

	/* line breaks made single spaces, the columns' padding squeezed */
	for (const char *p = base_args; *p; p++) {
		char c = *p == '\n' ? ' ' : *p;

		if (c == ' ' && n && joined[n - 1] == ' ' && p[1] != '|')
			continue;
		joined[n++] = c;
	}
	joined[n] = '\0';
	st = compare(joined, base);
	assert_int_equal(st.calls[DIFF_A], 6);
	assert_int_equal(st.matched, 6);
	assert_int_equal(st.dur_changed, 0);
	assert_ratio(st.recall, 1);
	assert_ratio(st.precision, 1);
}

/* --- command line ---------------------------------------------------------- */

struct run {
	int status;
	char out[8192], err[4096];
};

static void slurp_fd(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

/* cmd_diff() with stdout and stderr caught. */
static void run_diff(struct run *r, int argc, char **argv)
{
	char tout[] = "/tmp/bg-diff-out-XXXXXX", terr[] = "/tmp/bg-diff-err-XXXXXX";
	int fo = mkstemp(tout), fe = mkstemp(terr), so, se;

	assert_true(fo >= 0 && fe >= 0);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	r->status = cmd_diff(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp_fd(fo, r->out, sizeof(r->out));
	slurp_fd(fe, r->err, sizeof(r->err));
	close(fo);
	close(fe);
	unlink(tout);
	unlink(terr);
}

static void test_cmd_summary(void **state)
{
	char *seed = golden_path(SEED_000);
	char *argv[] = { "diff", "-q", "--ignore=irq_*", seed, seed, NULL };
	struct run r;

	run_diff(&r, 5, argv);
	assert_int_equal(r.status, BG_EXIT_OK);
	/* the VM fidelity suite parses this line: keep it stable */
	assert_string_equal(r.out, "recall 1.000 precision 1.000 (A: 307 calls in 1 invocations, "
				   "B: 307 calls in 1 invocations)\n");
	assert_string_equal(r.err, "");
	free(seed);
}

static void test_cmd_report(void **state)
{
	char *a = golden_path(SEED_002), *b = golden_path(SEED_003);
	char *argv[] = { "diff", a, "--max-lines=3", b, NULL };
	struct run r;
	const char *last;

	run_diff(&r, 4, argv);
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_non_null(strstr(r.out, "calls only in A:\n"));
	assert_non_null(strstr(r.out, "calls only in B:\n"));
	last = strrchr(r.out, '\n');
	assert_non_null(last);
	while (last > r.out && last[-1] != '\n')
		last--;
	assert_true(!strncmp(last, "recall 0.", 9));
	free(a);
	free(b);
}

static void test_cmd_errors(void **state)
{
	char bad[] = "/tmp/bg-diff-bad-XXXXXX";
	int fd = mkstemp(bad);
	static const char text[] = " 0)               |  foo() {\n 0)   1.0 us    |    bar(\n";
	char *seed = golden_path(SEED_000);
	struct run r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);

	run_diff(&r, 1, (char *[]){ "diff", NULL });
	assert_int_equal(r.status, BG_EXIT_USAGE);
	assert_non_null(strstr(r.err, "Try 'bpfgraph diff --help'"));
	run_diff(&r, 2, (char *[]){ "diff", "--help", NULL });
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_true(!strncmp(r.out, "Usage: bpfgraph diff", 20));
	run_diff(&r, 4, (char *[]){ "diff", "--nope", seed, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_USAGE);
	assert_non_null(strstr(r.err, "'--nope'"));
	run_diff(&r, 4, (char *[]){ "diff", "--max-lines=x", seed, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_USAGE);
	run_diff(&r, 4, (char *[]){ "diff", "--ratio=1", seed, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_USAGE);
	run_diff(&r, 4, (char *[]){ "diff", "--root", seed, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_USAGE);
	run_diff(&r, 4, (char *[]){ "diff", seed, seed, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_USAGE);
	run_diff(&r, 3, (char *[]){ "diff", "-", "-", NULL });
	assert_int_equal(r.status, BG_EXIT_USAGE);
	run_diff(&r, 3, (char *[]){ "diff", "/nonexistent/a.txt", seed, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_non_null(strstr(r.err, "cannot open '/nonexistent/a.txt'"));
	/* malformed text, --strict: the file and the line */
	run_diff(&r, 4, (char *[]){ "diff", "--strict", seed, bad, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_non_null(strstr(r.err, bad));
	assert_non_null(strstr(r.err, ":2: cannot parse function call 'bar('\n"));
	assert_string_equal(r.out, "");
	/* without: the line skipped, named, the rest compared */
	run_diff(&r, 4, (char *[]){ "diff", "-q", seed, bad, NULL });
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_non_null(strstr(r.err, ":2: line skipped, cannot parse function call: "
				      "' 0)   1.0 us    |    bar('\n"));
	assert_non_null(strstr(r.out, "B: 1 calls in 1 invocations)\n"));
	unlink(bad);
	free(seed);
}

/*
 * Nothing to compare on a side fails: recall over no call is 1.000, which
 * a check on recall would pass for a capture that failed. The message
 * names the input and says why; no summary line is printed.
 */
static void test_cmd_nothing(void **state)
{
	char empty[] = "/tmp/bg-diff-empty-XXXXXX", hdr[] = "/tmp/bg-diff-hdr-XXXXXX";
	int fd = mkstemp(empty), fh = mkstemp(hdr);
	static const char header[] = "# tracer: function_graph\n#\n"
				     "# CPU  DURATION                  FUNCTION CALLS\n"
				     "# |     |   |                     |   |   |   |\n";
	char *seed = golden_path(SEED_000), want[512];
	struct run r;

	(void)state;
	assert_true(fd >= 0 && fh >= 0);
	close(fd);
	assert_int_equal(write(fh, header, sizeof(header) - 1), (ssize_t)sizeof(header) - 1);
	close(fh);
	snprintf(want, sizeof(want), "bpfgraph diff: %s: no function call in it, nothing to "
		 "compare (an empty or failed capture?)\n", empty);
	run_diff(&r, 4, (char *[]){ "diff", "-q", empty, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, want);
	run_diff(&r, 4, (char *[]){ "diff", "-q", seed, empty, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_string_equal(r.err, want);
	run_diff(&r, 4, (char *[]){ "diff", "-q", hdr, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_non_null(strstr(r.err, hdr));
	assert_non_null(strstr(r.err, ": no function call in it"));
	/* calls, but none left to compare: a window past the end */
	run_diff(&r, 5, (char *[]){ "diff", "-q", "--skip-last=1", seed, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, ": no call at depth 0 to compare with --skip-last\n"));
	run_diff(&r, 5, (char *[]){ "diff", "-q", "--root=nothing*", seed, seed, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_non_null(strstr(r.err, ": no call at depth 0 to compare with --root\n"));
	unlink(empty);
	unlink(hdr);
	free(seed);
}

/* A canned record script (tests/golden/graph/NAME.in) into a record file. */
static void record_script(const char *name, const char *path, bool records)
{
	char rel[64], *script;

	snprintf(rel, sizeof(rel), "graph/%s.in", name);
	script = golden_path(rel);
	assert_int_equal(canned_record(script, path, records), 0);
	free(script);
}

/*
 * A record file is read as report prints it (told by its first bytes, not
 * its name), from a file or standard input: against that text, equal.
 */
static void test_cmd_record(void **state)
{
	char bgr[] = "/tmp/bg-diff-rec-XXXXXX", none[] = "/tmp/bg-diff-none-XXXXXX";
	char *text = golden_path("graph/seed000.out");
	static const char want[] = "recall 1.000 precision 1.000 (A: 307 calls in 1 invocations, "
				   "B: 307 calls in 1 invocations)\n";
	int fd = mkstemp(bgr), fn = mkstemp(none), saved;
	struct run r;

	(void)state;
	assert_true(fd >= 0 && fn >= 0);
	close(fn);
	record_script("seed000", bgr, true);
	record_script("seed000", none, false);
	run_diff(&r, 4, (char *[]){ "diff", "-q", text, bgr, NULL });
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_string_equal(r.out, want);
	assert_string_equal(r.err, "");
	/* standard input */
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0 && dup2(fd, STDIN_FILENO) >= 0);
	run_diff(&r, 4, (char *[]){ "diff", "-q", "-", text, NULL });
	assert_true(dup2(saved, STDIN_FILENO) >= 0);
	close(saved);
	close(fd);
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_string_equal(r.out, want);
	/* a recording of nothing is no comparison */
	run_diff(&r, 4, (char *[]){ "diff", "-q", text, none, NULL });
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_non_null(strstr(r.err, none));
	assert_non_null(strstr(r.err, ": no function call in it"));
	unlink(bgr);
	unlink(none);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_missing_call),
		cmocka_unit_test(test_extra_call),
		cmocka_unit_test(test_moved_call),
		cmocka_unit_test(test_moved_reordered),
		cmocka_unit_test(test_duration_change),
		cmocka_unit_test(test_best_pairing),
		cmocka_unit_test(test_ignore),
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_last),
		cmocka_unit_test(test_skip_last),
		cmocka_unit_test(test_one_task),
		cmocka_unit_test(test_context_switch),
		cmocka_unit_test(test_thresh),
		cmocka_unit_test(test_outside),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_args_retaddr),
		cmocka_unit_test(test_args_dialects),
		cmocka_unit_test(test_cmd_summary),
		cmocka_unit_test(test_cmd_report),
		cmocka_unit_test(test_cmd_errors),
		cmocka_unit_test(test_cmd_nothing),
		cmocka_unit_test(test_cmd_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
