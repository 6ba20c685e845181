// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kprobe optimizer held off while kprobes are placed in a row (optprobe.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "guard.h"
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

/* The guard's undo (guard.h). */
static void guard_put_back(void *arg)
{
	(void)arg;
	put('1');
}

int optprobe__hold(struct optprobe_hold *h)
{
	int err;

	h->held = false;
	if (get() != '1')
		return -ENOENT;
	/* Before the setting changes: from here on it is put back whatever happens. */
	err = guard__start(&h->guard, guard_put_back, NULL);
	if (err)
		return err;
	err = put('0');
	if (err) {
		guard__stop(&h->guard, true);
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
	guard__stop(&h->guard, !put('1'));
}
