// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hooks released by a child process: see handoff.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "handoff.h"
#include "stop.h"

/* Every descriptor above 2 (async-signal-safe: one system call). */
static void close_above_stdio(void)
{
	if (close_range(3, ~0U, 0)) {
		/* Only before Linux 5.9, which cannot run bpfgraph anyway. */
		for (int fd = 3; fd < 65536; fd++)
			close(fd);
	}
}

/*
 * Every descriptor above 2 becomes /dev/null: the file it held is closed
 * here (the child still holds it), and code that later closes or uses one
 * of the old numbers meets /dev/null, never a hook or a file opened since.
 */
static void blank_above_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	DIR *d = null >= 0 ? opendir("/proc/self/fd") : NULL;
	struct dirent *e;

	if (!d) {
		if (null >= 0)
			close(null);
		close_above_stdio();
		return;
	}
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd > STDERR_FILENO && fd != null && fd != dirfd(d))
			dup2(null, fd);
	}
	closedir(d);
	close(null);
}

/* Blocks until the other end of the pipe is closed everywhere. */
static void wait_eof(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 1: the child is gone; 0: still at work wait_s after t0, or a stop signal. */
static int wait_child(pid_t child, double t0, double wait_s)
{
	struct timespec nap = { 0, 10 * 1000 * 1000L };

	for (;;) {
		pid_t r = waitpid(child, NULL, WNOHANG);

		if (r == child || (r < 0 && errno == ECHILD))
			return 1;
		if ((wait_s >= 0 && now_s() - t0 >= wait_s) || stop__signal())
			return 0;
		nanosleep(&nap, NULL);
	}
}

static void child_side(int rd, void (*release)(void *ctx), void *ctx)
{
	int null = open("/dev/null", O_RDWR);

	wait_eof(rd);
	/*
	 * Nothing of it may keep a pipe of the caller's open (a reader
	 * would wait for its end), nor be stopped by the terminal's keys.
	 */
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	setsid();
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	release(ctx);
	_exit(0);
}

int handoff__release(void (*release)(void *ctx), void *ctx, double wait_s, pid_t *pid,
		     double *spawn_s)
{
	double t0 = now_s();
	pid_t child;
	int p[2], err;

	if (pipe(p))
		return -errno;
	/* What stdio holds would be written twice, once by each process. */
	fflush(NULL);
	child = fork();
	if (child < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (child == 0) {
		close(p[1]);
		child_side(p[0], release, ctx);
	}
	/* The pipe's ends too: the child goes on once they are closed. */
	blank_above_stdio();
	*pid = child;
	if (spawn_s)
		*spawn_s = now_s() - t0;
	return wait_child(child, t0, wait_s);
}

void handoff__at_exit(void)
{
	int p[2];
	long child;

	if (pipe(p))
		return;
	/* Not fork(): its handlers take locks the interrupted code may hold. */
	child = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (child < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (child == 0) {
		close(p[1]);
		close(STDIN_FILENO);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		setsid();
		wait_eof(p[0]);
		_exit(0);
	}
	close_above_stdio();
}
