// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ring buffer callback: a sample carries 1..BG_BATCH records (the BPF
 * side's per-CPU batches); every one of them reaches the sink in order,
 * discovery's target records go to the target queue instead, and a full
 * poll batch stops libbpf's loop only after the whole sample was taken.
 */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "golden.h"

#include "bpfgraph.h"
#include "session.h"

struct fake_sink {
	struct bg_rec got[BG_BATCH];
	int n;
	int fail_at; /* feed returns -EIO for this record (0-based), -1: never */
};

static int fake_feed(void *ctx, const struct bg_rec *r)
{
	struct fake_sink *f = ctx;

	if (f->n == f->fail_at)
		return -EIO;
	if (f->n < BG_BATCH)
		f->got[f->n] = *r;
	f->n++;
	return 0;
}

static void fake_drain(void *ctx, uint64_t upto)
{
	(void)ctx;
	(void)upto;
}

static void fake_flush(void *ctx)
{
	(void)ctx;
}

static void on_target(void *ctx, uint64_t target, uint32_t func)
{
	(void)ctx;
	(void)target;
	(void)func;
}

static void setup(struct session *s, struct fake_sink *f)
{
	memset(s, 0, sizeof(*s));
	memset(f, 0, sizeof(*f));
	f->fail_at = -1;
	s->ringbuf_fd = s->batch_fd = s->stats_fd = -1;
	s->sink = (struct rec_sink){ fake_feed, fake_drain, fake_flush, f };
}

static struct bg_rec rec(uint8_t type, uint64_t ts, uint32_t func)
{
	return (struct bg_rec){ .ts = ts, .func = func, .type = type, .pid = 7 };
}

static void test_whole_batch_in_order(void **state)
{
	struct bg_rec sample[BG_BATCH];
	struct fake_sink f;
	struct session s;

	(void)state;
	setup(&s, &f);
	for (int i = 0; i < BG_BATCH; i++)
		sample[i] = rec(i % 2 ? BG_REC_EXIT : BG_REC_ENTRY, 1000 + i, (uint32_t)i);
	assert_int_equal(session__sample(&s, sample, sizeof(sample)), 0);
	assert_int_equal(f.n, BG_BATCH);
	for (int i = 0; i < BG_BATCH; i++) {
		assert_int_equal(f.got[i].ts, 1000 + i);
		assert_int_equal(f.got[i].func, i);
	}
	assert_int_equal(s.st.records, BG_BATCH);
	assert_int_equal(s.batch, BG_BATCH);
}

static void test_single_record(void **state)
{
	struct bg_rec r = rec(BG_REC_ENTRY, 5, 3);
	struct fake_sink f;
	struct session s;

	(void)state;
	setup(&s, &f);
	assert_int_equal(session__sample(&s, &r, sizeof(r)), 0);
	assert_int_equal(f.n, 1);
	assert_int_equal(s.st.records, 1);
}

/* Wide index w maps to table index 100 + w; w >= 4 is unknown. */
static int map_func(void *ctx, uint32_t func)
{
	uint32_t w = func & ~BG_FUNC_WIDE;

	(void)ctx;
	return w < 4 ? (int)(100 + w) : -ENOENT;
}

/*
 * Records of the wide net reach the sink with a function table index; one
 * of no known function is dropped and counted; graphs ended are counted
 * (exits at depth 0), whichever hook made them.
 */
static void test_wide_records_mapped(void **state)
{
	struct bg_rec sample[5] = {
		rec(BG_REC_ENTRY, 1, 0), /* the entry function, planned */
		rec(BG_REC_ENTRY, 2, BG_FUNC_WIDE | 2),
		rec(BG_REC_EXIT, 3, BG_FUNC_WIDE | 9),
		rec(BG_REC_EXIT, 4, BG_FUNC_WIDE | 2),
		rec(BG_REC_EXIT, 5, 0),
	};
	struct fake_sink f;
	struct session s;

	(void)state;
	sample[1].depth = sample[2].depth = sample[3].depth = 1;
	setup(&s, &f);
	s.map_func = map_func;
	assert_int_equal(session__sample(&s, sample, sizeof(sample)), 0);
	assert_int_equal(f.n, 4);
	assert_int_equal(f.got[0].func, 0);
	assert_int_equal(f.got[1].func, 102);
	assert_int_equal(f.got[2].func, 102);
	assert_int_equal(f.got[2].ts, 4);
	assert_int_equal(f.got[3].func, 0);
	assert_int_equal(s.st.unmapped, 1);
	assert_int_equal(s.graphs_done, 1);
}

