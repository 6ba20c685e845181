// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --format=stat and --hist. The table's calls, unfinished calls and
 * totals are held to a count made here straight from function_graph
 * text (the seeds of tests/golden/seeds/, real captures, and the text
 * golden of tests/golden/formats/basic.in): lines that enter, leaves,
 * and closes paired with the entry above them at the same indentation,
 * as function_graph's text means them. Self times and the sort order
 * against values worked out by hand; histogram buckets at a power of
 * two; --hist beside another format on stderr, the trace untouched.
 * The golden files formats/<case>.stat are test_formats.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <unistd.h>

#include "golden.h"

#include "canned.h"
#include "cli.h"
#include "cmd.h"
#include "funcstat.h"
#include "out_stat.h"
#include "render.h"

/* Real captures the count below reads (004 is one joined line: not it). */
static const char *const seeds[] = {
	"seeds/000_552e225c0d5c94bb.txt", "seeds/001_42a8f16914de080a.txt",
	"seeds/002_76c6522b3146f63d.txt", "seeds/003_9ac0de771dae3076.txt",
	"seeds/005_d0673469c12dbbf8.txt", "seeds/006_8ce3eb5febf35e9a.txt",
};

#define MAX_NAMES 1024
#define MAX_CPUS 64
#define MAX_DEPTH 256

/* ---- the count from the text ----------------------------------------- */

struct tcount {
	char name[128];
	uint64_t calls, unfinished, total_ns;
};

struct tscan {
	struct tcount c[MAX_NAMES];
	size_t n;
	uint64_t unknown; /* closes without an entry above them nor a name */
	bool tail, tail_known; /* funcgraph-tail: every close named */
	struct tcount *open[MAX_CPUS][MAX_DEPTH];
};

static struct tcount *tc_get(struct tscan *t, const char *name, size_t len)
{
	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->c[i].name) == len && !strncmp(t->c[i].name, name, len))
			return &t->c[i];
	assert_true(t->n < MAX_NAMES && len < sizeof(t->c[0].name));
	memcpy(t->c[t->n].name, name, len);
	t->c[t->n].name[len] = '\0';
	return &t->c[t->n++];
}

/* Entries open at depth >= d on cpu never see their close. */
static void tc_cut(struct tscan *t, unsigned int cpu, unsigned int d)
{
	for (; d < MAX_DEPTH; d++) {
		if (t->open[cpu][d])
			t->open[cpu][d]->unfinished++;
		t->open[cpu][d] = NULL;
	}
}

/* "} / * name ..." of a close: the name, with its " [module]" if any. */
static size_t close_name(const char *fn, const char **name)
{
	const char *p = strstr(fn, "/* ");
	size_t len;

	if (!p)
		return 0;
	*name = p + 3;
	len = strcspn(*name, " *");
	if (!strncmp(*name + len, " [", 2))
		len += strcspn(*name + len, "]") + 1;
	return len;
}

/*
 * A close pairs with the entry open at its depth, unless it names a
 * function: then it is the kernel's mark of a return it paired with no
 * entry, that entry left unfinished. With return values, or with
 * funcgraph-tail (the first close of the text named after its entry),
 * every close is named: a name other than the entry's is that mark.
 */
static void tc_close(struct tscan *t, unsigned int cpu, unsigned int d, const char *fn,
		     uint64_t dur)
{
	struct tcount *c = t->open[cpu][d];
	const char *name;
	size_t len = close_name(fn, &name);
	bool ret = len && (strstr(name + len, " = ") || strstr(name + len, " ret="));
	bool same = c && len && strlen(c->name) == len && !strncmp(c->name, name, len);

	if (!t->tail_known && len && !ret)
		t->tail = same;
	t->tail_known |= !ret;
	tc_cut(t, cpu, d + 1);
	if (len && !(same && (ret || t->tail))) {
		tc_cut(t, cpu, d);
		c = tc_get(t, name, len);
	}
	t->open[cpu][d] = NULL;
	if (!c) {
		t->unknown++;
		return;
	}
	c->calls++;
	c->total_ns += dur;
}

