// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A process that undoes a change should bpfgraph die (guard.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"

/* Closes every descriptor from 3 on but a and b (each -1 or 3 and above). */
static void close_others(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, from = 3;

	if (lo >= 0) {
		if (lo > from)
			syscall(__NR_close_range, (unsigned int)from, (unsigned int)lo - 1, 0U);
		from = lo + 1;
	}
	if (hi >= 0 && hi != lo) {
		if (hi > from)
			syscall(__NR_close_range, (unsigned int)from, (unsigned int)hi - 1, 0U);
		from = hi + 1;
	}
	syscall(__NR_close_range, (unsigned int)from, ~0U, 0U);
}

int guard__start(struct guard *g, void (*undo)(void *arg), void *arg, int keep)
{
	int p[2];
	pid_t pid;

	g->pid = 0;
	g->fd = -1;
	if (keep >= 0 && keep < 3)
		return -EINVAL;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (!pid) {
		bool armed = true;
		char c = 0;
		ssize_t k;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC), rd = p[0];

		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		/* Out of the way of the standard descriptors, which /dev/null replaces. */
		if (rd < 3 && (rd = fcntl(rd, F_DUPFD, 3)) < 0)
			_exit(1);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			if (fd != null)
				dup2(null, fd);
		close_others(rd, keep);
		/* 'a' armed, 'd' disarmed, 'k' done (bpfgraph undid it): end of file is its death */
		for (;;) {
			k = read(rd, &c, 1);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0 || c == 'k')
				break;
			armed = c == 'a' ? true : c == 'd' ? false : armed;
		}
		if (k <= 0 && armed)
			undo(arg);
		_exit(0);
	}
	close(p[0]);
	g->pid = pid;
	g->fd = p[1];
	return 0;
}

int guard__arm(struct guard *g, bool armed)
{
	if (g->pid <= 0)
		return -ESRCH;
	return write(g->fd, armed ? "a" : "d", 1) == 1 ? 0 : -errno;
}

void guard__stop(struct guard *g, bool done)
{
	if (g->pid <= 0)
		return;
	if (done && write(g->fd, "k", 1) != 1)
		kill(g->pid, SIGKILL);
	close(g->fd);
	waitpid(g->pid, NULL, 0);
	g->pid = 0;
	g->fd = -1;
}
