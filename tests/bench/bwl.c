// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bwl: the performance bench's workload timer (tests/vm/wl.c runs
 * workloads for traces; this one times them). Static, no loader.
 *
 *   bwl [-o FILE] [--stop] [-w WARM] [-s MS] OP N [OP N]...
 *       time N calls of OP after WARM untimed ones (default N/10) and a
 *       pause of MS milliseconds (default 300), repeated (up to 10
 *       rounds) until the parent, a tracer attaching what it discovered
 *       during the warm-up, opens no fd in a round, and then until the
 *       machine is idle; the timed loop too is repeated (up to 5 times)
 *       until the parent's fds stay. One line
 *       per OP:
 *       op=OP n=N parent_fds=BEFORE/AFTER ns=WALL self_ticks=T
 *       parent_ticks=P cpu_ns=CPU parent_cpu0_ns=C0 parent_cpu1_ns=C1
 *       calls=ALL idle_wait_ms=W idle_missed=M (ticks: USER_HZ CPU
 *       time of bwl and of its parent, the tracer when run as "bpfgraph --
 *       bwl ...", spent during the timed loop; CPU: bwl's own CPU time in
 *       it, in ns, which leaves out a tracer's reader sharing a one-CPU
 *       machine; C0: the CPU time of the parent's main thread when the
 *       loop began, ns since it started, from /proc/PPID/schedstat: the
 *       tracer's reader after the loop, less C0, is what reading the
 *       loop's records cost it; C1: the same when the loop ended;
 *       calls=ALL: the calls of OP made, warm-up and every round
 *       included; idle_wait_ms, idle_missed: the time spent waiting for
 *       an idle machine before the loop, and the waits that gave up)
 *   bwl [-o FILE] rate OP PER_SEC MS
 *       OP paced at PER_SEC calls per second for MS milliseconds
 *       (PER_SEC 0: as fast as possible). op=OP n=CALLS ns=WALL target=R
 *   bwl -o FILE exec CMD [ARG]...
 *       run CMD, write utime_us stime_us maxrss_kb of CMD and the children
 *       it waited for, and its exit status; exits with CMD's status
 *   bwl sleep MS
 *   OP: getpid (a getpid system call), openmiss (open of a missing file),
 *       pipe (write and read back 1 byte)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static FILE *out;
/* Calls of the timed OP made so far, warm-up and every round included. */
static long calls_made;
static int pipefd[2] = { -1, -1 };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int op_getpid(void)
{
	syscall(SYS_getpid);
	return 0;
}

static int op_openmiss(void)
{
	int fd = open("/nonexistent/bpfgraph-bwl", O_RDONLY);

	if (fd >= 0 || errno != ENOENT) {
		fprintf(stderr, "bwl: open of a missing file did not fail with ENOENT\n");
		return -1;
	}
	return 0;
}

static int op_pipe(void)
{
	char c = 'x';

	if (pipefd[0] < 0 && pipe(pipefd))
		return -1;
	if (write(pipefd[1], &c, 1) != 1 || read(pipefd[0], &c, 1) != 1) {
		fprintf(stderr, "bwl: pipe write/read: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static const struct op {
	const char *name;
	int (*fn)(void);
} ops[] = {
	{ "getpid", op_getpid },
	{ "openmiss", op_openmiss },
	{ "pipe", op_pipe },
};

static const struct op *find_op(const char *name)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, name))
			return &ops[i];
	fprintf(stderr, "bwl: unknown op '%s'\n", name);
	return NULL;
}

static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || end == s || *end || *v < 0) {
		fprintf(stderr, "bwl: bad number '%s'\n", s);
		return -1;
	}
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* utime + stime in USER_HZ ticks from /proc/PID/stat (fields 14, 15). */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* After "comm)": state is field 3, utime field 14. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

/*
 * The CPU time of all pid's threads in ns (/proc/PID/task/T/schedstat), or
 * 0: a tracer's reader may read the ring buffer in a thread of its own.
 */
