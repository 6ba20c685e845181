// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph report with the live filters (-p -C -n -D -t -x), on a record
 * file and on function_graph text. The expectations are derived apart
 * from the filters' code: for each filter, a script of the records the
 * BPF side would have written with it (bpf/filter.bpf.h, pair.bpf.h:
 * the graphs of tasks chosen at their start, nothing at depth >= -D, no
 * entries and no short exits with -t, nothing of a -x function's
 * subtree), written out by hand. report of the unfiltered recording with
 * the filter must print what report of that script prints without one;
 * so must report of the unfiltered recording's text with the filter.
 *
 * The unfiltered trace: three graphs of f_root on two CPUs. Task 100
 * (alpha, process 100) on CPU 0, with a hidden_x call holding b; task 101
 * (beta, a thread of process 100) on CPU 1 meanwhile; task 200 (gamma)
 * later, starting on CPU 0 and returning on CPU 1, its CPU 1 records
 * written first (a batch of CPU 1 flushed before CPU 0's).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "golden.h"

#include "canned.h"
#include "cli.h"
#include "cmd.h"

#define HEAD "opts default proc\nheader 1\nfunc f_root\nfunc a\nfunc hidden_x\nfunc b\nfunc c\n"

#define G1_COMM "comm 100 alpha 100\n"
#define G2_COMM "comm 101 beta 100\n"
#define G3_COMM "comm 200 gamma 200\n"
#define G2 G2_COMM                                                                         \
	"E 1 101 f_root 0 1050\nE 1 101 c 1 1150\nX 1 101 c 1 6150 5000\n"                 \
	"X 1 101 f_root 0 7050 6000\n"
#define G1_HEAD G1_COMM "E 0 100 f_root 0 1000\nE 0 100 a 1 1100\n"
#define G1_HIDDEN "E 0 100 hidden_x 2 1200\nE 0 100 b 3 1300\nX 0 100 b 3 1400 100\n" \
		  "X 0 100 hidden_x 2 1500 300\n"
#define G1_C "E 0 100 c 2 1600\nX 0 100 c 2 1700 100\n"
#define G1_TAIL "X 0 100 a 1 9100 8000\nE 0 100 b 1 9200\nX 0 100 b 1 9300 100\n" \
		"X 0 100 f_root 0 20000 19000\n"
#define G1 G1_HEAD G1_HIDDEN G1_C G1_TAIL
/* CPU 1's part first, as its batch reached the file first */
#define G3_CPU1 "X 1 200 a 1 45100 15000\nX 1 200 f_root 0 46000 16000\n"
#define G3_CPU0 G3_COMM "E 0 200 f_root 0 30000\nE 0 200 a 1 30100\n"
#define G3 "drain 25000\n" G3_CPU1 G3_CPU0

/* Graphs 1 and 2 interleave in time; the file has them in time order too. */
static const char trace_all[] = HEAD
	G1_COMM "E 0 100 f_root 0 1000\n" G2_COMM "E 1 101 f_root 0 1050\n"
	"E 0 100 a 1 1100\nE 1 101 c 1 1150\n" G1_HIDDEN G1_C
	"X 1 101 c 1 6150 5000\nX 1 101 f_root 0 7050 6000\n" G1_TAIL G3;

struct filter_case {
	const char *name;
	const char *args[5];
	const char *expect; /* records the BPF side writes with args */
	/* text: what is expected when the text cannot tell as much (NULL: expect) */
	const char *expect_text;
};

static const struct filter_case cases[] = {
	{ "pid thread", { "-p", "101" }, HEAD G2 },
	/* 101 is a thread of process 100; text shows thread ids only */
	{ "pid process", { "-p", "100" }, HEAD G1 G2, HEAD G1 },
	{ "pid list", { "-p", "200,101" }, HEAD G2 G3 },
	{ "cpu where the graph began", { "-C", "0" }, HEAD G1 G3 },
	{ "cpu 1", { "-C", "1" }, HEAD G2 },
	{ "comm", { "-n", "gamma" }, HEAD G3 },
	{ "comm of a thread", { "--comm=beta" }, HEAD G2 },
	{ "max depth 2", { "-D", "2" },
	  HEAD G1_COMM "E 0 100 f_root 0 1000\n" G2_COMM "E 1 101 f_root 0 1050\n"
	  "E 0 100 a 1 1100\nE 1 101 c 1 1150\nX 1 101 c 1 6150 5000\n"
	  "X 1 101 f_root 0 7050 6000\n" G1_TAIL G3 },
	{ "max depth 1 on cpu 0", { "-D", "1", "-C", "0" },
	  HEAD G1_COMM "E 0 100 f_root 0 1000\nX 0 100 f_root 0 20000 19000\n"
	  "X 1 200 f_root 0 46000 16000\n" G3_COMM "E 0 200 f_root 0 30000\n" },
	{ "thresh", { "-t", "7" },
	  HEAD G1_COMM G2_COMM "X 0 100 a 1 9100 8000\nX 0 100 f_root 0 20000 19000\n" G3_CPU1
	  G3_COMM },
	{ "thresh 5 keeps a leaf", { "-t", "5", "-p", "101" },
	  HEAD G2_COMM "X 1 101 c 1 6150 5000\nX 1 101 f_root 0 7050 6000\n" },
	{ "notrace", { "-x", "hidden_x" },
	  HEAD G1_COMM "E 0 100 f_root 0 1000\n" G2_COMM "E 1 101 f_root 0 1050\n"
	  "E 0 100 a 1 1100\nE 1 101 c 1 1150\n" G1_C
	  "X 1 101 c 1 6150 5000\nX 1 101 f_root 0 7050 6000\n" G1_TAIL G3 },
	{ "notrace glob with its subtree", { "-x", "hid*", "-x", "c" },
	  HEAD G1_COMM "E 0 100 f_root 0 1000\n" G2_COMM "E 1 101 f_root 0 1050\n"
	  "E 0 100 a 1 1100\nX 1 101 f_root 0 7050 6000\n" G1_TAIL G3 },
};

struct tmpdir {
	char dir[64];
};

static char *tmp_file(struct tmpdir *t, const char *name)
{
	char *p = malloc(256);

	assert_non_null(p);
	snprintf(p, 256, "%s/%s", t->dir, name);
	return p;
}

/* A script into a record file; thresh_ns: as if recorded with -t. */
static void make_record(struct tmpdir *t, const char *script, const char *name,
			uint64_t thresh_ns)
{
	char *in = tmp_file(t, "script"), *out = tmp_file(t, name), *tok[16];
	struct record_writer *rw;
	struct record_meta m;
	struct rec_sink s;
	struct canned c;
	FILE *f = fopen(in, "w");
	int n;

	assert_non_null(f);
	fputs(script, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(canned_open(&c, in), 0);
	canned_settings(&c, tok, &n);
	m = (struct record_meta){ .flags = c.flags, .dialect = c.dialect,
				  .nr_cpu_ids = c.nr_cpu_ids, .header = c.header,
				  .thresh_ns = thresh_ns };
	rw = record__create(out, &m, &c.ft, stderr);
	assert_non_null(rw);
	s = record__sink(rw);
	canned_play(&c, tok, n, &s);
	assert_int_equal(record__write_trailer(rw, &(struct record_trailer){}), 0);
	assert_int_equal(record__close(rw), 0);
	canned_free(&c);
	free(in);
	free(out);
}

struct run {
	int status;
	char *out, *err;
};

/* "bpfgraph report -i in -o OUT args...", stderr captured. */
static void report(struct tmpdir *t, struct run *r, const char *in, const char *const *args)
{
	char *out = tmp_file(t, "out"), *err = tmp_file(t, "err");
	char *argv[20] = { "report", "-i", NULL, "-o", out };
	int argc = 5, efd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved;
	size_t len;

	argv[2] = tmp_file(t, in);
	assert_true(efd >= 0);
	unlink(out);
	for (; args && *args; args++)
		argv[argc++] = (char *)*args;
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(saved >= 0 && dup2(efd, STDERR_FILENO) >= 0);
	r->status = cmd_report(argc, argv);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	close(efd);
	r->out = access(out, F_OK) ? NULL : golden_slurp(out, &len);
	r->err = golden_slurp(err, &len);
	free(argv[2]);
	free(out);
	free(err);
}

/* report that must succeed quietly; its output. */
static char *report_ok(struct tmpdir *t, const char *in, const char *const *args)
{
	struct run r;

	report(t, &r, in, args);
	if (r.status != BG_EXIT_OK || !r.out || r.err[0])
		fail_msg("report -i %s: exit %d: %s", in, r.status, r.err);
	free(r.err);
	return r.out;
}

/* Copies report's output of in into the file name (text to read back). */
static void save_report(struct tmpdir *t, const char *in, const char *const *args,
			const char *name)
{
	char *text = report_ok(t, in, args), *path = tmp_file(t, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	free(text);
	free(path);
}

static int setup(void **state)
{
	struct tmpdir *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	strcpy(t->dir, "/tmp/bg-test-filter.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	make_record(t, trace_all, "all.bgr", 0);
	save_report(t, "all.bgr", NULL, "all.txt");
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmpdir *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

static void expect_same(const char *what, const struct filter_case *c, const char *got,
			const char *want)
{
	if (strcmp(got, want))
		fail_msg("%s, %s: got\n%s\nexpected\n%s", c->name, what, got, want);
}

/* Each filter on the recording, and on its text, against its script. */
static void test_filters(void **state)
{
	struct tmpdir *t = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct filter_case *c = &cases[i];
		char *want, *got, *want_text = NULL;

		make_record(t, c->expect, "want.bgr", 0);
		want = report_ok(t, "want.bgr", NULL);
		got = report_ok(t, "all.bgr", c->args);
		expect_same("record file", c, got, want);
		free(got);
		if (c->expect_text) {
			make_record(t, c->expect_text, "want.bgr", 0);
			want_text = report_ok(t, "want.bgr", NULL);
		}
		got = report_ok(t, "all.txt", c->args);
		expect_same("text", c, got, want_text ? want_text : want);
		free(got);
		free(want);
		free(want_text);
	}
}

/* The shapes the kernel prints, spelled out for -t and -D. */
static void test_shapes(void **state)
{
	struct tmpdir *t = *state;
	const char *thresh[] = { "-t", "7", "-p", "100", "--no-header", NULL };
	const char *depth[] = { "-D", "2", "-p", "100", "--no-header", NULL };
	char *got = report_ok(t, "all.bgr", thresh);

	assert_string_equal(got, " 0)   alpha-100    |   8.000 us    |    } /* a */\n"
				 " 0)   alpha-100    | + 19.000 us   |  } /* f_root */\n");
	free(got);
	got = report_ok(t, "all.txt", thresh);
	assert_string_equal(got, " 0)   alpha-100    |   8.000 us    |    } /* a */\n"
				 " 0)   alpha-100    | + 19.000 us   |  } /* f_root */\n");
	free(got);
	got = report_ok(t, "all.bgr", depth);
	/* -p 100: the process, its thread 101 too */
	assert_string_equal(got, " 0)   alpha-100    |               |  f_root() {\n"
				 " 1)    beta-101    |               |  f_root() {\n"
				 " 0)   alpha-100    |   8.000 us    |    a();\n"
				 " 1)    beta-101    |   5.000 us    |    c();\n"
				 " 1)    beta-101    |   6.000 us    |  }\n"
				 " 0)   alpha-100    |   0.100 us    |    b();\n"
				 " 0)   alpha-100    | + 19.000 us   |  }\n");
	free(got);
}

static void expect_refused(struct tmpdir *t, const char *in, const char *const *args,
			   const char *msg)
{
	struct run r;

	report(t, &r, in, args);
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_null(r.out); /* refused before the output is made */
	if (!strstr(r.err, msg) || strncmp(r.err, "bpfgraph: ", 10) || strchr(r.err, '\n')[1])
		fail_msg("report -i %s %s: expected one line with '%s', got: %s", in, args[0], msg,
			 r.err);
	free(r.err);
}

/* What the input cannot tell is refused, naming why. */
static void test_refused(void **state)
{
	struct tmpdir *t = *state;
	const char *noproc[] = { "-O", "nofuncgraph-proc", NULL };
	const char *nocpu[] = { "-O", "nofuncgraph-cpu", NULL };
	const char *nodur[] = { "-O", "nofuncgraph-duration", NULL };
	const char *thresh[] = { "-t", "7", NULL };

	save_report(t, "all.bgr", noproc, "noproc.txt");
	save_report(t, "all.bgr", nocpu, "nocpu.txt");
	save_report(t, "all.bgr", nodur, "nodur.txt");
	save_report(t, "all.bgr", thresh, "thresh.txt");
	make_record(t, trace_all, "thresh.bgr", 7000);
	expect_refused(t, "noproc.txt", (const char *[]){ "-p", "100", NULL },
		       "-p cannot be applied: the text has no TASK/PID column");
	expect_refused(t, "noproc.txt", (const char *[]){ "-n", "alpha", NULL },
		       "-n cannot be applied: the text has no TASK/PID column");
	expect_refused(t, "nocpu.txt", (const char *[]){ "-C", "0", NULL },
		       "-C cannot be applied: the text has no CPU column");
	expect_refused(t, "nodur.txt", (const char *[]){ "-t", "1", NULL },
		       "-t cannot be applied: the text has no DURATION column");
	expect_refused(t, "thresh.txt", (const char *[]){ "-x", "a", NULL },
		       "-x cannot be applied: the text has no entry lines");
	expect_refused(t, "thresh.txt", (const char *[]){ "-C", "1", NULL },
		       "the CPU a graph began on is not known");
	expect_refused(t, "thresh.bgr", (const char *[]){ "-x", "a", NULL },
		       "-x cannot be applied: it was recorded with -t");
	expect_refused(t, "thresh.bgr", (const char *[]){ "-C", "0", NULL },
		       "-C cannot be applied: it was recorded with -t");
}

/* What such input can tell is applied: -D on text without durations, say. */
static void test_partial_inputs(void **state)
{
	struct tmpdir *t = *state;
	const char *d1[] = { "-D", "1", "-p", "101", "--no-header", NULL };
	const char *t7[] = { "-t", "10", NULL };
	char *got;

	got = report_ok(t, "nodur.txt", d1);
	assert_string_equal(got, " 1)    beta-101    | f_root();\n");
	free(got);
	/* -t again on a text made with -t: the longer calls of it */
	got = report_ok(t, "thresh.txt", t7);
	assert_non_null(strstr(got, "} /* f_root */"));
	assert_null(strstr(got, "} /* a */\n 0)"));
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_partial_inputs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
