// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace-cmd data files (--format=trace-cmd, report -i trace.dat) through
 * cmd_report(): bpfgraph's text and record files written as trace.dat
 * and read back give the text they were made from; the file's events
 * counted one funcgraph_entry per call line and one funcgraph_exit per
 * return; its layout as trace-cmd.dat.v6(5) says; files bpfgraph cannot
 * read refused with a message naming why.
 *
 * One thing a trace.dat cannot hold: a call printed open and closed with
 * nothing between ("f() {", then "}") is an entry right before its exit,
 * which every reader of the kernel's ring buffer folds into "f();". The
 * expected text is the source with such pairs folded (fold_pairs()).
 */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "golden.h"

#include "canned.h"
#include "cli.h"
#include "cmd.h"
#include "tcdat.h"
#include "tcdat_int.h"
#include "tcdat_layout.h"

static char *slurp(const char *path, size_t *len)
{
	size_t n = 0;

	return golden_slurp(path, len ? len : &n);
}

/* "bpfgraph report -i in -o out args..." must succeed quietly. */
static void report(const char *in, const char *out, const char *const *args)
{
	char *argv[16] = { "report", "-i", (char *)in, "-o", (char *)out };
	int argc = 5;

	for (; args && *args; args++)
		argv[argc++] = (char *)*args;
	if (cmd_report(argc, argv) != BG_EXIT_OK)
		fail_msg("report -i %s -o %s failed", in, out);
}

static const char *const to_dat[] = { "--format=trace-cmd", NULL };
static const char *const depth2[] = { "-D", "2", NULL };

struct tmpdir {
	char dir[64], dat[96], back[96], src[96];
};

static void tmp_init(struct tmpdir *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/bg-tcdat-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->dat, sizeof(t->dat), "%s/t.dat", t->dir);
	snprintf(t->back, sizeof(t->back), "%s/back.txt", t->dir);
	snprintf(t->src, sizeof(t->src), "%s/src.bgr", t->dir);
}

static void tmp_clean(struct tmpdir *t)
{
	unlink(t->dat);
	unlink(t->back);
	unlink(t->src);
	rmdir(t->dir);
}

/*
 * Is line (up to end) a close, "...|  <indent>}", of the call name? Its
 * brace, and in *ret what a leaf of it would print after "name();": the
 * return value of a "} / * name = v * /" (" / * = v * /"), or nothing.
 */
static const char *close_of(const char *line, const char *end, const char *name, size_t nlen,
			    char *ret, size_t cap)
{
	const char *bar = NULL, *b;

	for (const char *p = line; p < end; p++)
		if (*p == '|')
			bar = p;
	if (!bar)
		return NULL;
	for (b = bar + 1; b < end && *b == ' '; b++)
		;
	if (b == end || *b != '}')
		return NULL;
	ret[0] = '\0';
	if (b + 1 == end)
		return b;
	/* after the brace: the name alone (tail), with " = v" or with " ret=v" */
	if ((size_t)(end - b) < nlen + 8 || memcmp(b + 1, " /* ", 4) || memcmp(b + 5, name, nlen))
		return NULL;
	if (b[5 + nlen] == ' ' && memcmp(b + 5 + nlen, " */", 3))
		snprintf(ret, cap, " /*%.*s", (int)(end - (b + 5 + nlen)), b + 5 + nlen);
	return b;
}

/*
 * "X() {" followed by a bare "}" becomes "X();": the "}" line's columns
 * (duration; CPU and task are the same), but the entry's time stamp, as
 * the kernel's printer gives a leaf.
 */
