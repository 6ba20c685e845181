// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hooks released by a child process: see handoff.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "handoff.h"
#include "stop.h"

/*
 * The name a releasing child takes, by which a later bpfgraph finds it
 * (handoff__wait_others). A system call that cannot fail on a constant
 * string: the child's errno, shared with this process, stays untouched.
 */
#define HANDOFF_COMM "bpfgraph-free"
/*
 * Its name once only perf events are left, kprobes with no program and
 * disabled: a later trace behind the ftrace net need not wait for those
 * (see releaser_main and handoff__wait_others).
 */
#define HANDOFF_COMM_PERF "bpfgraph-freep"

static void name_releaser(void)
{
	prctl(PR_SET_NAME, (unsigned long)HANDOFF_COMM, 0UL, 0UL, 0UL);
}

/*
 * Every descriptor above 2 but keep (-1: none), async-signal-safe (system
 * calls only). A caller that keeps one closes it last (blank_above_stdio).
 */
static void close_above_stdio_but(int keep)
{
	const unsigned int first = STDERR_FILENO + 1;
	int err;

	if (keep < (int)first)
		err = close_range(first, ~0U, 0);
	else
		err = (keep > (int)first && close_range(first, keep - 1, 0)) ||
		      close_range(keep + 1, ~0U, 0);
	if (!err)
		return;
	/* Only before Linux 5.9, which cannot run bpfgraph anyway. */
	for (int fd = first; fd < 65536; fd++)
		if (fd != keep)
			close(fd);
}

/*
 * Every descriptor above 2 becomes /dev/null: the file it held is closed
 * here (the child still holds it), and code that later closes or uses one
 * of the old numbers meets /dev/null, never a hook or a file opened since.
 * The descriptor last (a pipe's write end) goes after all the others:
 * the child waits for it, and a hook whose copy the child closed before
 * this process had closed its own would be released here, its grace
 * periods waited for by the user (pipe() takes the lowest free numbers,
 * not the highest).
 */
static void blank_above_stdio(int last)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	DIR *d = null >= 0 ? opendir("/proc/self/fd") : NULL;
	struct dirent *e;

	if (!d) {
		if (null >= 0)
			close(null);
		close_above_stdio_but(last);
		close(last);
		return;
	}
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd > STDERR_FILENO && fd != null && fd != dirfd(d) && fd != last)
			dup2(null, fd);
	}
	closedir(d);
	dup2(null, last);
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

/*
 * The releasing child shares this process's memory (clone(CLONE_VM)):
 * a fork would copy the page tables, every kernel function it calls
 * slowed tens of times while the wide net still hooks them. It runs on a
 * stack of its own, makes system calls only (no allocation, no lock of
 * the C library: this process goes on and exits meanwhile), and reads
 * its descriptors from static storage (this process's stack is gone by
 * then). Its descriptor table is its own copy: closing it releases every
 * hook (the programs record nothing by then, so the order does not
 * matter).
 */
#define RELEASER_STACK (64 * 1024)

#define RELEASER_MAX_FD 65536

static struct {
	int rd, wr; /* the pipe: the child goes on at its end */
	int next; /* the next descriptor a closer takes (atomic) */
	int last; /* the highest descriptor */
	int phase; /* 1: all but perf events (those disabled), 2: perf events */
	/* perf event descriptors (kprobes), bit per descriptor below RELEASER_MAX_FD */
	uint64_t perf[RELEASER_MAX_FD / 64];
} rel;

static bool perf_fd(int fd)
{
	return fd < RELEASER_MAX_FD && (rel.perf[fd / 64] >> (fd % 64) & 1);
}

/*
 * Closers at once, sharing the child's descriptor table: on kernels that
 * serialise each hook's release on a grace period, closing them one by
 * one took several times longer (links.c's closers).
 */
#define RELEASER_CLOSERS 16

/*
 * close_range() of one descriptor: it does not fail on a number that is
 * not open, so errno (this process's, the one thread's storage it shares)
 * is never written.
 */
static int closer_main(void *arg)
{
	int fd;

	(void)arg;
	while ((fd = __atomic_fetch_add(&rel.next, 1, __ATOMIC_RELAXED)) <= rel.last) {
		if (rel.phase == 1 && perf_fd(fd))
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		else if (rel.phase == 2 || !perf_fd(fd))
			close_range((unsigned int)fd, (unsigned int)fd, 0);
	}
	return 0;
}

/*
 * The highest open descriptor, and which are perf events (before the
 * child is made: this allocates).
 */
static int last_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int last = 0;

	memset(rel.perf, 0, sizeof(rel.perf));
	while (d && (e = readdir(d))) {
		int fd = atoi(e->d_name);
		char link[64];
		ssize_t n;

		if (fd == dirfd(d))
			continue;
		if (fd > last)
			last = fd;
		n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n > 0 && fd < RELEASER_MAX_FD) {
			link[n] = 0;
			if (!strcmp(link, "anon_inode:[perf_event]"))
				rel.perf[fd / 64] |= 1ULL << (fd % 64);
		}
	}
	if (d)
		closedir(d);
	return last;
}