/* One line: " CPU) [mark] [DURATION us] |<2 + 2*depth spaces>what". */
static void tc_line(struct tscan *t, const char *line)
{
	const char *p = line + strspn(line, " "), *bar, *fn, *paren;
	unsigned int cpu, depth;
	uint64_t dur = 0;
	char *end;
	size_t sp;

	if (*p < '0' || *p > '9')
		return;
	cpu = (unsigned int)strtoul(p, &end, 10);
	bar = strchr(end, '|');
	if (*end != ')' || !bar || cpu >= MAX_CPUS)
		return;
	p = end + 1 + strspn(end + 1, " +!#*@$");
	if (*p >= '0' && *p <= '9')
		dur = (uint64_t)llround(strtod(p, NULL) * 1000);
	sp = strspn(bar + 1, " ");
	fn = bar + 1 + sp;
	depth = (unsigned int)(sp - 2) / 2;
	assert_true(sp >= 2 && depth < MAX_DEPTH);
	if (*fn == '}') {
		tc_close(t, cpu, depth, fn, dur);
		return;
	}
	paren = strchr(fn, '(');
	if (!paren)
		return; /* an interrupt marker */
	tc_cut(t, cpu, depth);
	if (strstr(paren, ");")) {
		struct tcount *c = tc_get(t, fn, (size_t)(paren - fn));

		c->calls++;
		c->total_ns += dur;
	} else if (strstr(paren, ") {")) {
		t->open[cpu][depth] = tc_get(t, fn, (size_t)(paren - fn));
	}
}

static struct tscan *tc_scan_path(const char *path)
{
	char *line = NULL;
	struct tscan *t = calloc(1, sizeof(*t));
	FILE *f = fopen(path, "r");
	size_t cap = 0;

	assert_non_null(f);
	assert_non_null(t);
	while (getline(&line, &cap, f) > 0)
		tc_line(t, line);
	for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu++)
		tc_cut(t, cpu, 0);
	free(line);
	fclose(f);
	return t;
}

static struct tscan *tc_scan(const char *rel)
{
	char *path = golden_path(rel);
	struct tscan *t = tc_scan_path(path);

	free(path);
	return t;
}

/* ---- the table, read back -------------------------------------------- */

struct srow {
	char name[128];
	uint64_t calls, unfinished, total, self, avg, min, max; /* ns; UINT64_MAX: "-" */
};

struct stable {
	struct srow r[MAX_NAMES];
	size_t n;
	uint64_t foot_calls, foot_funcs, foot_unfinished, foot_unknown;
};

static uint64_t us_to_ns(const char *s)
{
	char *dot;
	uint64_t us;

	if (!strcmp(s, "-"))
		return UINT64_MAX;
	us = strtoull(s, &dot, 10);
	assert_true(*dot == '.' && strlen(dot) == 4);
	return us * 1000 + strtoull(dot + 1, NULL, 10);
}

/* "# N calls of N functions; N unfinished ...", "# N exits of a function ...". */
static void stable_footer(struct stable *t, const char *line)
{
	const char *of = strstr(line, " of "), *semi = strchr(line, ';');
	char *end;
	uint64_t v;

	if (line[1] != ' ' || line[2] < '0' || line[2] > '9')
		return;
	v = strtoull(line + 2, &end, 10);
	if (!strncmp(end, " exit", 5)) {
		t->foot_unknown = v;
	} else if (!strncmp(end, " call", 5) && of && semi && strstr(line, " unfinished")) {
		t->foot_calls = v;
		t->foot_funcs = strtoull(of + 4, NULL, 10);
		t->foot_unfinished = strtoull(semi + 1, NULL, 10);
	}
}