static unsigned long long tasks_cpu_ns(pid_t pid)
{
	char path[96];
	unsigned long long ns, sum = 0;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/schedstat", (int)pid, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(dir);
	return sum;
}

/* Open fds of pid (a tracer holds one or two per attached program). */
static long fd_count(pid_t pid)
{
	char path[64];
	struct dirent *e;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The parent's fds unchanged over 250 ms (nothing being attached), or 60 s gone. */
static long wait_parent_settled(void)
{
	long prev = fd_count(getppid()), cur = prev;

	for (int i = 0; i < 240; i++) {
		sleep_ms(250);
		cur = fd_count(getppid());
		if (cur == prev)
			break;
		prev = cur;
	}
	return cur;
}

/* Busy and all ticks of the machine (the "cpu" line of /proc/stat); 0 or -1. */
static int machine_ticks(unsigned long long *busy, unsigned long long *all)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -1;
	/* user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -1;
	*all = 0;
	for (int i = 0; i < 8; i++)
		*all += v[i];
	*busy = *all - v[3] - v[4];
	return 0;
}

/* Time spent in wait_machine_idle(), ms, over the whole run; rounds not idle. */
static long idle_wait_ms, idle_missed;

/*
 * Until the machine was idle (at most 2 of 25 ticks busy) over 250 ms, or
 * 10 s gone: work a tracer started before the loop (attaching what it
 * found, closing the wide net in a child, the kernel freeing what that
 * released, the reader catching up) must not land in the timed loop. Its
 * file descriptors cannot say so: a closed net or a merge of links leaves
 * their count as it was while the work goes on.
 */
static void wait_machine_idle(void)
{
	unsigned long long b0, a0, b1, a1;
	uint64_t t0 = now_ns();

	for (int i = 0; i < 40; i++) {
		if (machine_ticks(&b0, &a0))
			return;
		sleep_ms(250);
		if (machine_ticks(&b1, &a1))
			return;
		if (a1 > a0 && (b1 - b0) * 25 <= 2 * (a1 - a0))
			goto out;
	}
	idle_missed++;
out:
	idle_wait_ms += (long)((now_ns() - t0) / 1000000);
}

/*
 * Warm-up rounds until one leaves the parent's fds alone: a tracer that
 * attaches what it meets while tracing ("bpfgraph -- bwl ...") finds one
 * more level per call, and attaching takes longer than the calls; the
 * timed loop measures the steady state (what discovery costs is the
 * attach figures' business). At most 10 rounds.
 */
static int warm_up(const struct op *op, long warm, long settle_ms)
{
	for (int round = 0; round < 10; round++) {
		long fds0 = fd_count(getppid());

		for (long i = 0; i < warm; i++, calls_made++)
			if (op->fn())
				return -1;
		if (settle_ms > 0)
			sleep_ms(settle_ms);
		if (wait_parent_settled() == fds0)
			break;
	}
	wait_machine_idle();
	return 0;
}

/*
 * Timed loops until one leaves the parent's fds alone (at most
 * TIMED_ROUNDS): a call of the loop can still lead the tracer to a
 * function it had not met, and the pause while it attaches it (a
 * kprobe.multi merge re-links the whole plan: seconds under emulation)
 * would land in the measure of the steady state.
 */
#define TIMED_ROUNDS 5

/* CPU time of this process (one thread), ns. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int timed(const struct op *op, long n, long warm, long settle_ms)
{
	long self0, par0, fds0, fds1;
	uint64_t t0, t, c0, c;
	unsigned long long pc0, pc1;

	if (warm > 0 && warm_up(op, warm, settle_ms))
		return -1;
	for (int round = 0;; round++) {
		fds0 = fd_count(getppid());
		self0 = cpu_ticks(getpid());
		par0 = cpu_ticks(getppid());
		pc0 = tasks_cpu_ns(getppid());
		t0 = now_ns();
		c0 = cpu_ns();
		for (long i = 0; i < n; i++, calls_made++)
			if (op->fn())
				return -1;
		c = cpu_ns() - c0;
		t = now_ns() - t0;
		pc1 = tasks_cpu_ns(getppid());
		fds1 = fd_count(getppid());
		if (fds1 == fds0 || round + 1 >= TIMED_ROUNDS)
			break;
		if (settle_ms > 0)
			sleep_ms(settle_ms);
		wait_parent_settled();
		wait_machine_idle();
	}
	/* parent_fds: a tracer that still attached during the loop shows it. */
	fprintf(out, "op=%s n=%ld parent_fds=%ld/%ld ns=%llu self_ticks=%ld parent_ticks=%ld "
		"cpu_ns=%llu parent_cpu0_ns=%llu parent_cpu1_ns=%llu calls=%ld idle_wait_ms=%ld "
		"idle_missed=%ld\n", op->name, n, fds0, fds1,
		(unsigned long long)t, cpu_ticks(getpid()) - self0, cpu_ticks(getppid()) - par0,
		(unsigned long long)c, pc0, pc1, calls_made, idle_wait_ms, idle_missed);
	return 0;
}

