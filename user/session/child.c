// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The traced command: spawned stopped, let go, paused while hooks are added, reaped. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "session.h"
#include "settle.h"
#include "session_int.h"

int session__spawn(struct session *s, char **argv, const struct rlimit *nofile)
{
	struct spawned c = { 0, -1 };
	int err = session__spawn_early(&c, argv, nofile);

	if (!err)
		session__adopt(s, &c);
	return err;
}

void session__adopt(struct session *s, struct spawned *c)
{
	s->child = c->pid;
	s->go_fd = c->go_fd;
	c->pid = 0;
	c->go_fd = -1;
}

void session__drop(struct spawned *c)
{
	if (c->pid <= 0)
		return;
	close(c->go_fd);
	waitpid(c->pid, NULL, 0);
	c->pid = 0;
	c->go_fd = -1;
}

static void on_sigchld(int sig)
{
	(void)sig;
}

/*
 * The command's parent takes SIGCHLD, as a shell waiting for it does: at
 * the command's exit the kernel then queues the signal and wakes this
 * process (__send_signal_locked() past prepare_signal(), complete_signal()),
 * which a graph of the exit or of signal delivery shows, as function_graph
 * shows it for a command run from a shell. With SIGCHLD's default action
 * the kernel drops it in prepare_signal(), a path the command never takes
 * there. SA_NOCLDSTOP: the stops bpfgraph makes send none. The handler
 * does nothing (the command is reaped by waitpid() as before); a poll or
 * a nap it ends early is resumed by its loop. The command's exec resets it.
 */
static void take_sigchld(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

int session__spawn_early(struct spawned *sp, char **argv, const struct rlimit *nofile)
{
	pid_t parent = getpid(), child;
	int p[2];
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	take_sigchld();
	/*
	 * The command dies with bpfgraph, however bpfgraph ends (SIGKILL,
	 * a crash, the OOM killer): one it had stopped (set_paused()) would
	 * otherwise stay stopped for good, orphaned. SIGKILL acts on a
	 * stopped task; SIGTERM would wait for a SIGCONT nobody sends. The
	 * death signal comes when the forking thread exits: this is the
	 * main thread (links.c's helper threads never fork). An exec that
	 * changes credentials (set-user-ID or set-group-ID, file
	 * capabilities) clears it.
	 */
	child = fork();
	if (child < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		return err;
	}
	if (child == 0) {
		close(p[1]);
		/* A parent gone before prctl() sent no death signal. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
		/* Wait for "go"; EOF means the tracer gave up (or died). */
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		if (nofile)
			setrlimit(RLIMIT_NOFILE, nofile);
		execvp(argv[0], argv);
		fprintf(stderr, "bpfgraph: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	sp->pid = child;
	sp->go_fd = p[1];
	return 0;
}

int session__check_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];
	int err = -ENOENT;

	if (!cmd || !*cmd)
		return -ENOENT;
	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? -errno : 0;
	/* glibc's execvp() default when PATH is unset */
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		size_t n;

		end = strchrnul(p, ':');
		n = (size_t)(end - p);
		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, p, n ? "/" : "", cmd) <
		    (int)sizeof(buf)) {
			if (!access(buf, X_OK))
				return 0;
			/* As execvp(): a file found but not executable is EACCES. */
			if (errno == EACCES)
				err = -EACCES;
		}
		if (!*end)
			break;
	}
	return err;
}

int session__go(struct session *s)
{
	/*
	 * The LRU batch is left as it is: the command's exec fills it from
	 * there, and emptied here its first call found it full where the
	 * kernel's run did not (7.3, -G vfs_write over pwrite: 31 folios
	 * moved in the first call, precision 0.236). The stacks bpfgraph's
	 * own tasks took are given back (settle.h).
	 */
	ssize_t r;

	settle__stacks();
	r = write(s->go_fd, "g", 1);

	close(s->go_fd);
	s->go_fd = -1;
	return r == 1 ? 0 : -EPIPE;
}

void session__abort(struct session *s)
{
	if (s->child <= 0)
		return;
	if (s->go_fd >= 0) {
		close(s->go_fd);
		s->go_fd = -1;
	}
	kill(s->child, SIGKILL);
	waitpid(s->child, NULL, 0);
	s->child = 0;
}

/*
 * The kernel reports each indirect target once: keep them all (the queue
 * grows) rather than lose one for good.
 */
int session__child_done(struct session *s)
{
	int status;

	if (s->child <= 0)
		return 0;
	if (waitpid(s->child, &status, WNOHANG) != s->child)
		return 0;
	s->st.cmd_status = status;
	s->child = 0;
	return 1;
}

/* A /proc stat file's state letter ('S', 'T', ...): 0 unreadable, '?' malformed. */
static char stat_state(const char *path)
{
	char buf[512], *p;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* "pid (comm) S ...": comm may hold spaces and parentheses. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}

/* Every thread of pid is in one of states (stat's letters), or gone. */
static bool all_in(pid_t pid, const char *states)
{
	char path[64];
	struct dirent *d;
	bool all = true;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (all && (d = readdir(dir))) {
		char st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", (int)pid, d->d_name);
		st = stat_state(path);
		all = !st || strchr(states, st); /* 0: gone meanwhile */
	}
	closedir(dir);
	return all;
}

