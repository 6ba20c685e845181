// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The guard process (user/hook/guard.h): it undoes the change when its
 * pipe ends without a word (bpfgraph's death) only while armed, and not
 * after bpfgraph said it undid the change itself; it keeps the one
 * descriptor it is asked to keep at its number, and no other.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
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
	assert_int_equal(guard__start(&g, undo_mark, mark, -1), 0);
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
	assert_int_equal(guard__start(&g, undo_mark, mark, -1), 0);
	guard__stop(&g, true);
	assert_int_equal(access(mark, F_OK), -1);
	/* Stopped: nothing left to arm. */
	assert_int_not_equal(guard__arm(&g, true), 0);
}

/*
 * The kept descriptor (a directory here, bpfgraph's tracefs mount in use)
 * at its own number: a path through /proc/self/fd reaches it in the
 * guard. Without keeping it, the same path leads nowhere there.
 */
static char via[96];

static void undo_via(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
}

static bool undone_through(bool keep)
{
	char dir[] = "/tmp/bg_guard_dir_XXXXXX", file[160];
	struct guard g;
	int dfd, spare;
	bool made;

	assert_non_null(mkdtemp(dir));
	/* Not the lowest free number: the guard's pipe may not take its place. */
	spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(spare >= 0 && dfd >= 3);
	close(spare);
	snprintf(via, sizeof(via), "/proc/self/fd/%d/undone", dfd);
	snprintf(file, sizeof(file), "%s/undone", dir);
	assert_int_equal(guard__start(&g, undo_via, via, keep ? dfd : -1), 0);
	guard__stop(&g, false);
	made = access(file, F_OK) == 0;
	unlink(file);
	close(dfd);
	rmdir(dir);
	return made;
}

static void test_guard_keeps_one(void **state)
{
	struct guard g;

	(void)state;
	assert_true(undone_through(true));
	assert_false(undone_through(false));
	/* The standard descriptors are /dev/null in the guard: not kept as they are. */
	assert_int_equal(guard__start(&g, undo_mark, mark, 2), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_armed_from_start),
		cmocka_unit_test(test_guard_disarmed),
		cmocka_unit_test(test_guard_done),
		cmocka_unit_test(test_guard_keeps_one),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