/* The rows (up to the first empty line: the histograms) and the footer. */
static void stable_parse(struct stable *t, const char *text)
{
	const char *line = text, *nl;
	char f[5][32];
	int at;

	memset(t, 0, sizeof(*t));
	for (; *line && *line != '\n'; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		if (*line == '#') {
			stable_footer(t, line);
			continue;
		}
		assert_true(t->n < MAX_NAMES);
		assert_int_equal(sscanf(line, "%" SCNu64 " %" SCNu64 " %31s %31s %31s %31s %31s  %n",
					&t->r[t->n].calls, &t->r[t->n].unfinished, f[0], f[1], f[2],
					f[3], f[4], &at), 7);
		snprintf(t->r[t->n].name, sizeof(t->r[0].name), "%.*s", (int)(nl - line - at),
			 line + at);
		t->r[t->n].total = us_to_ns(f[0]);
		t->r[t->n].self = us_to_ns(f[1]);
		t->r[t->n].avg = us_to_ns(f[2]);
		t->r[t->n].min = us_to_ns(f[3]);
		t->r[t->n].max = us_to_ns(f[4]);
		t->n++;
	}
}

static const struct srow *stable_find(const struct stable *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->r[i].name, name))
			return &t->r[i];
	fail_msg("no row for '%s'", name);
	return NULL;
}

/* Every function of the text has its row, with its counts; nothing more. */
static void expect_counts(const struct stable *st, const struct tscan *tc, const char *what)
{
	uint64_t calls = 0, unfinished = 0;
	size_t funcs = 0;

	for (size_t i = 0; i < tc->n; i++) {
		const struct tcount *c = &tc->c[i];
		const struct srow *r = stable_find(st, c->name);

		if (r->calls != c->calls || r->unfinished != c->unfinished ||
		    r->total != c->total_ns)
			fail_msg("%s: %s: table %" PRIu64 " calls, %" PRIu64 " unfinished, %" PRIu64
				 " ns; text %" PRIu64 ", %" PRIu64 ", %" PRIu64, what, c->name,
				 r->calls, r->unfinished, r->total, c->calls, c->unfinished,
				 c->total_ns);
		calls += c->calls;
		unfinished += c->unfinished;
		funcs++;
	}
	assert_int_equal(st->n, funcs);
	assert_int_equal(st->foot_funcs, funcs);
	assert_int_equal(st->foot_calls, calls);
	assert_int_equal(st->foot_unfinished, unfinished);
	assert_int_equal(st->foot_unknown, tc->unknown);
}

/* Total time descending, rows after rows. */
static void expect_sorted(const struct stable *st)
{
	for (size_t i = 1; i < st->n; i++)
		assert_true(st->r[i - 1].total >= st->r[i].total);
}

/* ---- running it ------------------------------------------------------ */

struct run {
	int status;
	char *out, *err;
	size_t out_len;
};

/* "bpfgraph report -i <golden rel, or a path> -o TMP args...", stderr captured. */
static void report(struct run *r, const char *rel, const char *const *args)
{
	char out[] = "/tmp/bg-stat-out-XXXXXX", err[] = "/tmp/bg-stat-err-XXXXXX";
	char *in = rel[0] == '/' ? strdup(rel) : golden_path(rel);
	char *argv[16] = { "report", "-i", in, "-o", out };
	int argc = 5, ofd = mkstemp(out), efd = mkstemp(err), saved;
	size_t elen;

	assert_true(ofd >= 0 && efd >= 0);
	close(ofd);
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
	r->out = golden_slurp(out, &r->out_len);
	r->err = golden_slurp(err, &elen);
	assert_non_null(r->out);
	assert_non_null(r->err);
	unlink(out);
	unlink(err);
	free(in);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* tests/golden/formats/<name>.in through render in the stat format. */
static char *render_canned(const char *name, const char *const *hist, size_t nr_hist)
{
	char *rel, *path, *tok[16], *buf = NULL;
	size_t len;
	FILE *m = open_memstream(&buf, &len);
	struct render *r;
	struct rec_sink s;
	struct canned c;
	int n;

	assert_true(asprintf(&rel, "formats/%s.in", name) > 0);
	path = golden_path(rel);
	assert_int_equal(canned_open(&c, path), 0);
	canned_settings(&c, tok, &n);
	r = render__new(&(struct render_opts){ .out = m, .funcs = &c.ft, .format = BG_FMT_STAT,
					       .flags = c.flags, .dialect = c.dialect,
					       .nr_cpu_ids = c.nr_cpu_ids, .header = true,
					       .hist = hist, .nr_hist = nr_hist });
	assert_non_null(r);
	s = render__sink(r);
	canned_play(&c, tok, n, &s);
	assert_int_equal(render__finish(r), 0);
	render__free(r);
	fclose(m);
	canned_free(&c);
	free(path);
	free(rel);
	return buf;
}

/* ---- tests ----------------------------------------------------------- */

/* Real captures read back: each function's calls and time as the text has them. */
static void test_seed_counts(void **state)
{
	static const char *const args[] = { "--format=stat", NULL };
	struct stable *st = malloc(sizeof(*st));

	assert_non_null(st);
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct tscan *tc = tc_scan(seeds[i]);
		struct run r;

		report(&r, seeds[i], args);
		if (r.status != BG_EXIT_OK || r.err[0])
			fail_msg("report %s: exit %d, stderr %s", seeds[i], r.status, r.err);
		stable_parse(st, r.out);
		assert_true(st->n > 5);
		expect_counts(st, tc, seeds[i]);
		expect_sorted(st);
		for (size_t k = 0; k < st->n; k++)
			assert_true(st->r[k].self <= st->r[k].total);
		run_free(&r);
		free(tc);
	}
	free(st);
}

