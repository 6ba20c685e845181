// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph report -i TEXT: function_graph text (the seeds in
 * tests/golden/seeds/, real captures) into every format through
 * cmd_report(). Seed 001 (perf ftrace, return values) against golden
 * files tests/golden/formats/seed001.*, seed 000 (tracefs, modules, an
 * orphan close) as SVG; all seeds checked for structure: JSON lines and
 * Chrome JSON through jq, folded and SVG weights adding up, the text of a
 * clean capture given back byte for byte, and bpfgraph's own text too.
 * Bad text: a damaged line skipped with a warning naming the file and
 * line; with --strict, exit 1 and that one line. Standard input.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/wait.h>
#include <unistd.h>

#include "golden.h"

#include "cli.h"
#include "cmd.h"
#include "fgtext.h"

#define SEED_000 "seeds/000_552e225c0d5c94bb.txt"
#define SEED_001 "seeds/001_42a8f16914de080a.txt"
/* Debian's 7.3 with funcgraph-args: enums with names, "()" before it was on */
#define SEED_005 "seeds/005_d0673469c12dbbf8.txt"
/* 7.3, funcgraph-args under a module's function (binfmt_misc's bm_status_read) */
#define SEED_006 "seeds/006_8ce3eb5febf35e9a.txt"

static const char *const seeds[] = {
	SEED_000,
	SEED_001,
	"seeds/002_76c6522b3146f63d.txt",
	"seeds/003_9ac0de771dae3076.txt",
	"seeds/004_cf19708d00924ebb.txt",
};

struct fmt {
	const char *ext; /* of the golden file */
	const char *args[3];
};

static const struct fmt fmts[] = {
	{ "txt", { NULL } },
	{ "json", { "--format=json", NULL } },
	{ "chrome.json", { "--format=chrome", NULL } },
	{ "folded", { "--format=folded", NULL } },
	{ "count.folded", { "--format=folded", "--folded-weight=count", NULL } },
	{ "svg", { "--format=svg", NULL } },
	{ "count.svg", { "--format=svg", "--folded-weight=count", NULL } },
	{ "stat", { "--format=stat", NULL } },
};

struct run {
	int status;
	char *out, *err; /* what went to -o FILE and to stderr */
	size_t out_len;
	bool out_exists;
};

static char *slurp(const char *path, size_t *len)
{
	size_t n = 0;
	char *s = golden_slurp(path, len ? len : &n);

	return s;
}