static char *fold_pairs(const char *s, size_t len, size_t *out_len)
{
	char *out = malloc(len + 64), *o = out;
	const char *p = s, *end = s + len;

	assert_non_null(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *nl2, *brace = NULL, *open;
		const char *name = NULL, *from, *bar, *d;
		char ret[64];

		nl = nl ? nl : end;
		nl2 = nl < end ? memchr(nl + 1, '\n', (size_t)(end - nl - 1)) : NULL;
		open = nl - p >= 4 && !memcmp(nl - 4, "() {", 4) ? nl - 4 : NULL;
		if (open && nl2) {
			for (name = open; name > p && name[-1] != ' ';)
				name--;
			brace = close_of(nl + 1, nl2, name, (size_t)(open - name), ret, sizeof(ret));
		}
		if (!brace) {
			memcpy(o, p, (size_t)(nl - p) + (nl < end));
			o += (nl - p) + (nl < end);
			p = nl + (nl < end);
			continue;
		}
		from = nl + 1;
		/* an abstime column first ("123.456789 |", no CPU's ')'): the entry's */
		for (d = p; *d == ' '; d++)
			;
		bar = memchr(p, '|', (size_t)(nl - p));
		if (*d >= '0' && *d <= '9' && bar && memchr(d, '.', (size_t)(bar - d)) &&
		    !memchr(d, ')', (size_t)(bar - d))) {
			memcpy(o, p, (size_t)(bar - p));
			o += bar - p;
			from = memchr(nl + 1, '|', (size_t)(brace - nl - 1));
		}
		memcpy(o, from, (size_t)(brace - from));
		o += brace - from;
		memcpy(o, name, (size_t)(open - name));
		o += open - name;
		o += sprintf(o, "();%s\n", ret);
		p = nl2 + 1;
	}
	*out_len = (size_t)(o - out);
	return out;
}

static void expect_text(const char *what, const char *want, size_t wlen, const char *path)
{
	size_t len = 0;
	char *got = slurp(path, &len);

	if (len != wlen || memcmp(got, want, len)) {
		fprintf(stderr, "%s: read back differs:\n--- want\n%.*s--- got\n%.*s", what,
			(int)wlen, want, (int)len, got);
		fail();
	}
	free(got);
}

/* bpfgraph's text of one trace each, written as trace.dat and read back. */
static void test_golden_text_back(void **state)
{
	static const char *const files[] = {
		"default.out",	   "proc.out",	      "abstime.out",  "abstime_proc.out",
		"cpus16.out",	   "cpus128_proc.out", "nooverhead.out",
		"retval_605.out",  "retval_605_hex.out", "retval_613.out",
		"retval_613_hex_tail.out",
	};
	struct tmpdir t;

	(void)state;
	tmp_init(&t);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char rel[64], *path, *text, *want;
		size_t len = 0, wlen;

		snprintf(rel, sizeof(rel), "out_text/%s", files[i]);
		path = golden_path(rel);
		text = slurp(path, &len);
		report(path, t.dat, to_dat);
		report(t.dat, t.back, NULL);
		want = fold_pairs(text, len, &wlen);
		expect_text(files[i], want, wlen, t.back);
		free(want);
		free(text);
		free(path);
	}
	tmp_clean(&t);
}

static bool script_supported(const char *path)
{
	struct canned c;
	char *tok[16];
	int n;
	bool ok;

	assert_int_equal(canned_open(&c, path), 0);
	canned_settings(&c, tok, &n);
	while (n && !c.unsupported) {
		c.unsupported |= !strcmp(tok[0], "lost");
		n = canned_line(&c, tok, 16);
	}
	ok = !c.unsupported;
	canned_free(&c);
	return ok;
}

/* Record files of the graph scripts: their text, and that of their trace.dat, agree. */
static void test_record_back(void **state)
{
	char dir[4096], script[4096 + 256], direct[128];
	size_t nscripts = 0, len = 0, wlen;
	struct dirent *de;
	struct tmpdir t;
	DIR *d;

	(void)state;
	tmp_init(&t);
	snprintf(direct, sizeof(direct), "%s/direct.txt", t.dir);
	snprintf(dir, sizeof(dir), "%s/tests/golden/graph", BG_SRCDIR);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		char *text, *want;

		if (nl < 4 || strcmp(de->d_name + nl - 3, ".in"))
			continue;
		snprintf(script, sizeof(script), "%s/%s", dir, de->d_name);
		if (!script_supported(script))
			continue;
		assert_int_equal(canned_record(script, t.src, true), 0);
		report(t.src, direct, NULL);
		report(t.src, t.dat, to_dat);
		report(t.dat, t.back, NULL);
		text = slurp(direct, &len);
		want = fold_pairs(text, len, &wlen);
		expect_text(de->d_name, want, wlen, t.back);
		free(want);
		free(text);
		/* The live filters apply to a trace.dat's events as to the records. */
		report(t.src, direct, depth2);
		report(t.dat, t.back, depth2);
		text = slurp(direct, &len);
		want = fold_pairs(text, len, &wlen);
		expect_text(de->d_name, want, wlen, t.back);
		free(want);
		free(text);
		nscripts++;
	}
	closedir(d);
	assert_true(nscripts >= 15);
	unlink(direct);
	tmp_clean(&t);
}