/*
 * Records in (the graph builder's path, as live tracing takes it); the
 * text the same records print is what the count reads. Self times and
 * the order of equal totals worked out by hand from basic.in.
 */
static void test_basic_self_and_order(void **state)
{
	struct stable *st = malloc(sizeof(*st));
	struct tscan *tc = tc_scan("formats/basic.txt");
	char *out = render_canned("basic", NULL, 0);
	const struct srow *r;

	assert_non_null(st);
	stable_parse(st, out);
	expect_counts(st, tc, "basic");
	r = stable_find(st, "do_sys_openat2");
	/* 3000 - (1900 + 1000 + 100), and 1000 - 499 */
	assert_int_equal(r->self, 501);
	assert_int_equal(r->avg, 2000);
	assert_int_equal(r->min, 1000);
	assert_int_equal(r->max, 3000);
	/* 1900 - (1300 + 100), and a leaf of 499 */
	assert_int_equal(stable_find(st, "getname")->self, 999);
	assert_int_equal(stable_find(st, "kmem_cache_alloc")->self, 1200);
	assert_int_equal(stable_find(st, "bm_status_read [binfmt_misc]")->self, 840);
	assert_int_equal(stable_find(st, "should_failslab")->self, 110);
	/* by total; capable and getname_flags.part.0 both 100 ns in 1 call: by name */
	assert_string_equal(st->r[0].name, "do_sys_openat2");
	assert_string_equal(st->r[1].name, "getname");
	assert_string_equal(st->r[st->n - 2].name, "capable");
	assert_string_equal(st->r[st->n - 1].name, "getname_flags.part.0");
	expect_sorted(st);
	free(out);
	free(tc);
	free(st);
}

/* Exits without entries count with their duration; entries without exits apart. */
static void test_unfinished(void **state)
{
	struct stable *st = malloc(sizeof(*st));
	struct tscan *tc = tc_scan("formats/orphans.txt");
	char *out = render_canned("orphans", NULL, 0);
	const struct srow *r;

	assert_non_null(st);
	stable_parse(st, out);
	expect_counts(st, tc, "orphans");
	r = stable_find(st, "do_sys_openat2");
	assert_int_equal(r->calls, 1);
	assert_int_equal(r->unfinished, 1);
	assert_int_equal(r->total, 1100); /* the unfinished one adds nothing */
	assert_int_equal(r->self, 200); /* 1100 - getname's 900 */
	assert_int_equal(stable_find(st, "getname")->self, 800);
	assert_string_equal(st->r[0].name, "schedule");
	assert_int_equal(st->foot_unfinished, 2);
	free(out);
	free(tc);
	free(st);
}