/* "bpfgraph report -i in -o TMP args...", stderr captured. */
static void run_report(struct run *r, const char *in, const char *const *args)
{
	char out[] = "/tmp/bg-report-out-XXXXXX", err[] = "/tmp/bg-report-err-XXXXXX";
	char *argv[16] = { "report", "-i", (char *)in, "-o", out };
	int argc = 5, ofd = mkstemp(out), efd = mkstemp(err), saved;

	assert_true(ofd >= 0 && efd >= 0);
	close(ofd);
	unlink(out); /* report must create it only when the input is good */
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
	r->out_exists = access(out, F_OK) == 0;
	r->out = r->out_exists ? slurp(out, &r->out_len) : NULL;
	r->err = slurp(err, NULL);
	assert_non_null(r->err);
	unlink(out);
	unlink(err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/*
 * Quiet, but for the line on which folded stacks and SVG count the calls
 * they left out (a capture stopped inside a call has one that never
 * finished).
 */
static bool quiet(const struct fmt *f, const char *err)
{
	const char *nl = strchr(err, '\n');
	const char *want = strstr(f->ext, "svg") ? "bpfgraph: svg: " : "bpfgraph: folded: ";

	if (!err[0])
		return true;
	return (strstr(f->ext, "folded") || strstr(f->ext, "svg")) &&
	       !strncmp(err, want, strlen(want)) && strstr(err, " left out (") && nl && !nl[1];
}

/* report of seed in the format, which must succeed quietly. */
static char *report_ok(const char *seed, const struct fmt *f, size_t *len)
{
	char *path = golden_path(seed);
	struct run r;

	run_report(&r, path, f->args);
	if (r.status != BG_EXIT_OK || !r.out || !quiet(f, r.err))
		fail_msg("report -i %s %s: exit %d, stderr: %s", seed, f->ext, r.status, r.err);
	free(r.err);
	free(path);
	*len = r.out_len;
	return r.out;
}

static void test_seed001_golden(void **state)
{
	char rel[64];
	size_t len;
	char *out;

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		out = report_ok(SEED_001, &fmts[i], &len);
		snprintf(rel, sizeof(rel), "formats/seed001.%s", fmts[i].ext);
		golden_check(rel, out, len);
		free(out);
	}
	/* tracefs text with modules and an orphan "}": its flame graph */
	out = report_ok(SEED_000, &fmts[5], &len);
	golden_check("formats/seed000.svg", out, len);
	assert_non_null(strstr(out, "<title>nf_conntrack_in [nf_conntrack] ("));
	free(out);
}

/* The calls the text reader finds in a seed (ENTER + LEAF). */
static uint64_t seed_calls(const char *seed)
{
	char *path = golden_path(seed);
	FILE *f = fopen(path, "r");
	struct fgtext_doc *d;
	uint64_t calls;

	assert_non_null(f);
	d = fgtext__load(f, &(struct fgtext_opts){ .name = seed }, NULL);
	assert_non_null(d);
	calls = d->stats->calls;
	fgtext__doc_free(d);
	fclose(f);
	free(path);
	return calls;
}

static uint64_t svg_attr(const char *s, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(s, key);
	assert_non_null(p);
	return strtoull(p + strlen(key), NULL, 10);
}

static uint64_t folded_sum(char *text)
{
	char *save = NULL, *line;
	uint64_t sum = 0;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		assert_non_null(sp);
		assert_true(sp > line && sp[1] >= '0' && sp[1] <= '9');
		sum += strtoull(sp + 1, NULL, 10);
	}
	return sum;
}

static bool have(const char *tool)
{
	char *cmd;
	int rc;

	assert_true(asprintf(&cmd, "command -v %s >/dev/null 2>&1", tool) > 0);
	rc = system(cmd);
	free(cmd);
	return rc == 0;
}

/* TOOL ... FILE must exit 0 on what report wrote. */
static void tool_ok(const char *tool, const char *opts, const char *out, size_t len)
{
	char path[] = "/tmp/bg-report-chk-XXXXXX";
	int fd = mkstemp(path);
	char *cmd;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, out, len), (ssize_t)len);
	close(fd);
	assert_true(asprintf(&cmd, "%s %s '%s' >/dev/null", tool, opts, path) > 0);
	if (system(cmd) != 0)
		fail_msg("check failed: %s", cmd);
	free(cmd);
	unlink(path);
}

/*
 * Every seed in every format: JSON has one object per call found in the
 * text (plus unfinished and orphan ends), Chrome as many complete events,
 * count-weighted stacks count the calls that ended, the SVG's root weighs
 * what the folded stacks add up to.
 */
