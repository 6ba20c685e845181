// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* RCU's grace periods let end before the command's first call: see settle.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "settle.h"

/* How often the thread's count is read while waiting. */
#define SETTLE_POLL_MS 2

/* A small file into buf (NUL-terminated): its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

long long settle__runs(const char *schedstat)
{
	unsigned long long run, wait, runs;

	if (!schedstat || sscanf(schedstat, "%llu %llu %llu", &run, &wait, &runs) != 3)
		return -1;
	return (long long)runs;
}

/* Whether /proc/PID/stat is a child of kthreadd named rcu_preempt or rcu_sched. */
static bool is_rcu_thread(const char *proc, const char *pid)
{
	char path[256], buf[512];
	const char *lp, *rp;
	size_t len;
	int ppid;

	snprintf(path, sizeof(path), "%s/%s/stat", proc, pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return false;
	len = (size_t)(rp - lp - 1);
	if (!(len == 11 && !memcmp(lp + 1, "rcu_preempt", 11)) &&
	    !(len == 9 && !memcmp(lp + 1, "rcu_sched", 9)))
		return false;
	return sscanf(rp + 1, " %*c %d", &ppid) == 1 && ppid == 2;
}

pid_t settle__rcu_thread(const char *proc)
{
	char num[16];
	DIR *d;
	struct dirent *e;
	pid_t found = -ENOENT;

	/* Made at boot: among the first pids, looked at before the rest. */
	for (int pid = 3; pid < 64; pid++) {
		snprintf(num, sizeof(num), "%d", pid);
		if (is_rcu_thread(proc, num))
			return pid;
	}
	d = opendir(proc);
	if (!d)
		return -ENOENT;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end || pid < 64)
			continue;
		if (is_rcu_thread(proc, e->d_name)) {
			found = (pid_t)pid;
			break;
		}
	}
	closedir(d);
	return found;
}

int settle__rcu(const char *proc, unsigned int quiet_ms, unsigned int max_ms,
		struct settle_stats *st)
{
	uint64_t t0 = mono_ns(), last, now;
	char path[256], buf[128];
	long long runs, seen;
	pid_t pid = settle__rcu_thread(proc);

	memset(st, 0, sizeof(*st));
	if (pid < 0)
		return pid;
	snprintf(path, sizeof(path), "%s/%d/schedstat", proc, (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || (seen = settle__runs(buf)) < 0)
		return -ENOENT;
	st->found = true;
	last = t0;
	for (;;) {
		struct timespec nap = { 0, SETTLE_POLL_MS * 1000000L };

		nanosleep(&nap, NULL);
		now = mono_ns();
		if (read_small(path, buf, sizeof(buf)) <= 0 || (runs = settle__runs(buf)) < 0)
			break; /* gone: nothing to wait for */
		if (runs != seen) {
			st->runs += (unsigned int)(runs - seen);
			seen = runs;
			last = now;
		}
		if (now - last >= (uint64_t)quiet_ms * 1000000ULL) {
			st->quiet = true;
			break;
		}
		if (now - t0 >= (uint64_t)max_ms * 1000000ULL)
			break;
	}
	st->waited_s = (mono_ns() - t0) / 1e9;
	return 0;
}