/* A function whose calls all never finished: a row with no times. */
static void test_only_unfinished(void **state)
{
	struct functab ft;
	struct funcstat *s;
	const struct funcstat_row *rows;
	char *buf = NULL;
	size_t len, n;
	FILE *m = open_memstream(&buf, &len);

	functab__init(&ft);
	assert_int_equal(functab__add(&ft, "stuck", NULL, 0, 0), 0);
	assert_non_null(s = funcstat__new(&(struct funcstat_opts){ .funcs = &ft }));
	funcstat__emit(s, &(struct gev){ .type = GEV_ENTER, .func = 0, .ts = 5 });
	assert_int_equal(funcstat__finish(s), 0);
	rows = funcstat__rows(s, &n);
	assert_int_equal(n, 1);
	assert_int_equal(rows[0].calls, 0);
	assert_int_equal(rows[0].unfinished, 1);
	out_stat__print_table(m, s, false);
	fclose(m);
	assert_non_null(strstr(buf, "         0          1          0.000          0.000"
				    "              -              -              -  stuck\n"));
	assert_non_null(strstr(buf, "# 0 calls of 1 function; 1 unfinished"));
	free(buf);
	funcstat__free(s);
	functab__free(&ft);
}

static void leaf(struct funcstat *s, uint32_t func, uint64_t dur)
{
	funcstat__emit(s, &(struct gev){ .type = GEV_LEAF, .func = func, .dur = dur });
}

/* Buckets are powers of two: 1023 ns and 1024 ns fall on either side. */
static void test_hist_buckets(void **state)
{
	static const char *const pats[] = { "read_*", "nothing_*" };
	struct functab ft;
	struct funcstat *s;
	const struct funcstat_hist *h;
	char *buf = NULL;
	size_t len, n;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(funcstat__bucket(0), 0);
	assert_int_equal(funcstat__bucket(1), 0);
	assert_int_equal(funcstat__bucket(2), 1);
	assert_int_equal(funcstat__bucket(3), 1);
	assert_int_equal(funcstat__bucket(1023), 9);
	assert_int_equal(funcstat__bucket(1024), 10);
	assert_int_equal(funcstat__bucket(UINT64_MAX), 63);
	functab__init(&ft);
	assert_int_equal(functab__add(&ft, "read_b", NULL, 0, 0), 0);
	assert_int_equal(functab__add(&ft, "other", NULL, 0, 0), 1);
	assert_int_equal(functab__add(&ft, "read_a", NULL, 0, 0), 2);
	assert_non_null(s = funcstat__new(&(struct funcstat_opts){ &ft, pats, 2 }));
	leaf(s, 0, 1023);
	leaf(s, 0, 1024);
	leaf(s, 0, 1024);
	leaf(s, 1, 7);
	leaf(s, 2, 3000);
	funcstat__emit(s, &(struct gev){ .type = GEV_ENTER, .func = 2, .cpu = 1 });
	assert_int_equal(funcstat__finish(s), 0);
	h = funcstat__hists(s, &n);
	assert_int_equal(n, 2); /* one per matching function, by name */
	assert_int_equal(h[0].func, 2);
	assert_int_equal(h[0].calls, 1);
	assert_int_equal(h[0].unfinished, 1);
	assert_int_equal(h[0].bucket[11], 1);
	assert_int_equal(h[1].func, 0);
	assert_int_equal(h[1].bucket[9], 1);
	assert_int_equal(h[1].bucket[10], 2);
	assert_true(funcstat__pattern_seen(s, 0));
	assert_false(funcstat__pattern_seen(s, 1));
	out_stat__print_hists(m, s, pats, 2);
	fclose(m);
	assert_non_null(strstr(buf, "\nread_b (--hist read_*): 3 calls, durations in "
				    "nanoseconds (ns)\n"));
	assert_non_null(strstr(buf, "\n       512 -> 1023       : 1         |********************"
				    "                    |\n      1024 -> 2047       : 2         |"
				    "****************************************|\n"));
	assert_non_null(strstr(buf, "average 1024 ns, min 1023 ns, max 1024 ns, total 3071 ns\n"));
	assert_non_null(strstr(buf, "total 3000 ns; 1 unfinished, not in the histogram\n"));
	assert_non_null(strstr(buf, "\n--hist nothing_*: no call of a matching function in the trace\n"));
	assert_null(strstr(buf, "other"));
	free(buf);
	funcstat__free(s);
	functab__free(&ft);
}