static void test_seed_structure(void **state)
{
	bool jq = have("jq"), xmllint = have("xmllint");
	char *jq_json, *jq_chrome;
	size_t len;

	if (!jq || !xmllint)
		fprintf(stderr, "jq or xmllint not installed: their checks skipped\n");
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		uint64_t calls = seed_calls(seeds[i]), time_sum, count_sum;
		char *out[sizeof(fmts) / sizeof(fmts[0])];
		size_t lens[sizeof(fmts) / sizeof(fmts[0])];

		for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++)
			out[k] = report_ok(seeds[i], &fmts[k], &lens[k]);
		assert_true(calls > 100);
		assert_true(lens[0] > 0 && strstr(out[0], "() {\n"));
		if (jq) {
			assert_true(asprintf(&jq_json, "-e -s 'length >= %" PRIu64 " and "
				    "all(.[]; (.name|type) == \"string\" and (.depth|type) == "
				    "\"number\" and (.cpu|type) == \"number\")'", calls) > 0);
			tool_ok("jq", jq_json, out[1], lens[1]);
			assert_true(asprintf(&jq_chrome, "-e '[.traceEvents[] | select(.ph == \"X\")]"
				    " | length >= %" PRIu64 " and all(.[]; (.ts|type) == \"number\""
				    " and (.dur|type) == \"number\") and (map(.ts) | max > 0)'", calls) > 0);
			tool_ok("jq", jq_chrome, out[2], lens[2]);
			free(jq_json);
			free(jq_chrome);
		}
		time_sum = folded_sum(out[3]);
		count_sum = folded_sum(out[4]);
		assert_true(time_sum > 0);
		assert_true(count_sum <= calls + 64 && count_sum + 64 >= calls);
		assert_int_equal(svg_attr(out[5], "data-total"), time_sum);
		assert_int_equal(svg_attr(out[6], "data-total"), count_sum);
		if (xmllint) {
			tool_ok("xmllint", "--noout", out[5], lens[5]);
			tool_ok("xmllint", "--noout", out[6], lens[6]);
		}
		for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++)
			free(out[k]);
	}
	(void)len;
}

/* A clean tracefs capture comes back as it was; perf's has a prompt line less. */
static void test_text_as_read(void **state)
{
	size_t len, slen;
	char *path = golden_path(SEED_000), *seed = slurp(path, &slen);
	char *out = report_ok(SEED_000, &fmts[0], &len);

	assert_int_equal(len, slen);
	assert_memory_equal(out, seed, len);
	free(out);
	free(seed);
	free(path);
	path = golden_path(SEED_001);
	seed = slurp(path, &slen);
	out = report_ok(SEED_001, &fmts[0], &len);
	assert_string_equal(out, strchr(seed, '\n') + 1);
	free(out);
	free(seed);
	free(path);
}

/*
 * The kernel's own funcgraph-args (and -retaddr) text comes back byte for
 * byte: arguments and callers printed again as read, enum names included.
 */
static void test_args_text_as_read(void **state)
{
	static const char *const real[] = { SEED_005, SEED_006 };
	static const struct fmt noargs = { "txt", { "-O", "nofuncgraph-args", NULL } };
	size_t len = 0, slen = 0;
	char *path, *seed, *out;

	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		path = golden_path(real[i]);
		seed = slurp(path, &slen);
		out = report_ok(real[i], &fmts[0], &len);
		if (len != slen || memcmp(out, seed, len))
			fail_msg("report -i %s: not the text read", real[i]);
		free(out);
		free(seed);
		free(path);
	}
	/* the option still turns them off */
	out = report_ok(SEED_005, &noargs, &len);
	assert_non_null(strstr(out, "|  skb_release_data();\n"));
	assert_null(strstr(out, "SKB_DROP_REASON"));
	free(out);
	/* JSON from text has no registers: no "args" member made up */
	out = report_ok(SEED_005, &fmts[1], &len);
	assert_null(strstr(out, "\"args\""));
	free(out);
}

/* -O and --compat apply to text as to recordings. */
static void test_text_options(void **state)
{
	static const struct fmt hex = { "txt", { "-O", "funcgraph-retval-hex", NULL } };
	static const struct fmt noret = { "txt", { "--compat=6.1", NULL } };
	static const struct fmt tail = { "txt", { "-O", "funcgraph-tail", NULL } };
	size_t len;
	char *out;

	out = report_ok(SEED_001, &hex, &len);
	assert_non_null(strstr(out, "/* = 0xffffffffffffff01 */"));
	assert_null(strstr(out, "/* = -255 */"));
	free(out);
	out = report_ok(SEED_001, &noret, &len);
	assert_null(strstr(out, "/* ="));
	free(out);
	/* no return values in seed 000: none are made up; tail names closes */
	out = report_ok(SEED_000, &tail, &len);
	assert_null(strstr(out, "/* ="));
	assert_non_null(strstr(out, "} /* SyS_write */\n"));
	free(out);
	/* nor in JSON: a call printed without a value has none */
	out = report_ok(SEED_000, &fmts[1], &len);
	assert_non_null(strstr(out, "\"ret\":null,\"ret_type\":null,\"retval\":null"));
	assert_null(strstr(out, "\"ret\":0,"));
	free(out);
}

