// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A process that undoes a change should bpfgraph die (guard.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"

int guard__start(struct guard *g, void (*undo)(void *arg), void *arg)
{
	int p[2];
	pid_t pid;

	g->pid = 0;
	g->fd = -1;
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
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		if (dup2(p[0], 3) != 3)
			_exit(1);
		syscall(__NR_close_range, 4U, ~0U, 0U);
		/* 'a' armed, 'd' disarmed, 'k' done (bpfgraph undid it): end of file is its death */
		for (;;) {
			k = read(3, &c, 1);
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