/* After the table in the stat format; golden, the table as test_formats.c has it. */
static void test_hist_golden(void **state)
{
	static const char *const pats[] = { "do_sys_*", "should_failslab", "vfs_read" };
	char *out = render_canned("basic", pats, 3);
	char *plain = render_canned("basic", NULL, 0);

	golden_check("formats/basic.hist.stat", out, strlen(out));
	/* the table first, as without --hist */
	assert_memory_equal(out, plain, strlen(plain));
	free(out);
	free(plain);
}

/* Another format: its output as without --hist, the histograms on stderr. */
static void test_hist_beside_json(void **state)
{
	static const char *const with[] = { "--format=json", "--hist", "release_sock",
					    "--hist", "no_such_function", NULL };
	static const char *const without[] = { "--format=json", NULL };
	struct tscan *tc = tc_scan(seeds[1]);
	struct run a, b;
	char want[128];

	report(&a, seeds[1], with);
	report(&b, seeds[1], without);
	assert_int_equal(a.status, BG_EXIT_OK);
	assert_int_equal(a.out_len, b.out_len);
	assert_memory_equal(a.out, b.out, a.out_len);
	snprintf(want, sizeof(want), "release_sock (--hist release_sock): %" PRIu64 " calls,",
		 tc_get(tc, "release_sock", strlen("release_sock"))->calls);
	assert_true(tc_get(tc, "release_sock", strlen("release_sock"))->calls > 1);
	if (!strstr(a.err, want))
		fail_msg("stderr lacks '%s': %s", want, a.err);
	assert_non_null(strstr(a.err, "--hist no_such_function: no call of a matching function"));
	assert_string_equal(b.err, "");
	run_free(&a);
	run_free(&b);
	free(tc);
}

/*
 * funcgraph-tail text names every close: each pairs with its entry (not
 * a return without entry and an entry without return), and the text
 * comes back as it was.
 */
static void test_tail_text(void **state)
{
	static const char text[] =
		" 1)               |  vfs_read() {\n"
		" 1)   0.100 us    |    rw_verify_area();\n"
		" 1)               |    ext4_file_read_iter() {\n"
		" 1)   0.900 us    |      filemap_read();\n"
		" 1)   1.500 us    |    } /* ext4_file_read_iter */\n"
		" 1)   2.000 us    |  } /* vfs_read */\n"
		" 1)               |  vfs_read() {\n"
		" 1)   0.300 us    |    rw_verify_area();\n"
		" 1)   1.000 us    |  } /* vfs_read */\n";
	static const char *const stat[] = { "--format=stat", NULL };
	char path[] = "/tmp/bg-stat-tail-XXXXXX";
	int fd = mkstemp(path);
	struct stable *st = malloc(sizeof(*st));
	struct tscan *tc;
	struct run r;

	assert_true(fd >= 0 && st);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	tc = tc_scan_path(path);
	assert_int_equal(tc_get(tc, "vfs_read", 8)->calls, 2);
	report(&r, path, stat);
	assert_int_equal(r.status, BG_EXIT_OK);
	stable_parse(st, r.out);
	expect_counts(st, tc, "tail");
	assert_int_equal(stable_find(st, "vfs_read")->unfinished, 0);
	assert_int_equal(stable_find(st, "vfs_read")->self, 3000 - 100 - 1500 - 300);
	run_free(&r);
	report(&r, path, NULL);
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_string_equal(r.out, text);
	run_free(&r);
	unlink(path);
	free(tc);
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_counts),
		cmocka_unit_test(test_basic_self_and_order),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_tail_text),
		cmocka_unit_test(test_only_unfinished),
		cmocka_unit_test(test_hist_buckets),
		cmocka_unit_test(test_hist_golden),
		cmocka_unit_test(test_hist_beside_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
