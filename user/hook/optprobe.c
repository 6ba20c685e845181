// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kprobe optimizer held off while kprobes are placed in a row (optprobe.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "optprobe.h"

#define OPT_SYSCTL "/proc/sys/debug/kprobes-optimization"

/* Writes "1" or "0" to the setting: 0 or -errno. Async-signal-safe. */
static int put(char v)
{
	char buf[2] = { v, '\n' };
	int fd = open(OPT_SYSCTL, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

/* The setting's first character, or 0 when it cannot be read. */
static char get(void)
{
	char c = 0;
	int fd = open(OPT_SYSCTL, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c;
}

/*
 * A process that sets optimization back on should bpfgraph die holding it
 * off: it reads a pipe only bpfgraph writes to and takes an end of file
 * without a word first for bpfgraph's death (as the ftrace net's guard,
 * ftnet.c). System calls only after the fork.
 */
static int guard_start(struct optprobe_hold *h)
{
	int p[2];
	pid_t pid;

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
		char c;
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
		do
			k = read(3, &c, 1);
		while (k < 0 && errno == EINTR);
		if (k <= 0)
			put('1');
		_exit(0);
	}
	close(p[0]);
	h->guard = pid;
	h->guard_fd = p[1];
	return 0;
}

static void guard_stop(struct optprobe_hold *h)
{
	if (h->guard <= 0)
		return;
	if (write(h->guard_fd, "k", 1) != 1)
		kill(h->guard, SIGKILL);
	close(h->guard_fd);
	waitpid(h->guard, NULL, 0);
	h->guard = 0;
	h->guard_fd = -1;
}

int optprobe__hold(struct optprobe_hold *h)
{
	int err;

	*h = (struct optprobe_hold){ .guard_fd = -1 };
	if (get() != '1')
		return -ENOENT;
	/* Before the setting changes: from here on it is put back whatever happens. */
	err = guard_start(h);
	if (err)
		return err;
	err = put('0');
	if (err) {
		guard_stop(h);
		return err;
	}
	h->held = true;
	return 0;
}

void optprobe__release(struct optprobe_hold *h)
{
	if (!h->held)
		return;
	h->held = false;
	/* Not put back: the guard, left without a word, tries once more. */
	if (put('1') && h->guard > 0) {
		close(h->guard_fd);
		waitpid(h->guard, NULL, 0);
		h->guard = 0;
		return;
	}
	guard_stop(h);
}