static int paced(const struct op *op, long per_sec, long ms)
{
	uint64_t t0 = now_ns(), end = t0 + ms * 1000000ULL, t;
	long done = 0;

	while ((t = now_ns()) < end) {
		long due = per_sec ? (long)((t - t0) * per_sec / 1000000000ULL) + 1 : done + 64;

		if (done >= due) {
			/* Ahead of schedule: wait for the next slot (~1 ms). */
			sleep_ms(1);
			continue;
		}
		for (; done < due; done++)
			if (op->fn())
				return -1;
	}
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(out, "op=%s n=%ld ns=%llu target=%ld self_utime_us=%ld\n", op->name, done,
		(unsigned long long)(now_ns() - t0), per_sec,
		ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec);
	return 0;
}

static int run_exec(char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "bwl: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return 1;
	fprintf(out, "utime_us=%ld stime_us=%ld maxrss_kb=%ld status=%d\n",
		ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
		ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec, ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: bwl [-o FILE] [--stop] [-w WARM] [-s MS] OP N [OP N]...\n"
			"       bwl [-o FILE] rate OP PER_SEC MS\n"
			"       bwl -o FILE exec CMD [ARG]...\n"
			"       bwl sleep MS\n"
			"  OP: getpid openmiss pipe\n");
	return 2;
}

int main(int argc, char **argv)
{
	long warm = -1, settle = 300, n, ms;
	const struct op *op;
	int i = 1, stop = 0;

	out = stdout;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--stop")) {
			stop = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "-o")) {
			out = fopen(argv[++i], "a");
			if (!out) {
				fprintf(stderr, "bwl: cannot open %s: %s\n", argv[i], strerror(errno));
				return 1;
			}
		} else if (i + 1 < argc && !strcmp(argv[i], "-w")) {
			if (parse_long(argv[++i], &warm))
				return 2;
		} else if (i + 1 < argc && !strcmp(argv[i], "-s")) {
			if (parse_long(argv[++i], &settle))
				return 2;
		} else {
			return usage();
		}
	}
	if (i >= argc)
		return usage();
	setvbuf(out, NULL, _IOLBF, 0);
	if (!strcmp(argv[i], "exec"))
		return i + 1 < argc ? run_exec(argv + i + 1) : usage();
	if (!strcmp(argv[i], "sleep")) {
		if (i + 1 >= argc || parse_long(argv[i + 1], &ms))
			return usage();
		sleep_ms(ms);
		return 0;
	}
	if (stop)
		raise(SIGSTOP);
	if (!strcmp(argv[i], "rate")) {
		if (argc - i != 4 || !(op = find_op(argv[i + 1])) ||
		    parse_long(argv[i + 2], &n) || parse_long(argv[i + 3], &ms))
			return usage();
		return paced(op, n, ms) ? 1 : 0;
	}
	if ((argc - i) % 2)
		return usage();
	for (; i < argc; i += 2) {
		if (!(op = find_op(argv[i])) || parse_long(argv[i + 1], &n))
			return 2;
		if (timed(op, n, warm >= 0 ? warm : n / 10, settle))
			return 1;
	}
	return 0;
}