/* Up to RELEASER_CLOSERS processes at once over the descriptors above 2, in phase. */
static void close_all_at_once(int phase)
{
	int n = 0;

	rel.phase = phase;
	rel.next = STDERR_FILENO + 1;
	for (int i = 0; i < RELEASER_CLOSERS; i++) {
		void *st = mmap(NULL, RELEASER_STACK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (st == MAP_FAILED ||
		    clone(closer_main, (char *)st + RELEASER_STACK,
			  CLONE_VM | CLONE_FILES | SIGCHLD, NULL) < 0)
			break;
		n++;
	}
	closer_main(NULL);
	while (n > 0 && (wait(NULL) > 0 || errno == EINTR))
		n--;
	if (phase == 2)
		close_above_stdio_but(-1);
}

static int releaser_main(void *arg)
{
	int null = open("/dev/null", O_RDWR);

	(void)arg;
	name_releaser();
	close(rel.wr);
	/*
	 * Nothing of it may keep a pipe of the caller's open (a reader
	 * would wait for its end), nor be stopped by the terminal's keys.
	 * Its signal handlers are a copy: resetting them leaves this
	 * process's alone.
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
	wait_eof(rel.rd);
	/*
	 * Links, trampolines and programs first; the kprobes (perf events)
	 * are disabled, their programs gone with their links. Then the name
	 * says that what is left runs no program and records nothing: a
	 * later trace behind the ftrace net need not wait for it
	 * (handoff__wait_others).
	 * Each kprobe's release waits for RCU grace periods one after the
	 * other (perf_kprobe_destroy() under event_mutex): with hundreds of
	 * call-site probes, tens of seconds.
	 */
	close_all_at_once(1);
	prctl(PR_SET_NAME, (unsigned long)HANDOFF_COMM_PERF, 0UL, 0UL, 0UL);
	close_all_at_once(2);
	return 0;
}

int handoff__release(double wait_s, pid_t *pid, double *spawn_s)
{
	double t0 = now_s();
	void *stack;
	pid_t child;
	int p[2], err;

	stack = mmap(NULL, RELEASER_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	if (pipe(p)) {
		err = -errno;
		munmap(stack, RELEASER_STACK);
		return err;
	}
	rel.rd = p[0];
	rel.wr = p[1];
	rel.last = last_fd();
	/* The stack stays mapped: the child runs on it after this returns. */
	child = clone(releaser_main, (char *)stack + RELEASER_STACK, CLONE_VM | SIGCHLD, NULL);
	if (child < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		munmap(stack, RELEASER_STACK);
		return err;
	}
	/* The pipe's ends too: the child goes on once they are closed. */
	blank_above_stdio(rel.wr);
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
		name_releaser();
		close(p[1]);
		close(STDIN_FILENO);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		setsid();
		wait_eof(p[0]);
		_exit(0);
	}
	/* The child's signal last, as in blank_above_stdio. */
	close_above_stdio_but(p[1]);
	close(p[1]);
}

/*
 * Whether a /proc stat line ("pid (comm) S ...") is a releasing child's
 * (comm), still alive: a zombie holds no hook any more.
 */
static bool is_releaser(const char *stat, const char *comm)
{
	const char *open = strchr(stat, '('), *close = strrchr(stat, ')');

	return open && close && close - open - 1 == (long)strlen(comm) &&
	       !strncmp(open + 1, comm, strlen(comm)) && close[1] == ' ' && close[2] &&
	       close[2] != 'Z' && close[2] != 'X';
}

/*
 * A process other than this one releasing an earlier trace's hooks (with
 * kprobes, also one with only kprobes left): its pid, or 0.
 */
static pid_t other_releaser(bool kprobes)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), found = 0;

	while (d && !found && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);
		char path[64], stat[128];
		ssize_t n;
		int fd;

		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		stat[n > 0 ? n : 0] = 0;
		if (is_releaser(stat, HANDOFF_COMM) ||
		    (kprobes && is_releaser(stat, HANDOFF_COMM_PERF)))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

double handoff__wait_others(double max_s, FILE *err, bool kprobes)
{
	struct timespec nap = { 0, 100 * 1000 * 1000L };
	double t0 = now_s(), t;
	pid_t pid = other_releaser(kprobes), said = 0;

	while (pid && (t = now_s() - t0) < max_s && !stop__signal()) {
		if (!said && t >= 0.5) {
			fprintf(err, "bpfgraph: waiting for process %d to release an earlier "
				"trace's hooks: the first traced call would show their own calls\n",
				(int)pid);
			said = pid;
		}
		nanosleep(&nap, NULL);
		pid = other_releaser(kprobes);
	}
	t = now_s() - t0;
	if (pid && !stop__signal())
		fprintf(err, "bpfgraph: process %d still releasing an earlier trace's hooks after "
			"%.0f s: going on; the first traced call may show their calls\n", (int)pid,
			t);
	else if (said)
		fprintf(err, "bpfgraph: they were released after %.1f s\n", t);
	return t;
}