/*
 * A folded leaf (BG_REC_LEAF) of the wide net is mapped like the pair it
 * stands for, and one at depth 0 (a graph function that called nothing
 * traced) ends a graph.
 */
static void test_leaf_records(void **state)
{
	struct bg_rec sample[3] = {
		rec(BG_REC_ENTRY, 1, 0),
		rec(BG_REC_LEAF, 2, BG_FUNC_WIDE | 2),
		rec(BG_REC_EXIT, 3, 0),
	};
	struct bg_rec alone = rec(BG_REC_LEAF, 4, 0);
	struct fake_sink f;
	struct session s;

	(void)state;
	sample[1].depth = 1;
	setup(&s, &f);
	s.map_func = map_func;
	assert_int_equal(session__sample(&s, sample, sizeof(sample)), 0);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.got[1].func, 102);
	assert_int_equal(bg_rec_type(&f.got[1]), BG_REC_LEAF);
	assert_int_equal(s.graphs_done, 1);
	assert_int_equal(session__sample(&s, &alone, sizeof(alone)), 0);
	assert_int_equal(s.graphs_done, 2);
}

/* A target goes to discovery's queue, not to the trace. */
static void test_target_not_traced(void **state)
{
	struct bg_rec sample[3] = { rec(BG_REC_ENTRY, 1, 1), rec(BG_REC_TARGET, 2, 1),
				    rec(BG_REC_EXIT, 3, 1) };
	struct fake_sink f;
	struct session s;

	(void)state;
	setup(&s, &f);
	s.on_target = on_target;
	sample[1].val = 0xffffffff81000000ULL;
	assert_int_equal(session__sample(&s, sample, sizeof(sample)), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.got[0].ts, 1);
	assert_int_equal(f.got[1].ts, 3);
	assert_int_equal(s.st.records, 2);
	assert_int_equal(s.ntargets, 1);
	assert_int_equal(s.targets[0].val, 0xffffffff81000000ULL);
	free(s.targets);
}

struct grown {
	uint32_t expanded[64];
	int nexpanded, settled;
};

static void on_expand_count(void *ctx, uint32_t func)
{
	struct grown *g = ctx;

	if (g->nexpanded < 64)
		g->expanded[g->nexpanded] = func;
	g->nexpanded++;
}

static void on_settled_count(void *ctx)
{
	((struct grown *)ctx)->settled++;
}

/*
 * A pause that ends with the command going on hooks everything queued,
 * not a poll's share (GROW_PER_POLL): the command's next call would run
 * before the next poll. Links once for all (on_settled), and not at all
 * with nothing queued.
 */
static void test_grow_now_takes_all(void **state)
{
	struct grown g = { 0 };
	struct fake_sink f;
	struct session s;

	(void)state;
	setup(&s, &f);
	s.on_expand = on_expand_count;
	s.on_settled = on_settled_count;
	s.caller_ctx = &g;
	session__grow_now(&s);
	assert_int_equal(g.settled, 0);
	for (uint32_t i = 0; i < 20; i++)
		s.expand[s.nexpand++] = 100 + i;
	session__grow_now(&s);
	assert_int_equal(g.nexpanded, 20);
	for (int i = 0; i < 20; i++)
		assert_int_equal(g.expanded[i], 100 + i);
	assert_int_equal(s.nexpand, 0);
	assert_int_equal(g.settled, 1);
}