/*
 * Every thread of process pid is asleep and may be woken by a signal
 * ('S' in its stat): a stop would end those sleeps early, and the calls
 * that slept would return -ERESTART* and run again, drawn twice in the
 * trace (a nanosleep, a futex wait, a read of an empty pipe).
 */
static bool asleep(pid_t pid)
{
	return all_in(pid, "S");
}

bool session__child_stopped(const struct session *s)
{
	if (s->child <= 0 || (kill(s->child, 0) && errno == ESRCH))
		return true;
	return all_in(s->child, "TtXZ");
}

/*
 * A SIGSTOP or SIGCONT of ours to the command, bg_pausing set before the
 * first (its delivery is not the command's work: state.bpf.h) and cleared
 * before the second (a signal delivered after it is the command's again).
 */
static int signal_child(struct session *s, int sig)
{
	/*
	 * What bpfgraph did while the command waited (attaching what was
	 * found, after the poll's own settle) is not left for it to drain.
	 */
	if (sig == SIGCONT)
		settle__lru();
	if (s->cont_ns && sig == SIGCONT)
		__atomic_store_n(s->cont_ns, mono_ns(), __ATOMIC_RELEASE);
	if (s->pausing)
		__atomic_store_n(s->pausing, sig == SIGSTOP, __ATOMIC_RELEASE);
	if (!kill(s->child, sig))
		return 0;
	if (s->pausing && sig == SIGSTOP)
		__atomic_store_n(s->pausing, 0, __ATOMIC_RELEASE);
	return -1;
}

void session__stop_child(struct session *s)
{
	if (s->child > 0 && !s->paused && !signal_child(s, SIGSTOP))
		s->paused = true;
}

/* The BPF side no longer stops the command (session.stop_asked). */
static void withdraw_stop(struct session *s)
{
	if (!s->stop_asked)
		return;
	__atomic_store_n(s->stop_req, 0, __ATOMIC_RELEASE);
	s->stop_asked = false;
	/* It may have stopped at its graph's end: continued all the same. */
	if (!s->paused)
		session__resume_if_stopped(s);
}

void session__set_paused(struct session *s, bool on)
{
	if (s->child <= 0)
		return;
	if (!on)
		withdraw_stop(s);
	if (s->paused == on)
		return;
	/* Asleep, it makes no calls meanwhile; it is left alone. */
	if (on && asleep(s->child))
		return;
	/* Inside a graph: stopped when that ends, not where a sleep would end early. */
	if (on && s->stop_req && s->active && __atomic_load_n(s->active, __ATOMIC_ACQUIRE) > 0) {
		__atomic_store_n(s->stop_req, 1, __ATOMIC_RELEASE);
		s->stop_asked = true;
		return;
	}
	if (!signal_child(s, on ? SIGSTOP : SIGCONT))
		s->paused = on;
}

void session__pause(struct session *s, bool on)
{
	/* Continued whoever stopped it: a probe may have (bg_pause_tgid). */
	if (!on && s->child > 0 && !s->paused) {
		withdraw_stop(s);
		signal_child(s, SIGCONT);
		return;
	}
	session__set_paused(s, on);
}

bool session__child_exited(const struct session *s)
{
	siginfo_t si;

	if (s->child <= 0)
		return false;
	memset(&si, 0, sizeof(si));
	/* WNOWAIT: left for session__child_done() to reap. */
	if (waitid(P_PID, (id_t)s->child, &si, WEXITED | WNOHANG | WNOWAIT))
		return false;
	return si.si_pid == s->child;
}

/*
 * A probe stops the child and reports the target; should that report be
 * lost (ring buffer full), nobody would let the child go on: do it when
 * nothing is left to attach.
 */
void session__resume_if_stopped(struct session *s)
{
	char path[64];

	if (s->child <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)s->child);
	if (stat_state(path) == 'T')
		signal_child(s, SIGCONT);
}

/* How long the command gets to end on SIGTERM before SIGKILL. */
#define CHILD_TERM_S 10

/*
 * SIGCONT whenever the command is found stopped: a graph under way when
 * the trace stopped runs on to its end, where the BPF side may stop the
 * command (a pause asked for, a target found: stop_at_end) after the
 * trace's own SIGCONT; a stopped task keeps the SIGTERM pending, and
 * waiting for it would never end.
 */
void session__end_child(struct session *s)
{
	const struct timespec nap = { 0, 10 * 1000 * 1000L };
	uint64_t t0 = mono_ns();
	bool killed = false;

	if (s->child <= 0)
		return;
	kill(s->child, SIGTERM);
	for (;;) {
		pid_t r = waitpid(s->child, &s->st.cmd_status, WNOHANG);

		if (r == s->child || (r < 0 && errno != EINTR))
			break;
		if (!killed && mono_ns() - t0 > CHILD_TERM_S * 1000000000ULL) {
			kill(s->child, SIGKILL);
			killed = true;
		}
		session__resume_if_stopped(s);
		nanosleep(&nap, NULL);
	}
	s->child = 0;
}