static char *write_tmp(const char *text, size_t len)
{
	char *path = strdup("/tmp/bg-report-in-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

/* One line on stderr, "bpfgraph: FILE" then what; exit 1; no output file. */
static void expect_error(const char *text, size_t len, const char *what, const char *const *args)
{
	char *path = write_tmp(text, len), want[512];
	const char *argv[8] = { NULL };
	struct run r;
	size_t n = 0;

	for (; args && *args; args++)
		argv[n++] = *args;
	for (args = fmts[5].args; *args; args++)
		argv[n++] = *args;
	snprintf(want, sizeof(want), "bpfgraph: %s%s", path, what);
	run_report(&r, path, argv);
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_false(r.out_exists);
	if (strncmp(r.err, want, strlen(want)))
		fail_msg("stderr '%s', expected it to start with '%s'", r.err, want);
	assert_non_null(strchr(r.err, '\n'));
	assert_int_equal(strchr(r.err, '\n')[1], '\0');
	run_free(&r);
	unlink(path);
	free(path);
}

static void test_text_errors(void **state)
{
	static const char bad_call[] = " 0)               |  foo() {\n 0)   1.0 us    |    bar(\n";
	static const char nul[] = " 0)   0.100 us    |  foo();\n 0)   0.1\0 us    |  bar();\n";
	static const char prose[] = "Hello,\nthis is no trace.\n";
	static const char magic_only[] = "BGRECORD";
	static const char *const strict[] = { "--strict", NULL };

	expect_error(bad_call, sizeof(bad_call) - 1, ":2: ", strict);
	expect_error(nul, sizeof(nul) - 1, ":2: ", strict);
	expect_error(prose, sizeof(prose) - 1,
		     ": neither a bpfgraph record file nor function_graph text", NULL);
	expect_error("", 0, ": neither a bpfgraph record file", NULL);
	/* the magic makes it a record file: the record reader's message */
	expect_error(magic_only, sizeof(magic_only) - 1, "", NULL);
}

/*
 * A damaged line (or the last one, cut by Ctrl-C on "cat trace_pipe")
 * is skipped with one warning naming the file, the line and how it
 * began, once though text is read twice; the rest is printed as if the
 * line had not been there. --strict refuses the file instead.
 */
static void test_damaged_text(void **state)
{
	static const char clean[] = " 0)               |  foo() {\n"
				    " 0)   1.000 us    |    baz();\n"
				    " 0)   2.000 us    |  }\n";
	static const char damaged[] = " 0)               |  foo() {\n"
				      " 0)   1.0 us    |    bar(\n"
				      " 0)   1.000 us    |    baz();\n"
				      " 0)   2.000 us    |  }\n"
				      " 0)   0.048 us    |    qu";
	static const char *const strict[] = { "--strict", NULL };
	char *cp = write_tmp(clean, sizeof(clean) - 1), *dp = write_tmp(damaged, sizeof(damaged) - 1);
	char want[1024];
	struct run c, d;

	(void)state;
	run_report(&c, cp, NULL);
	run_report(&d, dp, NULL);
	assert_int_equal(c.status, BG_EXIT_OK);
	assert_int_equal(d.status, BG_EXIT_OK);
	assert_non_null(d.out);
	assert_string_equal(d.out, c.out);
	assert_string_equal(d.out, clean);
	snprintf(want, sizeof(want),
		 "bpfgraph: %s:2: line skipped, cannot parse function call: "
		 "' 0)   1.0 us    |    bar('\n"
		 "bpfgraph: %s:5: line skipped, cannot parse function call: "
		 "' 0)   0.048 us    |    qu'\n", dp, dp);
	assert_string_equal(d.err, want);
	run_free(&c);
	run_free(&d);
	run_report(&d, dp, strict);
	assert_int_equal(d.status, BG_EXIT_FAILURE);
	assert_false(d.out_exists);
	snprintf(want, sizeof(want), "bpfgraph: %s:2: cannot parse function call 'bar('\n", dp);
	assert_string_equal(d.err, want);
	run_free(&d);
	unlink(cp);
	unlink(dp);
	free(cp);
	free(dp);
}

/*
 * bpfgraph's own text comes back byte for byte: every golden of
 * tests/golden/out_text that holds one trace (the others hold several,
 * between "====" lines). Among them, the types_* goldens start with a
 * void function's leaf (no value), which once decided "no return values"
 * for the whole text, and nocpu.out has a '#' marked line (1-10 ms),
 * which was once read as a comment.
 */
static void test_own_text_back(void **state)
{
	char *dir = golden_path("out_text");
	size_t len, glen = 0, n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);
		char rel[300], *path, *text, *out;

		if (nl < 5 || strcmp(de->d_name + nl - 4, ".out"))
			continue;
		snprintf(rel, sizeof(rel), "out_text/%s", de->d_name);
		path = golden_path(rel);
		text = slurp(path, &glen);
		if (!strncmp(text, "====", 4) || strstr(text, "\n====")) {
			free(text);
			free(path);
			continue;
		}
		out = report_ok(rel, &fmts[0], &len);
		if (len != glen || memcmp(out, text, len))
			fail_msg("report -i %s: not the text read", rel);
		free(out);
		free(text);
		free(path);
		n++;
	}
	closedir(d);
	free(dir);
	/* 24 when this was written: a golden that stopped counting fails here. */
	assert_true(n >= 24);
}

