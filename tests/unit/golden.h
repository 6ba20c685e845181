/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Golden files for cmocka tests: exact byte comparison of produced text
 * with tests/golden/<rel>, a line diff on stderr when they differ.
 * BG_UPDATE_GOLDEN=1 rewrites the file instead (review the result before
 * it is committed: the golden files are the specification).
 */
#ifndef BG_TEST_GOLDEN_H
#define BG_TEST_GOLDEN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#ifndef BG_SRCDIR
#error "BG_SRCDIR (the repository root) must be defined"
#endif

#define GOLDEN_CONTEXT 3
#define GOLDEN_MAX_DIFF_LINES 60

static inline char *golden_path(const char *rel)
{
	char *p = NULL;

	if (asprintf(&p, "%s/tests/golden/%s", BG_SRCDIR, rel) < 0)
		return NULL;
	return p;
}

/* Whole file, NUL-terminated; NULL if it cannot be read. */
static inline char *golden_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

struct golden_lines {
	const char **s;
	size_t *len;
	size_t n;
	bool last_nonl; /* the text does not end with '\n' */
};

/* Splits text into lines, without their '\n'. */
static inline void golden_split(const char *t, size_t tlen, struct golden_lines *l)
{
	size_t cap = 16;

	l->n = 0;
	l->last_nonl = tlen && t[tlen - 1] != '\n';
	l->s = malloc(cap * sizeof(*l->s));
	l->len = malloc(cap * sizeof(*l->len));
	for (size_t i = 0; i < tlen;) {
		const char *nl = memchr(t + i, '\n', tlen - i);
		size_t e = nl ? (size_t)(nl - t) : tlen;

		if (l->n == cap) {
			cap *= 2;
			l->s = realloc(l->s, cap * sizeof(*l->s));
			l->len = realloc(l->len, cap * sizeof(*l->len));
		}
		l->s[l->n] = t + i;
		l->len[l->n] = e - i;
		l->n++;
		i = e + 1;
	}
}

static inline bool golden_line_eq(const struct golden_lines *a, size_t i,
				  const struct golden_lines *b, size_t j)
{
	bool anl = a->last_nonl && i == a->n - 1, bnl = b->last_nonl && j == b->n - 1;

	return anl == bnl && a->len[i] == b->len[j] && !memcmp(a->s[i], b->s[j], a->len[i]);
}

/* One diff line; '$' marks the end so trailing spaces can be seen. */
static inline void golden_print_line(char tag, const struct golden_lines *l, size_t i)
{
	fprintf(stderr, "%c|", tag);
	for (size_t k = 0; k < l->len[i]; k++) {
		unsigned char c = (unsigned char)l->s[i][k];

		if (c == '\t')
			fputs("\\t", stderr);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputs(l->last_nonl && i == l->n - 1 ? "$ (no newline at end)\n" : "$\n", stderr);
}

/*
 * Longest-common-subsequence line diff (the golden files are small), shown
 * as hunks with GOLDEN_CONTEXT lines around each change.
 */
static inline void golden_diff(const struct golden_lines *a, const struct golden_lines *b)
{
	size_t n = a->n, m = b->n, i = 0, j = 0, shown = 0;
	uint32_t *t = calloc((n + 1) * (m + 1), sizeof(*t));
	char *ops = malloc(n + m + 1);
	size_t nops = 0;

#define T(x, y) t[(x) * (m + 1) + (y)]
	for (size_t x = n; x-- > 0;)
		for (size_t y = m; y-- > 0;)
			T(x, y) = golden_line_eq(a, x, b, y) ? T(x + 1, y + 1) + 1 :
			    T(x + 1, y) > T(x, y + 1) ? T(x + 1, y) : T(x, y + 1);
	while (i < n || j < m) {
		if (i < n && j < m && golden_line_eq(a, i, b, j)) {
			ops[nops++] = '=';
			i++, j++;
		} else if (j < m && (i == n || T(i, j + 1) >= T(i + 1, j))) {
			ops[nops++] = '+';
			j++;
		} else {
			ops[nops++] = '-';
			i++;
		}
	}
#undef T
	fputs("--- expected (golden)\n+++ actual\n", stderr);
	i = j = 0;
	for (size_t k = 0; k < nops && shown < GOLDEN_MAX_DIFF_LINES; k++) {
		bool near = false;

		for (size_t d = (k > GOLDEN_CONTEXT ? k - GOLDEN_CONTEXT : 0);
		     d < nops && d <= k + GOLDEN_CONTEXT; d++)
			near |= ops[d] != '=';
		if (near) {
			if (ops[k] == '+')
				golden_print_line('+', b, j);
			else
				golden_print_line(ops[k] == '-' ? '-' : ' ', a, i);
			shown++;
		}
		if (ops[k] != '+')
			i++;
		if (ops[k] != '-')
			j++;
	}
	if (shown >= GOLDEN_MAX_DIFF_LINES)
		fputs("... (diff cut)\n", stderr);
	free(t);
	free(ops);
}

/* Fails the running test unless text is exactly tests/golden/<rel>. */
static inline void golden_check(const char *rel, const char *text, size_t len)
{
	char *path = golden_path(rel);
	size_t glen = 0;
	char *g;
	struct golden_lines a, b;

	assert_non_null(path);
	if (getenv("BG_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(text, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
		fprintf(stderr, "golden: rewrote %s\n", path);
		free(path);
		return;
	}
	g = golden_slurp(path, &glen);
	if (!g) {
		fprintf(stderr, "golden: cannot read %s (BG_UPDATE_GOLDEN=1 creates it)\n", path);
		free(path);
		fail();
	}
	if (glen == len && !memcmp(g, text, len)) {
		free(g);
		free(path);
		return;
	}
	fprintf(stderr, "golden: %s differs (%zu bytes expected, %zu produced)\n", path, glen,
		len);
	golden_split(g, glen, &a);
	golden_split(text, len, &b);
	golden_diff(&a, &b);
	free(a.s);
	free(a.len);
	free(b.s);
	free(b.len);
	free(g);
	free(path);
	fail();
}

#endif
