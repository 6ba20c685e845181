// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The guard process (user/hook/guard.h): it undoes the change when its
 * pipe ends without a word (bpfgraph's death) only while armed, and not
 * after bpfgraph said it undid the change itself.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "guard.h"

static char mark[64];

/* The undo: leaves a file behind (async-signal-safe, as guard.h asks). */
static void undo_mark(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(mark, sizeof(mark), "/tmp/bg_guard_XXXXXX");
	fd = mkstemp(mark);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(mark);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(mark);
	return 0;
}

/* guard__stop(g, false) closes the pipe without a word, as bpfgraph's death does. */
static bool undone_after(const char *arms)
{
	struct guard g;

	unlink(mark);
	assert_int_equal(guard__start(&g, undo_mark, mark), 0);
	for (const char *a = arms; *a; a++)
		assert_int_equal(guard__arm(&g, *a == '1'), 0);
	guard__stop(&g, false);
	return access(mark, F_OK) == 0;
}

static void test_guard_armed_from_start(void **state)
{
	(void)state;
	assert_true(undone_after(""));
}

static void test_guard_disarmed(void **state)
{
	(void)state;
	assert_false(undone_after("0"));
	assert_true(undone_after("01"));
	assert_false(undone_after("010"));
	assert_true(undone_after("0101"));
}

static void test_guard_done(void **state)
{
	struct guard g;

	(void)state;
	unlink(mark);
	assert_int_equal(guard__start(&g, undo_mark, mark), 0);
	guard__stop(&g, true);
	assert_int_equal(access(mark, F_OK), -1);
	/* Stopped: nothing left to arm. */
	assert_int_not_equal(guard__arm(&g, true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_armed_from_start),
		cmocka_unit_test(test_guard_disarmed),
		cmocka_unit_test(test_guard_done),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