/* report -i - reads standard input: a pipe, copied aside (text is read twice). */
static void test_stdin(void **state)
{
	char *path = golden_path(SEED_000), *seed;
	int p[2], saved, status;
	size_t slen = 0, len;
	struct run r;
	pid_t pid;

	(void)state;
	seed = slurp(path, &slen);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(p[0]);
		_exit(write(p[1], seed, slen) == (ssize_t)slen ? 0 : 1);
	}
	close(p[1]);
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0 && dup2(p[0], STDIN_FILENO) >= 0);
	close(p[0]);
	run_report(&r, "-", NULL);
	assert_true(dup2(saved, STDIN_FILENO) >= 0);
	close(saved);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_string_equal(r.err, "");
	len = r.out_len;
	assert_int_equal(len, slen);
	assert_memory_equal(r.out, seed, len);
	run_free(&r);
	free(seed);
	free(path);
}

/* Names go into XML escaped: the SVG stays well formed. */
static void test_svg_escape(void **state)
{
	static const char text[] = " 0)   0.100 us    |  a&b<c>\"x'();\n";
	char *path = write_tmp(text, sizeof(text) - 1);
	struct run r;

	run_report(&r, path, fmts[5].args);
	assert_int_equal(r.status, BG_EXIT_OK);
	assert_non_null(r.out);
	assert_non_null(strstr(r.out, "<title>a&amp;b&lt;c&gt;&quot;x&apos; (0.100 us, 100.00%)"));
	if (have("xmllint"))
		tool_ok("xmllint", "--noout", r.out, r.out_len);
	run_free(&r);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed001_golden),
		cmocka_unit_test(test_seed_structure),
		cmocka_unit_test(test_text_as_read),
		cmocka_unit_test(test_args_text_as_read),
		cmocka_unit_test(test_text_options),
		cmocka_unit_test(test_text_errors),
		cmocka_unit_test(test_damaged_text),
		cmocka_unit_test(test_own_text_back),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_svg_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
