// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The release process (user/common/handoff.h) on the host: a later trace
 * waits for a process still releasing an earlier one's hooks, and for one
 * with only kprobes left only when asked to (the wide net); the release
 * leaves every descriptor above 2 on /dev/null and ends, perf events
 * (closed last) included.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "handoff.h"

/* A child named comm until killed; its pid once the name is set. */
static pid_t named_child(const char *comm)
{
	int p[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, (unsigned long)comm, 0UL, 0UL, 0UL);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* What handoff__wait_others printed, and the seconds it waited. */
static double wait_others(bool kprobes, char **said)
{
	size_t len = 0;
	FILE *f = open_memstream(said, &len);
	double t;

	assert_non_null(f);
	t = handoff__wait_others(0.6, f, kprobes);
	fclose(f);
	return t;
}

static void test_wait_others_names(void **state)
{
	char *said = NULL;
	pid_t pid;
	double t;

	(void)state;
	/* None at all: no wait (another bpfgraph's on this machine would void the test). */
	t = wait_others(true, &said);
	if (t > 0.1) {
		free(said);
		skip();
	}
	free(said);

	/* Only kprobes left: the ftrace net goes on at once, the wide net waits. */
	pid = named_child("bpfgraph-freep");
	t = wait_others(false, &said);
	assert_true(t < 0.3);
	assert_string_equal(said, "");
	free(said);
	t = wait_others(true, &said);
	assert_true(t >= 0.6);
	assert_non_null(strstr(said, "waiting for process"));
	assert_non_null(strstr(said, "still releasing an earlier trace's hooks"));
	free(said);
	end_child(pid);

	/* Links or trampolines left: both wait. */
	pid = named_child("bpfgraph-free");
	t = wait_others(false, &said);
	assert_true(t >= 0.6);
	free(said);
	end_child(pid);

	/* A name that only begins the same: not a releaser. */
	pid = named_child("bpfgraph-freer");
	t = wait_others(true, &said);
	assert_true(t < 0.3);
	free(said);
	end_child(pid);
}

static bool is_dev_null(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

/* Last in this file: every descriptor above 2 of this process goes to /dev/null. */
static void test_release_closes_all(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_DUMMY, .disabled = 0 };
	int p[2], zero, perf;
	double spawn_s = -1;
	pid_t pid = 0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	zero = open("/dev/zero", O_RDONLY);
	assert_true(zero > 2);
	/* A perf event where the host allows one (perf_event_paranoid). */
	perf = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	assert_int_equal(handoff__release(10.0, &pid, &spawn_s), 1);
	assert_true(spawn_s >= 0);
	assert_true(is_dev_null(p[0]) && is_dev_null(p[1]) && is_dev_null(zero));
	if (perf >= 0)
		assert_true(is_dev_null(perf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_others_names),
		cmocka_unit_test(test_release_closes_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