/* Calls and closing braces of function_graph text, counted from its lines alone. */
static void count_text(const char *s, size_t len, unsigned int *calls, unsigned int *leaves,
		       unsigned int *braces)
{
	const char *p = s, *end = s + len;

	*calls = *leaves = *braces = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *bar = NULL, *q;

		nl = nl ? nl : end;
		for (q = p; q < nl; q++)
			if (*q == '|')
				bar = q;
		if (*p != '#' && bar) {
			for (q = bar + 1; q < nl && *q == ' '; q++)
				;
			if (q < nl && *q == '}')
				(*braces)++;
			else if (memmem(q, (size_t)(nl - q), "();", 3))
				(*calls)++, (*leaves)++;
			else if (memmem(q, (size_t)(nl - q), "() {", 4))
				(*calls)++;
		}
		p = nl + 1;
	}
}

static int count_feed(void *ctx, const struct bg_rec *rec)
{
	(void)ctx;
	(void)rec;
	return 0;
}

static void count_drain(void *ctx, uint64_t upto)
{
	(void)ctx;
	(void)upto;
}

static void count_flush(void *ctx)
{
	(void)ctx;
}

static int count_lost(void *ctx, uint32_t cpu, uint64_t count)
{
	uint64_t *n = ctx;

	(void)cpu;
	*n += count;
	return 0;
}

/* The file has one funcgraph_entry per call line, one funcgraph_exit per return. */
static void test_event_counts(void **state)
{
	char *path = golden_path("out_text/default.out"), *text;
	unsigned int calls, leaves, braces;
	uint64_t lost = 0;
	struct tmpdir t;
	struct tcdat *r;
	size_t len = 0;
	FILE *f;

	(void)state;
	tmp_init(&t);
	text = slurp(path, &len);
	count_text(text, len, &calls, &leaves, &braces);
	assert_int_equal(calls, 7);
	assert_int_equal(braces, 5);
	report(path, t.dat, to_dat);
	f = fopen(t.dat, "rb");
	assert_non_null(f);
	r = tcdat__open(f, t.dat, "bpfgraph", stderr);
	assert_non_null(r);
	assert_true(tcdat__meta(r)->bpfgraph);
	assert_int_equal(tcdat__meta(r)->version, 6);
	assert_int_equal(tcdat__replay(r, &(struct tcdat_sink){
		{ count_feed, count_drain, count_flush, NULL }, count_lost, &lost }), 0);
	assert_int_equal(tcdat__stats(r)->entries, calls);
	assert_int_equal(tcdat__stats(r)->exits, leaves + braces);
	assert_int_equal(tcdat__stats(r)->other, 0);
	/* "[LOST 3 EVENTS]" and "[LOST EVENTS]": two pages say so, one with its count */
	assert_int_equal(tcdat__stats(r)->lost_pages, 2);
	assert_int_equal(lost, 3);
	tcdat__close(r);
	fclose(f);
	free(text);
	free(path);
	tmp_clean(&t);
}

/* Version 6 as trace-cmd.dat.v6(5) lays it out: the CPU data in whole pages. */
static void test_layout(void **state)
{
	char *path = golden_path("out_text/proc.out"), *dat;
	struct tmpdir t;
	size_t len = 0;

	(void)state;
	tmp_init(&t);
	report(path, t.dat, to_dat);
	dat = slurp(t.dat, &len);
	assert_true(len > TCDAT_PAGE_SIZE && len % TCDAT_PAGE_SIZE == 0);
	assert_memory_equal(dat, "\x17\x08\x44tracing6\0\0\x08\0\x10\0\0header_page\0", 30);
	assert_non_null(memmem(dat, len, "name: funcgraph_entry\nID: 11\n", 29));
	assert_non_null(memmem(dat, len, "field:unsigned long retval;\toffset:16;\tsize:8;", 46));
	assert_non_null(memmem(dat, len, "102 wl\n", 7)); /* saved cmdlines */
	assert_non_null(memmem(dat, len, " t bm_status_read\t[binfmt_misc]\n", 32));
	assert_non_null(memmem(dat, len, "flyrecord", 10));
	free(dat);
	free(path);
	tmp_clean(&t);
}

