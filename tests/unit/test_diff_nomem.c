// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff when memory runs out: each allocation of a run made to
 * fail in turn, the command must exit 1 with one message, and the object
 * must lose no block. A binary of its own, as it replaces malloc.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli.h"
#include "diff.h"

static const char graph_a[] = " 0)               |  do_sys_openat2() {\n"
			      " 0)   1.000 us    |    getname();\n"
			      " 0)               |    do_filp_open() {\n"
			      " 0)   4.000 us    |      path_openat();\n"
			      " 0)   5.000 us    |    }\n"
			      " 0) + 12.000 us   |  }\n";

/* graph_a plus kfree() in do_filp_open() */
static const char graph_b[] = " 0)               |  do_sys_openat2() {\n"
			      " 0)   1.000 us    |    getname();\n"
			      " 0)               |    do_filp_open() {\n"
			      " 0)   4.000 us    |      path_openat();\n"
			      " 0)   0.500 us    |      kfree();\n"
			      " 0)   5.000 us    |    }\n"
			      " 0) + 12.000 us   |  }\n";

/*
 * The test binary's malloc family replaces libc's (glibc allows it, and
 * its own allocations go through it too): when armed, the allocation
 * fail_at calls later fails, once, as if memory ran out there. live
 * counts the blocks handed out and not yet freed, so that a failure path
 * which loses a block shows. Sanitizer builds keep their own allocator
 * and skip the tests that need this.
 */
#if defined(__SANITIZE_ADDRESS__)
#define NOMEM_INJECT 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NOMEM_INJECT 0
#endif
#endif
#ifndef NOMEM_INJECT
#define NOMEM_INJECT 1
#endif

static long fail_at = -1; /* allocations left before the one that fails; -1 = off */
static bool failed; /* the armed failure happened */
static long live; /* blocks allocated and not freed */

#if NOMEM_INJECT
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);

static bool fail_now(void)
{
	if (fail_at < 0 || fail_at-- > 0)
		return false;
	failed = true;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t size)
{
	void *p = fail_now() ? NULL : __libc_malloc(size);

	live += p != NULL;
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = fail_now() ? NULL : __libc_calloc(n, size);

	live += p != NULL;
	return p;
}

void *realloc(void *old, size_t size)
{
	void *p;

	if (fail_now())
		return NULL;
	p = __libc_realloc(old, size);
	/* a new block, or (size 0) the old one freed */
	live += (!old && p) - (old && !size && !p);
	return p;
}

void free(void *p)
{
	live -= p != NULL;
	__libc_free(p);
}
#endif

/* First in a test that needs failures injected. */
static void nomem_need(void)
{
	if (!NOMEM_INJECT)
		skip();
}

static void nomem_arm(long n)
{
	failed = false;
	fail_at = n;
}

/* Whether the armed allocation failed. */
static bool nomem_disarm(void)
{
	fail_at = -1;
	return failed;
}

/* --- the command, memory failing at one allocation ---------------------- */

struct run {
	int status;
	char out[8192], err[4096];
};

static void slurp_fd(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

/*
 * cmd_diff() with stdout and stderr caught and allocation n of its own
 * failing; returns whether it came to that one.
 */
static bool run_diff(struct run *r, long n, int argc, char **argv)
{
	char tout[] = "/tmp/bg-diff-out-XXXXXX", terr[] = "/tmp/bg-diff-err-XXXXXX";
	int fo = mkstemp(tout), fe = mkstemp(terr), so, se;
	bool hit;

	assert_true(fo >= 0 && fe >= 0);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	nomem_arm(n);
	r->status = cmd_diff(argc, argv);
	hit = nomem_disarm();
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
	return hit;
}

/* A temporary file holding text; the caller unlinks and frees the path. */
static char *temp_text(const char *text)
{
	char *path = strdup("/tmp/bg-diff-text-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Memory running out anywhere in the command: exit 1 and one message. */
static void test_cmd_nomem(void **state)
{
	char *a, *b;
	struct run r;

	nomem_need();
	a = temp_text(graph_a);
	b = temp_text(graph_b);
	for (long n = 0;; n++) {
		if (!run_diff(&r, n, 4, (char *[]){ "diff", "-q", a, b, NULL }))
			break;
		if (r.status == BG_EXIT_OK) {
			/* a failure that costs nothing (a stdio buffer) */
			assert_string_equal(r.err, "");
			continue;
		}
		assert_int_equal(r.status, BG_EXIT_FAILURE);
		if (count_lines(r.err) != 1)
			fail_msg("allocation %ld failed, %zu messages:\n%s", n, count_lines(r.err),
				 r.err);
	}
	assert_int_equal(r.status, BG_EXIT_OK);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/* The list of --ignore globs could not grow: say so. */
static void test_cmd_nomem_ignore(void **state)
{
	char *argv[] = { "diff", "--ignore=irq_*", "a.txt", "b.txt", NULL };
	struct run r;

	nomem_need();
	assert_true(run_diff(&r, 0, 4, argv));
	assert_int_equal(r.status, BG_EXIT_FAILURE);
	assert_string_equal(r.err, "bpfgraph diff: failed to add --ignore 'irq_*': "
				   "Cannot allocate memory\n");
}

/* A failed allocation while names are learnt loses no block. */
static void test_names_nomem(void **state)
{
	struct functab ft = {}; /* no names: "func#N" */
	struct diff_opts o = { .max_lines = 20 };
	bool hit;

	nomem_need();
	for (long n = 0;; n++) {
		long before = live;
		struct diff *d;
		int err = 0;

		nomem_arm(n);
		d = diff__new(&o);
		for (uint32_t i = 0; d && !err && i < 40; i++) {
			struct gev ev = { .type = GEV_LEAF, .func = i, .depth = 0, .dur = 1000 };

			err = diff__feed(d, DIFF_A, &ev, &ft, i + 1);
		}
		diff__free(d);
		hit = nomem_disarm();
		if (live != before)
			fail_msg("allocation %ld failed: %ld blocks lost", n, live - before);
		if (!hit)
			break;
		assert_true(!d || err == -ENOMEM);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd_nomem),
		cmocka_unit_test(test_cmd_nomem_ignore),
		cmocka_unit_test(test_names_nomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
