// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The docs tell the same story as the parser: every long option, short
 * option and -O name printed by --help appears in man/bpfgraph.1 and in
 * tools/bpfgraph.bash-completion; neither of them mentions an option that
 * does not exist; what the completion offers, the parser accepts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "diff.h"

#ifndef BG_SRCDIR
#error "BG_SRCDIR (the repository root) must be defined"
#endif

#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif

#define MAX_WORDS 128

struct words {
	char *v[MAX_WORDS];
	size_t n;
};

struct docs {
	char help[16384];
	char diff_help[8192]; /* "bpfgraph diff --help" */
	char *man; /* roff with escapes and font changes removed */
	char *compl;
	struct words longs, shorts, onames, groups;
	struct words diff_longs;
};

static struct docs docs;

static void words_add(struct words *w, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strlen(w->v[i]) == len && !strncmp(w->v[i], s, len))
			return;
	assert_true(w->n < MAX_WORDS);
	w->v[w->n] = strndup(s, len);
	assert_non_null(w->v[w->n]);
	w->n++;
}

static bool words_has(const struct words *w, const char *s)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], s))
			return true;
	return false;
}

static void words_free(struct words *w)
{
	while (w->n)
		free(w->v[--w->n]);
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* word occurs in text with no name character right before or after it. */
static bool has_word(const char *text, const char *word)
{
	size_t len = strlen(word);
	const char *at;

	for (at = text; (at = strstr(at, word)); at++)
		if ((at == text || !is_name_char(at[-1])) &&
		    !is_name_char(at[len]))
			return true;
	return false;
}

static char *slurp(const char *rel)
{
	char path[4096];
	char *buf = NULL;
	size_t len = 0;
	FILE *f, *m;
	int c;

	snprintf(path, sizeof(path), "%s/%s", BG_SRCDIR, rel);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

/* Good enough roff to text: "\-" is "-", font changes and "\&" vanish. */
static char *roff_plain(char *roff)
{
	char *r = roff, *w = roff;

	while (*r) {
		if (r[0] != '\\') {
			*w++ = *r++;
		} else if (r[1] == '-' || r[1] == ' ' || r[1] == '~') {
			*w++ = r[1] == '-' ? '-' : ' ';
			r += 2;
		} else if (r[1] == 'f' && r[2]) {
			r += 3;
		} else if (r[1] == '&') {
			r += 2;
		} else if (r[1] == '(' && r[2] && r[3]) {
			*w++ = r[2] == 'h' && r[3] == 'y' ? '-' : '?';
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return roff;
}

/* Every "--name" in text (not "--" alone, not "---"). */
static void scan_longs(const char *text, struct words *w)
{
	const char *at, *end;

	for (at = text; (at = strstr(at, "--")); at = end) {
		end = at + 2;
		if ((at > text && is_name_char(at[-1])) || *end < 'a' ||
		    *end > 'z')
			continue;
		while (is_name_char(*end))
			end++;
		words_add(w, at, (size_t)(end - at));
	}
}

/* Option lines of --help: "  -G, --graph-function=GLOB  ...". */
static void scan_shorts(const char *help, struct words *w)
{
	const char *line;

	const char *nl;

	for (line = help; (nl = strchr(line, '\n')); line = nl + 1)
		if (!strncmp(line, "  -", 3) && line[3] != '-' &&
		    !strncmp(line + 4, ", --", 4))
			words_add(w, line + 2, 2);
}

/* The table after "Names for -O": "  funcgraph-cpu   CPU column ...". */
static void scan_onames(const char *help, struct words *w)
{
	const char *line = strstr(help, "\nNames for -O");

	assert_non_null(line);
	for (line = strchr(line + 1, '\n') + 1;
	     !strncmp(line, "  ", 2) && line[2] >= 'a' && line[2] <= 'z';
	     line = strchr(line, '\n') + 1)
		words_add(w, line + 2, strcspn(line + 2, " \n"));
}

/* "Selection:" and co.: a title line followed by an option line. */
static void scan_groups(const char *help, struct words *w)
{
	const char *line, *nl;

	for (line = help; (nl = strchr(line, '\n')); line = nl + 1)
		if (line[0] >= 'A' && line[0] <= 'Z' && nl[-1] == ':' &&
		    !strncmp(nl + 1, "  -", 3))
			words_add(w, line, (size_t)(nl - 1 - line));
}

static int setup(void **state __maybe_unused)
{
	FILE *f = fmemopen(docs.help, sizeof(docs.help), "w");

	assert_non_null(f);
	cli__usage(f);
	assert_true(ftell(f) < (long)sizeof(docs.help) - 1);
	fclose(f);
	f = fmemopen(docs.diff_help, sizeof(docs.diff_help), "w");
	assert_non_null(f);
	diff__usage(f);
	assert_true(ftell(f) < (long)sizeof(docs.diff_help) - 1);
	fclose(f);
	docs.man = roff_plain(slurp("man/bpfgraph.1"));
	docs.compl = slurp("tools/bpfgraph.bash-completion");
	scan_longs(docs.help, &docs.longs);
	scan_longs(docs.diff_help, &docs.diff_longs);
	scan_shorts(docs.help, &docs.shorts);
	scan_onames(docs.help, &docs.onames);
	scan_groups(docs.help, &docs.groups);
	return 0;
}

static int teardown(void **state __maybe_unused)
{
	free(docs.man);
	free(docs.compl);
	words_free(&docs.longs);
	words_free(&docs.diff_longs);
	words_free(&docs.shorts);
	words_free(&docs.onames);
	words_free(&docs.groups);
	return 0;
}

static void expect_all(const struct words *w, const char *text,
		       const char *where)
{
	size_t i, missing = 0;

	for (i = 0; i < w->n; i++) {
		if (has_word(text, w->v[i]))
			continue;
		print_error("%s lacks '%s'\n", where, w->v[i]);
		missing++;
	}
	assert_int_equal(missing, 0);
}

/* The scanners found what the parser has: they cannot silently miss. */
static void test_help_scanned(void **state __maybe_unused)
{
	size_t i;

	assert_true(docs.longs.n >= 20);
	assert_true(words_has(&docs.longs, "--graph-function"));
	assert_true(words_has(&docs.longs, "--version"));
	assert_true(docs.shorts.n >= 14);
	assert_true(words_has(&docs.shorts, "-G"));
	assert_int_equal(docs.onames.n, cli__nr_trace_opts());
	for (i = 0; i < cli__nr_trace_opts(); i++)
		assert_string_equal(docs.onames.v[i], cli__trace_opt_name(i));
	assert_int_equal(docs.groups.n, 4);
}

/* Every long option scanned from --help is one getopt_long() knows. */
static void test_help_longs_parse(void **state __maybe_unused)
{
	char msg[512];
	struct bg_opts o;
	FILE *f;
	size_t i;

	for (i = 0; i < docs.longs.n; i++) {
		if (!strcmp(docs.longs.v[i], "--help") ||
		    !strcmp(docs.longs.v[i], "--version"))
			continue; /* they print on stdout */
		f = fmemopen(msg, sizeof(msg), "w");
		assert_non_null(f);
		cli__parse(&o, 4,
			   (char *[]){ "bpfgraph", "-Gf", docs.longs.v[i], "1",
				       NULL },
			   f);
		fclose(f);
		cli__free(&o);
		if (strstr(msg, "unrecognized option") ||
		    strstr(msg, "is ambiguous"))
			fail_msg("--help shows %s: %s", docs.longs.v[i], msg);
	}
}

static void test_man_options(void **state __maybe_unused)
{
	expect_all(&docs.longs, docs.man, "man/bpfgraph.1");
	expect_all(&docs.diff_longs, docs.man, "man/bpfgraph.1");
	expect_all(&docs.shorts, docs.man, "man/bpfgraph.1");
	expect_all(&docs.onames, docs.man, "man/bpfgraph.1");
}

static void test_completion_options(void **state __maybe_unused)
{
	const char *f = "tools/bpfgraph.bash-completion";

	expect_all(&docs.longs, docs.compl, f);
	expect_all(&docs.diff_longs, docs.compl, f);
	expect_all(&docs.shorts, docs.compl, f);
	expect_all(&docs.onames, docs.compl, f);
}

/* An option of "bpfgraph --help" or of "bpfgraph diff --help". */
static bool known_long(const char *word)
{
	return words_has(&docs.longs, word) || words_has(&docs.diff_longs, word);
}

/* Nor do they document options that do not exist (any more). */
static void test_no_stale_options(void **state __maybe_unused)
{
	struct words man = { 0 }, compl = { 0 };
	size_t i, stale = 0;

	scan_longs(docs.man, &man);
	scan_longs(docs.compl, &compl);
	for (i = 0; i < man.n; i++)
		if (!known_long(man.v[i]) && ++stale)
			print_error("man/bpfgraph.1: '%s' is not in --help\n",
				    man.v[i]);
	for (i = 0; i < compl.n; i++)
		if (!known_long(compl.v[i]) && ++stale)
			print_error("completion: '%s' is not in --help\n",
				    compl.v[i]);
	words_free(&man);
	words_free(&compl);
	assert_int_equal(stale, 0);
}

static void test_man_sections(void **state __maybe_unused)
{
	static const char *const sections[] = {
		".TH BPFGRAPH 1 ", "\n.SH NAME\n", "\n.SH SYNOPSIS\n",
		"\n.SH DESCRIPTION\n", "\n.SH OPTIONS\n", "\n.SH OUTPUT\n",
		"\n.SH EXIT STATUS\n", "\n.SH EXAMPLES\n", "\n.SH SEE ALSO\n",
	};
	char want[64];
	size_t i;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (!strstr(docs.man, sections[i]))
			fail_msg("man/bpfgraph.1 lacks '%s'", sections[i]);
	/* the OPTIONS groups of --help, in the same order */
	for (i = 0; i < docs.groups.n; i++) {
		snprintf(want, sizeof(want), "\n.SS %s\n", docs.groups.v[i]);
		if (!strstr(docs.man, want))
			fail_msg("man/bpfgraph.1 lacks '%s'", want + 1);
	}
}

/* The words of a shell variable: local NAME="a b c". */
static void shell_list(const char *text, const char *var, struct words *w)
{
	char key[64];
	const char *at, *end;
	size_t len;

	snprintf(key, sizeof(key), "%s=\"", var);
	at = strstr(text, key);
	if (!at)
		fail_msg("completion has no %s", key);
	at += strlen(key);
	end = strchr(at, '"');
	assert_non_null(end);
	while (at < end) {
		at += strspn(at, " \t\n");
		len = strcspn(at, " \t\n\"");
		if (len)
			words_add(w, at, len);
		at += len;
	}
}

static int parse_quiet(int argc, char **argv)
{
	FILE *null = fopen("/dev/null", "w");
	struct bg_opts o;
	int ret;

	assert_non_null(null);
	ret = cli__parse(&o, argc, argv, null);
	fclose(null);
	cli__free(&o);
	return ret;
}

/* What the completion offers for -O and --graph-opts, the parser takes. */
static void test_completion_values_parse(void **state __maybe_unused)
{
	struct words topts = { 0 }, gopts = { 0 };
	char arg[80];
	size_t i;

	shell_list(docs.compl, "trace_opts", &topts);
	assert_int_equal(topts.n, cli__nr_trace_opts());
	for (i = 0; i < topts.n; i++) {
		snprintf(arg, sizeof(arg), "-O%s,no%s", topts.v[i], topts.v[i]);
		assert_int_equal(parse_quiet(4, (char *[]){ "bpfgraph", "-Gf",
							   "--compat=6.5", arg,
							   NULL }),
				 0);
	}
	shell_list(docs.compl, "graph_opts", &gopts);
	assert_true(gopts.n >= 8);
	for (i = 0; i < gopts.n; i++) {
		snprintf(arg, sizeof(arg), "--graph-opts=%s%s", gopts.v[i],
			 strchr(gopts.v[i], '=') ? "1" : "");
		if (parse_quiet(3, (char *[]){ "bpfgraph", "-Gf", arg, NULL }))
			fail_msg("completion offers %s, the parser refuses it",
				 arg);
	}
	words_free(&topts);
	words_free(&gopts);
}

/*
 * Every --graph-opts word the parser knows (its error message lists them)
 * is in the man page and in the completion.
 */
static void test_graph_opts_documented(void **state __maybe_unused)
{
	char msg[1024] = "", *at, *end, word[32];
	FILE *f = fmemopen(msg, sizeof(msg), "w");
	size_t len, n = 0;

	assert_non_null(f);
	assert_int_equal(cli__parse(&(struct bg_opts){ 0 }, 3,
				    (char *[]){ "bpfgraph", "-Gf",
						"--graph-opts=?", NULL },
				    f),
			 -EINVAL);
	fclose(f);
	at = strstr(msg, "(valid: ");
	assert_non_null(at);
	at += 8;
	end = strchr(at, ')');
	assert_non_null(end);
	for (; at < end; at += len + strspn(at + len, ", "), n++) {
		len = strcspn(at, ",)");
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(at, "=,)"),
			 at);
		if (!has_word(docs.man, word))
			fail_msg("man/bpfgraph.1 lacks --graph-opts %s", word);
		if (!has_word(docs.compl, word))
			fail_msg("completion lacks --graph-opts %s", word);
	}
	assert_true(n >= 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_scanned),
		cmocka_unit_test(test_help_longs_parse),
		cmocka_unit_test(test_man_options),
		cmocka_unit_test(test_completion_options),
		cmocka_unit_test(test_no_stale_options),
		cmocka_unit_test(test_man_sections),
		cmocka_unit_test(test_completion_values_parse),
		cmocka_unit_test(test_graph_opts_documented),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