/* report -i FILE of bytes, which must fail with exit 1 and msg on stderr. */
static void refused(const void *bytes, size_t n, const char *msg)
{
	char path[] = "/tmp/bg-tcdat-bad-XXXXXX", err[] = "/tmp/bg-tcdat-err-XXXXXX";
	char *argv[] = { "report", "-i", path, "-o", "/dev/null" };
	int fd = mkstemp(path), efd = mkstemp(err), saved;
	char *text;

	assert_true(fd >= 0 && efd >= 0);
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	close(fd);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	assert_true(dup2(efd, STDERR_FILENO) >= 0);
	assert_int_equal(cmd_report(5, argv), BG_EXIT_FAILURE);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(efd);
	text = slurp(err, NULL);
	if (!strstr(text, msg))
		fail_msg("expected '%s' in: %s", msg, text);
	free(text);
	unlink(path);
	unlink(err);
}

static void test_refused(void **state)
{
	static const char lz4[] = "\x17\x08\x44tracing7\0\0\x08\0\x10\0\0lz4\0" "1.9.4\0";
	static const char big[] = "\x17\x08\x44tracing6\0\x01\x08\0\0\x10\0";
	static const char v5[] = "\x17\x08\x44tracing5\0\0\x08\0\x10\0\0";
	char *path = golden_path("out_text/proc.out"), *dat;
	struct tmpdir t;
	size_t len = 0;

	(void)state;
	refused(lz4, sizeof(lz4) - 1, "compressed with lz4 1.9.4: bpfgraph reads zstd-compressed");
	refused(big, sizeof(big) - 1, "a big-endian file");
	refused(v5, sizeof(v5) - 1, "trace-cmd file version 5: bpfgraph reads versions 6 and 7");
	tmp_init(&t);
	report(path, t.dat, to_dat);
	dat = slurp(t.dat, &len);
	refused(dat, 300, "the file ends inside");
	free(dat);
	free(path);
	tmp_clean(&t);
}

/* The format word, and -o it needs. */
static void test_cli(void **state)
{
	struct bg_opts o;
	char *ok[] = { "report", "-i", "x", "--format=trace-cmd", "-o", "t.dat" };
	char *no_o[] = { "report", "-i", "x", "--format=trace-cmd" };
	FILE *err = tmpfile();

	(void)state;
	assert_int_equal(cli__parse_cmd(&o, BG_CMD_REPORT, 6, ok, err), 0);
	assert_int_equal(o.format, BG_FMT_TRACECMD);
	cli__free(&o);
	assert_int_not_equal(cli__parse_cmd(&o, BG_CMD_REPORT, 4, no_o, err), 0);
	cli__free(&o);
	fclose(err);
}

/*
 * A kernel's kallsyms names some addresses twice (__do_softirq and
 * __softirqentry_text_start on 6.1); its printer names the first of
 * them in kallsyms' order, and so must the reader, whatever the sort.
 */
static void test_aliases(void **state)
{
	static const char syms[] = "ffffffff81000100 T before\n"
				   "ffffffff81000200 T __do_softirq\n"
				   "ffffffff81000200 T __softirqentry_text_start\n"
				   "ffffffff81000200 t third_alias\n"
				   "ffffffff81000300 T __softirqentry_text_end\n"
				   "ffffffff81000400 d not_text\n"
				   "ffffffff81000500 T mod_func\t[mod]\n";
	static const struct {
		uint64_t addr;
		const char *name, *module;
	} want[] = {
		{ 0xffffffff81000200, "__do_softirq", NULL },
		{ 0xffffffff81000250, "__do_softirq", NULL },
		{ 0xffffffff81000100, "before", NULL },
		{ 0xffffffff81000480, "__softirqentry_text_end", NULL },
		{ 0xffffffff81000500, "mod_func", "mod" },
	};
	struct tcdat *r = calloc(1, sizeof(*r));
	char *text = strdup(syms);

	(void)state;
	assert_non_null(r);
	assert_non_null(text);
	functab__init(&r->funcs);
	assert_int_equal(tcdat_parse_kallsyms(r, text), 0);
	assert_int_equal(r->nsyms, 6);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int idx = tcdat_func(r, want[i].addr);

		assert_true(idx >= 0);
		assert_string_equal(r->funcs.f[idx].name, want[i].name);
		if (want[i].module)
			assert_string_equal(r->funcs.f[idx].module, want[i].module);
		else
			assert_null(r->funcs.f[idx].module);
	}
	assert_int_equal(r->funcs.n, 4);
	tcdat__close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_text_back),
		cmocka_unit_test(test_record_back),
		cmocka_unit_test(test_event_counts),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_cli),
		cmocka_unit_test(test_aliases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