/* libbpf drops the sample whatever we return: take all of it first. */
static void test_full_poll_batch_takes_whole_sample(void **state)
{
	struct bg_rec sample[4];
	struct fake_sink f;
	struct session s;

	(void)state;
	setup(&s, &f);
	for (int i = 0; i < 4; i++)
		sample[i] = rec(BG_REC_ENTRY, 10 + i, 0);
	s.batch = SESSION_BATCH_MAX - 2;
	assert_int_equal(session__sample(&s, sample, sizeof(sample)), -EAGAIN);
	assert_int_equal(f.n, 4);
	assert_int_equal(s.batch, SESSION_BATCH_MAX + 2);
}

/* Bytes after the last whole record are not a record. */
static void test_partial_tail_ignored(void **state)
{
	unsigned char buf[2 * sizeof(struct bg_rec) + 8];
	struct bg_rec a = rec(BG_REC_ENTRY, 1, 0), b = rec(BG_REC_EXIT, 2, 0);
	struct fake_sink f;
	struct session s;

	(void)state;
	setup(&s, &f);
	memcpy(buf, &a, sizeof(a));
	memcpy(buf + sizeof(a), &b, sizeof(b));
	memset(buf + 2 * sizeof(a), 0xab, 8);
	assert_int_equal(session__sample(&s, buf, sizeof(buf)), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(session__sample(&s, buf, sizeof(a) - 1), 0);
	assert_int_equal(f.n, 2);
}

/* A sink error stops at that record and is passed on. */
static void test_sink_error_passed_on(void **state)
{
	struct bg_rec sample[3] = { rec(BG_REC_ENTRY, 1, 0), rec(BG_REC_ENTRY, 2, 0),
				    rec(BG_REC_ENTRY, 3, 0) };
	struct fake_sink f;
	struct session s;

	(void)state;
	setup(&s, &f);
	f.fail_at = 1;
	assert_int_equal(session__sample(&s, sample, sizeof(sample)), -EIO);
	assert_int_equal(f.n, 1);
}


/* COMMAND is looked up as execvp() would, before anything is attached. */
static void test_check_command(void **state)
{
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	assert_int_equal(session__check_command("sh"), 0);
	assert_int_equal(session__check_command("/bin/sh"), 0);
	assert_int_equal(session__check_command("no-such-command-bpfgraph"), -ENOENT);
	assert_int_equal(session__check_command("/no/such/dir/cmd"), -ENOENT);
	assert_int_equal(session__check_command(""), -ENOENT);
	/* Found but not executable. */
	assert_int_equal(session__check_command(BG_SRCDIR "/README.md"), -EACCES);
	/* An empty PATH element is the current directory. */
	setenv("PATH", "/nonexistent:", 1);
	assert_int_equal(session__check_command("sh"), -ENOENT);
	setenv("PATH", "/nonexistent:/bin", 1);
	assert_int_equal(session__check_command("sh"), 0);
	if (old)
		setenv("PATH", old, 1);
	else
		unsetenv("PATH");
	free(old);
}

enum helper_end { BEFORE_GO, RUNNING, STOPPED };

/* Until /proc/PID/comm says COMM (the exec happened), 2 s at most. */
static bool comm_is(pid_t pid, const char *comm)
{
	char path[64], buf[32] = "";

	for (int i = 0; i < 200; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		f = fopen(path, "re");
		if (f && fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = 0;
		if (f)
			fclose(f);
		if (!strcmp(buf, comm))
			return true;
		usleep(10 * 1000);
	}
	return false;
}

/* A command that never sleeps: a sleeping one is not stopped (session__pause). */
static char *spin_argv[] = { "sh", "-c", "while :; do :; done", NULL };

/*
 * The helper plays bpfgraph: spawns "sleep 60" (or, to be stopped, a shell
 * loop) through session__spawn(), takes it as far as end says, tells its
 * pid through fd and waits to be killed. Never returns into cmocka.
 */
static void helper(int fd, enum helper_end end)
{
	char *argv[] = { "sleep", "60", NULL };
	struct session s = { .go_fd = -1 };
	int st;

	if (session__spawn(&s, end == STOPPED ? spin_argv : argv, NULL))
		_exit(1);
	if (end != BEFORE_GO &&
	    (session__go(&s) || !comm_is(s.child, end == STOPPED ? "sh" : "sleep")))
		_exit(1);
	if (end == STOPPED) {
		session__pause(&s, true);
		if (waitpid(s.child, &st, WUNTRACED) != s.child || !WIFSTOPPED(st))
			_exit(1);
	}
	if (write(fd, &s.child, sizeof(s.child)) != sizeof(s.child))
		_exit(1);
	for (;;)
		pause();
}

/*
 * SIGKILL a helper that spawned a command; the wait status of the command,
 * reaped by this process (a subreaper) within a second, or -1.
 */
static int command_status_after_kill(enum helper_end end)
{
	pid_t h, cmd = 0;
	int p[2], st = -1;

	assert_int_equal(pipe(p), 0);
	/* The orphaned command comes to this process, which can reap it. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	h = fork();
	if (h == 0) {
		close(p[0]);
		helper(p[1], end);
	}
	close(p[1]);
	if (h < 0 || read(p[0], &cmd, sizeof(cmd)) != sizeof(cmd))
		cmd = 0;
	close(p[0]);
	if (h > 0) {
		kill(h, SIGKILL);
		waitpid(h, NULL, 0);
	}
	for (int i = 0; cmd > 0 && i < 100; i++) {
		if (waitpid(cmd, &st, WNOHANG) == cmd)
			break;
		st = -1;
		usleep(10 * 1000);
	}
	if (cmd > 0 && st == -1) {
		/* Left behind: do not leave it to the next test. */
		kill(cmd, SIGKILL);
		waitpid(cmd, NULL, 0);
	}
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	assert_true(h > 0 && cmd > 0);
	return st;
}

/*
 * Whatever ends bpfgraph, the command it started does not outlive it: not
 * left stopped for good by a SIGKILL while paused (issue #21), not left
 * running, and not waiting for a "go" that never comes.
 */
static void test_command_dies_with_tracer(void **state)
{
	int st;

	(void)state;
	st = command_status_after_kill(STOPPED);
	assert_true(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	st = command_status_after_kill(RUNNING);
	assert_true(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	/* The death signal, or EOF on the go pipe: whichever comes first. */
	st = command_status_after_kill(BEFORE_GO);
	assert_true(st != -1);
	assert_true((WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) ||
		    (WIFEXITED(st) && WEXITSTATUS(st) == 127));
}

/* The state letter of /proc/PID/stat ('S', 'T', ...), or 0. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512] = "", *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Pausing a command that sleeps would end its sleep early (the call
 * returns -ERESTART* and runs again, drawn twice): it is left asleep. One
 * that runs is stopped, and continued.
 */
static void test_pause_leaves_sleeper(void **state)
{
	char *sleep_argv[] = { "sleep", "60", NULL };
	struct session s = { .go_fd = -1 };
	char st = 0;

	(void)state;
	assert_int_equal(session__spawn(&s, sleep_argv, NULL), 0);
	assert_int_equal(session__go(&s), 0);
	assert_true(comm_is(s.child, "sleep"));
	for (int i = 0; i < 200 && (st = proc_state(s.child)) != 'S'; i++)
		usleep(10 * 1000);
	assert_int_equal(st, 'S');
	session__pause(&s, true);
	assert_false(s.paused);
	usleep(50 * 1000);
	assert_int_equal(proc_state(s.child), 'S');
	kill(s.child, SIGKILL);
	waitpid(s.child, NULL, 0);

	s = (struct session){ .go_fd = -1 };
	assert_int_equal(session__spawn(&s, spin_argv, NULL), 0);
	assert_int_equal(session__go(&s), 0);
	assert_true(comm_is(s.child, "sh"));
	session__pause(&s, true);
	assert_true(s.paused);
	for (int i = 0; i < 200 && (st = proc_state(s.child)) != 'T'; i++)
		usleep(10 * 1000);
	assert_int_equal(st, 'T');
	session__pause(&s, false);
	assert_false(s.paused);
	kill(s.child, SIGKILL);
	waitpid(s.child, NULL, 0);
}

/* Bit N-1 of /proc/PID/status's SigCgt: the task has a handler for signal N. */
static bool catches(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(f);
	return mask & (1ULL << (sig - 1));
}

/*
 * The command's parent takes SIGCHLD as a shell does (its exit then goes
 * through signal delivery, not the dropped signal of SIG_DFL), without
 * hearing of the stops bpfgraph makes; the command itself starts with
 * SIGCHLD's default.
 */
static void test_parent_takes_sigchld(void **state)
{
	char *sleep_argv[] = { "sleep", "60", NULL };
	struct session s = { .go_fd = -1 };
	struct sigaction old, sa;

	(void)state;
	assert_int_equal(sigaction(SIGCHLD, NULL, &old), 0);
	assert_int_equal(session__spawn(&s, sleep_argv, NULL), 0);
	assert_int_equal(sigaction(SIGCHLD, NULL, &sa), 0);
	assert_true(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
	assert_true(sa.sa_flags & SA_NOCLDSTOP);
	assert_false(sa.sa_flags & SA_NOCLDWAIT);
	assert_int_equal(session__go(&s), 0);
	for (int i = 0; i < 200 && !comm_is(s.child, "sleep"); i++)
		usleep(10 * 1000);
	assert_true(comm_is(s.child, "sleep"));
	assert_false(catches(s.child, SIGCHLD));
	assert_true(catches(getpid(), SIGCHLD));
	kill(s.child, SIGKILL);
	waitpid(s.child, NULL, 0);
	sigaction(SIGCHLD, &old, NULL);
}

/*
 * A command inside a graph (bg_active) is not stopped from here: the BPF
 * side is asked to stop it when that graph ends (bg_stop_req), and the
 * request is withdrawn when the pause is over.
 */
static void test_pause_inside_graph_asks_bpf(void **state)
{
	struct session s = { .go_fd = -1 };
	volatile uint32_t req = 0;
	volatile int64_t active = 1;
	char st = 0;

	(void)state;
	s.stop_req = &req;
	s.active = &active;
	assert_int_equal(session__spawn(&s, spin_argv, NULL), 0);
	assert_int_equal(session__go(&s), 0);
	assert_true(comm_is(s.child, "sh"));
	session__pause(&s, true);
	assert_false(s.paused);
	assert_int_equal(req, 1);
	usleep(50 * 1000);
	st = proc_state(s.child);
	assert_true(st == 'R' || st == 'S'); /* not stopped from here */
	/* Stopped meanwhile, as the BPF side would: continued when the pause ends. */
	kill(s.child, SIGSTOP);
	for (int i = 0; i < 200 && (st = proc_state(s.child)) != 'T'; i++)
		usleep(10 * 1000);
	assert_int_equal(st, 'T');
	session__pause(&s, false);
	assert_int_equal(req, 0);
	for (int i = 0; i < 200 && (st = proc_state(s.child)) == 'T'; i++)
		usleep(10 * 1000);
	assert_true(st != 'T');
	/* Outside any graph: stopped from here. */
	active = 0;
	session__pause(&s, true);
	assert_true(s.paused);
	assert_int_equal(req, 0);
	session__pause(&s, false);
	kill(s.child, SIGKILL);
	waitpid(s.child, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_batch_in_order),
		cmocka_unit_test(test_check_command),
		cmocka_unit_test(test_single_record),
		cmocka_unit_test(test_wide_records_mapped),
		cmocka_unit_test(test_leaf_records),
		cmocka_unit_test(test_target_not_traced),
		cmocka_unit_test(test_grow_now_takes_all),
		cmocka_unit_test(test_full_poll_batch_takes_whole_sample),
		cmocka_unit_test(test_partial_tail_ignored),
		cmocka_unit_test(test_sink_error_passed_on),
		cmocka_unit_test(test_command_dies_with_tracer),
		cmocka_unit_test(test_pause_leaves_sleeper),
		cmocka_unit_test(test_parent_takes_sigchld),
		cmocka_unit_test(test_pause_inside_graph_asks_bpf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
