// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kprobe optimizer held off while kprobes are placed in a row (optprobe.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "guard.h"
#include "optprobe.h"

#define OPT_SYSCTL "/proc/sys/debug/kprobes-optimization"

/* The process's hold: its holders, whether it turned the setting off, its guard. */
static struct {
	pthread_mutex_t mu;
	unsigned int holders;
	bool off; /* the setting was 1 and this process made it 0 */
	bool forbidden; /* optprobe__forbid() */
	struct guard guard; /* pid 0 until the first hold */
} opt = { .mu = PTHREAD_MUTEX_INITIALIZER };

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

/* Turns it off for the first holder: 0 or -errno. Under opt.mu. */
static int turn_off(void)
{
	int err;

	/* Left off by a release that could not put it back: still ours. */
	if (opt.off)
		return 0;
	if (opt.forbidden)
		return -EPERM;
	if (get() != '1')
		return -ENOENT;
	/* Armed before the setting changes: from here on it is put back whatever happens. */
	if (!opt.guard.pid)
		err = guard__start(&opt.guard, guard_put_back, NULL, -1);
	else
		err = guard__arm(&opt.guard, true);
	if (err)
		return err;
	err = put('0');
	if (err) {
		guard__arm(&opt.guard, false);
		return err;
	}
	opt.off = true;
	return 0;
}

int optprobe__hold(struct optprobe_hold *h)
{
	int err = 0;

	h->held = false;
	pthread_mutex_lock(&opt.mu);
	if (!opt.holders)
		err = turn_off();
	if (!err) {
		opt.holders++;
		h->held = true;
	}
	pthread_mutex_unlock(&opt.mu);
	return err;
}

void optprobe__release(struct optprobe_hold *h)
{
	if (!h->held)
		return;
	h->held = false;
	pthread_mutex_lock(&opt.mu);
	/* Not put back: the guard stays armed and tries once more at the end. */
	if (!--opt.holders && opt.off && !put('1')) {
		opt.off = false;
		guard__arm(&opt.guard, false);
	}
	pthread_mutex_unlock(&opt.mu);
}

void optprobe__forbid(void)
{
	pthread_mutex_lock(&opt.mu);
	opt.forbidden = true;
	pthread_mutex_unlock(&opt.mu);
}

const char *optprobe__text(int err)
{
	if (!err)
		return "held off, then back on";
	if (err == -ENOENT)
		return "off or unknown";
	if (err == -EPERM)
		return "left alone as asked";
	return "left on: cannot change it";
}

void optprobe__end(void)
{
	pthread_mutex_lock(&opt.mu);
	if (opt.off && !opt.holders && !put('1'))
		opt.off = false;
	/* Still off (a holder left, or put back failed): the guard tries. */
	guard__stop(&opt.guard, !opt.off);
	pthread_mutex_unlock(&opt.mu);
}
