// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What is checked before a trace starts, so that a mistake costs nothing:
 * the command, the output file, -p's processes, another bpfgraph still
 * loaded, -C, file descriptors for the plan's links.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cli.h"
#include "others.h"
#include "plan.h"
#include "preflight.h"
#include "session.h"

/*
 * Each function costs two link fds, each kprobe two more (its perf event
 * and link): a large plan passes the usual hard limit of 4096 (seen: 1503
 * functions and their call-site kprobes failed with EMFILE). Root may lift
 * the hard limit to fs.nr_open; else the soft limit goes to the hard one.
 * COMMAND gets the limits we were started with (nofile_before).
 */
static struct rlimit nofile_before;

void preflight__raise_nofile(void)
{
	struct rlimit r;
	unsigned long nr_open = 0;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	nofile_before = r;
	f = fopen("/proc/sys/fs/nr_open", "r");
	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (nr_open > r.rlim_max) {
		struct rlimit up = { nr_open, nr_open };

		if (!setrlimit(RLIMIT_NOFILE, &up))
			return;
	}
	if (r.rlim_cur >= r.rlim_max)
		return;
	r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
}

const struct rlimit *preflight__nofile_before(void)
{
	return nofile_before.rlim_cur ? &nofile_before : NULL;
}

int preflight__report_options(const struct bg_opts *o)
{
	if (o->flags & BG_O_SLEEP_TIME)
		return 0;
	fprintf(stderr, "bpfgraph: nosleep-time applies while tracing (the time a task was "
		"switched out is taken off as it happens): trace or record with it\n");
	return -EOPNOTSUPP;
}

int preflight__cpus(const struct bg_opts *o)
{
	int ncpu = libbpf_num_possible_cpus();

	if (!o->nr_cpus || ncpu <= 0)
		return 0;
	for (int c = 0; c < ncpu; c++)
		if (cli__cpu_isset(o, c))
			return 0;
	fprintf(stderr, "bpfgraph: -C names no CPU of this machine (possible CPUs: 0-%d)\n",
		ncpu - 1);
	return -EINVAL;
}

/*
 * An output that cannot be created, or a regular file on a full file
 * system, is found before anything is attached (then it is opened for
 * real, and truncated, once tracing starts). The file is created if
 * missing; one byte is appended and taken off again, so an existing file
 * keeps its contents if bpfgraph stops before tracing. Other files
 * (devices, pipes) are only opened: a byte would reach their reader.
 */
static int check_writable(const char *path)
{
	struct stat st;
	int fd, err = 0;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0)
		err = -errno;
	else if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		if (write(fd, "\n", 1) != 1)
			err = errno ? -errno : -EIO;
		else if (ftruncate(fd, st.st_size))
			err = -errno;
	}
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "bpfgraph: cannot write the trace to '%s': %s\n", path,
			strerror(-err));
	return err;
}

/*
 * File descriptors the plan's links take: two per function by trampoline,
 * four per kprobe pair (each probe a perf event and its link), a few for
 * all of kprobe.multi; call-site probes come on top, and the rest of
 * bpfgraph needs some (NOFILE_BASE). A limit below that would lose
 * functions while attaching: refused up front, with the number.
 */
#define NOFILE_BASE 256

int preflight__nofile(const struct plan *p, enum bg_hook hook)
{
	struct rlimit r;
	size_t need = NOFILE_BASE;

	for (size_t i = 0; i < p->funcs.n && hook != BG_HOOK_KMULTI; i++) {
		const struct bg_func *f = &p->funcs.f[i];

		if (f->flags & BG_FN_CALLSITE)
			continue;
		if (hook == BG_HOOK_KPROBE || (f->flags & BG_FN_KPROBE))
			need += 4;
		else if (hook != BG_HOOK_TMULTI)
			need += 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= need)
		return 0;
	fprintf(stderr, "bpfgraph: the plan's %zu functions need about %zu file descriptors "
		"(2 per function by trampoline, 4 per kprobe pair), the limit is %llu: raise it "
		"(ulimit -n; root may go up to fs.nr_open) or trace fewer functions\n",
		p->funcs.n, need, (unsigned long long)r.rlim_cur);
	return -EMFILE;
}

/*
 * How long the programs of a bpfgraph that just ended may take to go: the
 * kernel frees them once their links are released, a fraction of a
 * second after its exit.
 */
#define OTHERS_WAIT_MS 3000

int preflight__before(const struct bg_opts *o, const char *path)
{
	int err;

	if (o->dry_run)
		return 0;
	/* A typo costs nothing. */
	if (o->command_argc && (err = session__check_command(o->command[0]))) {
		fprintf(stderr, "bpfgraph: cannot run '%s': %s\n", o->command[0], strerror(-err));
		return err;
	}
	if ((err = check_writable(path)))
		return err;
	for (size_t i = 0; i < o->nr_pids; i++) {
		/* Signal 0 tests existence; EPERM: it exists (another user's). */
		if (kill((pid_t)o->pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, "bpfgraph: -p %u: no such process or thread\n", o->pids[i]);
			return -ESRCH;
		}
	}
	/* Before anything of ours is loaded: one of its programs would be found. */
	return others__check(OTHERS_WAIT_MS);
}
