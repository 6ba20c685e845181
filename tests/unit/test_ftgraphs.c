// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ftrace net's graphs under way (user/live/ftgraphs.h): the first
 * graph goes on as read, later ones whole at their end, or not at all
 * when the kernel dropped events meanwhile.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ftgraphs.h"

struct seen {
	struct bg_rec r[64];
	int n, firsts;
};

static int pass(void *ctx, const struct bg_rec *r)
{
	struct seen *s = ctx;

	assert_true(s->n < 64);
	s->r[s->n++] = *r;
	return 0;
}

static int comm(void *ctx, const struct bg_rec *entry, struct bg_rec *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	out->type = BG_REC_COMM;
	out->pid = entry->pid;
	return 1;
}

static void first_end(void *ctx)
{
	((struct seen *)ctx)->firsts++;
}

static struct bg_rec rec(int type, uint32_t pid, uint8_t depth, uint64_t ts)
{
	return (struct bg_rec){ .type = (uint8_t)type, .pid = pid, .depth = depth, .ts = ts };
}

static void take(struct ftgraphs *g, int type, uint32_t pid, uint8_t depth, uint64_t ts)
{
	struct bg_rec r = rec(type, pid, depth, ts);

	assert_int_equal(ftg__take(g, &r, false), 0);
}

/* g with ops, which report to s (emptied). */
static void init_ops(struct ftgraphs *g, struct seen *s, struct ftg_ops ops)
{
	memset(s, 0, sizeof(*s));
	ops.ctx = s;
	ftg__init(g, &ops);
}

/* is_first: which ends may be the first (NULL: any). */
static void init_with(struct ftgraphs *g, struct seen *s,
		      bool (*is_first)(void *, const struct bg_rec *))
{
	init_ops(g, s, (struct ftg_ops){ .pass = pass, .comm = comm, .is_first = is_first,
					 .first_end = first_end });
}

static void init(struct ftgraphs *g, struct seen *s)
{
	init_with(g, s, NULL);
}

/* A whole call: entry, a child, their exits. */
static void call(struct ftgraphs *g, uint32_t pid, uint64_t ts)
{
	take(g, BG_REC_ENTRY, pid, 0, ts);
	take(g, BG_REC_ENTRY, pid, 1, ts + 1);
	take(g, BG_REC_EXIT, pid, 1, ts + 2);
	take(g, BG_REC_EXIT, pid, 0, ts + 3);
}

static void test_first_passes_later_held_until_end(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	take(&g, BG_REC_ENTRY, 7, 0, 10);
	/* the first graph's records go on as read, its comm first */
	assert_int_equal(s.n, 2);
	assert_int_equal(s.r[0].type, BG_REC_COMM);
	assert_int_equal(g.open, 1);
	take(&g, BG_REC_EXIT, 7, 0, 11);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.firsts, 1);
	assert_true(g.first_over);
	assert_int_equal(g.open, 0);
	/* a later one: nothing until its end, then all of it in order */
	take(&g, BG_REC_ENTRY, 7, 0, 20);
	take(&g, BG_REC_ENTRY, 7, 1, 21);
	assert_int_equal(s.n, 3);
	assert_int_equal(g.open, 1);
	take(&g, BG_REC_EXIT, 7, 1, 22);
	take(&g, BG_REC_EXIT, 7, 0, 23);
	assert_int_equal(s.n, 8);
	assert_int_equal(s.r[3].type, BG_REC_COMM);
	for (int i = 4; i < 8; i++)
		assert_int_equal(s.r[i].ts, 20 + i - 4);
	assert_int_equal(s.firsts, 1);
	assert_int_equal(g.cut, 0);
	ftg__free(&g);
}

/* Graphs ending before ts 100 are not the first (the command's exec made them). */
static bool after_100(void *ctx, const struct bg_rec *end)
{
	(void)ctx;
	return end->ts >= 100;
}

/*
 * Calls the command's exec made: shown as read, not the first; the first
 * to end after the exec is, and only graphs begun after it are held.
 */
static void test_exec_calls_not_first(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init_with(&g, &s, after_100);
	call(&g, 7, 10);
	call(&g, 7, 20);
	/* both as read (comm, four records each), neither the first */
	assert_int_equal(s.n, 10);
	assert_int_equal(s.firsts, 0);
	assert_false(g.first_over);
	/* begun before the exec was done, ended after it: the first */
	take(&g, BG_REC_ENTRY, 7, 0, 90);
	assert_int_equal(s.n, 12);
	take(&g, BG_REC_EXIT, 7, 0, 110);
	assert_int_equal(s.n, 13);
	assert_int_equal(s.firsts, 1);
	assert_true(g.first_over);
	/* the next one is held until its end */
	take(&g, BG_REC_ENTRY, 7, 0, 120);
	assert_int_equal(s.n, 13);
	take(&g, BG_REC_EXIT, 7, 0, 121);
	assert_int_equal(s.n, 16);
	assert_int_equal(s.firsts, 1);
	ftg__free(&g);
}

/* Another thread's graph under way when the first ends goes on as read. */
/* As live_ftnet.c's with --first-calls=3: the third end after ts 100 is the last. */
static unsigned int ends;

static bool third_after_100(void *ctx, const struct bg_rec *end)
{
	(void)ctx;
	return end->ts >= 100 && ++ends >= 3;
}

/*
 * The net's first calls: graphs ended before the last of them are shown
 * as read, none held; graphs begun after its end are held.
 */
static void test_first_calls_not_held(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	ends = 0;
	init_with(&g, &s, third_after_100);
	call(&g, 7, 10);
	call(&g, 7, 100);
	call(&g, 7, 110);
	assert_int_equal(s.n, 15);
	assert_false(g.first_over);
	assert_int_equal(s.firsts, 0);
	take(&g, BG_REC_ENTRY, 7, 0, 120);
	/* the third: as read, still */
	assert_int_equal(s.n, 17);
	take(&g, BG_REC_EXIT, 7, 0, 121);
	assert_true(g.first_over);
	assert_int_equal(s.firsts, 1);
	assert_int_equal(ends, 3);
	/* a fourth: held until its end */
	take(&g, BG_REC_ENTRY, 7, 0, 130);
	assert_int_equal(s.n, 18);
	take(&g, BG_REC_EXIT, 7, 0, 131);
	assert_int_equal(s.n, 21);
	assert_int_equal(ends, 3);
	ftg__free(&g);
}

static void test_concurrent_graph_not_held(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	take(&g, BG_REC_ENTRY, 7, 0, 10);
	take(&g, BG_REC_ENTRY, 8, 0, 11);
	take(&g, BG_REC_EXIT, 7, 0, 12);
	assert_int_equal(g.open, 1);
	take(&g, BG_REC_ENTRY, 8, 1, 13);
	assert_int_equal(s.n, 6);
	take(&g, BG_REC_EXIT, 8, 1, 14);
	take(&g, BG_REC_EXIT, 8, 0, 15);
	assert_int_equal(s.n, 8);
	assert_int_equal(g.open, 0);
	ftg__free(&g);
}

/*
 * Events dropped: the held graph under way is left out whole, what is
 * left of it is not drawn, nothing stays open; a graph begun after the
 * drop is whole and shown.
 */
static void test_drop_cuts_held_graphs(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	call(&g, 7, 10);
	assert_int_equal(s.n, 5);
	take(&g, BG_REC_ENTRY, 7, 0, 20);
	take(&g, BG_REC_ENTRY, 7, 1, 21);
	ftg__lost(&g, 100);
	assert_int_equal(g.open, 0);
	assert_int_equal(g.cut, 1);
	assert_int_equal(g.lost_first, 0);
	/* its end arrives after the hole: a fragment */
	take(&g, BG_REC_EXIT, 7, 0, 30);
	assert_int_equal(g.fragments, 1);
	assert_int_equal(s.n, 5);
	call(&g, 7, 40);
	assert_int_equal(s.n, 10);
	assert_int_equal(s.r[9].ts, 43);
	ftg__free(&g);
}

/* Dropped before the first end: counted apart; nothing waits for its end. */
static void test_drop_in_first_call(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	take(&g, BG_REC_ENTRY, 7, 0, 10);
	take(&g, BG_REC_ENTRY, 7, 1, 11);
	ftg__lost(&g, 5);
	assert_int_equal(g.lost_first, 5);
	assert_int_equal(g.open, 0);
	assert_int_equal(g.cut, 0);
	assert_int_equal(s.firsts, 0);
	ftg__free(&g);
}

/* A held graph whose end never came (a new start, or the close): cut. */
static void test_unended_held_graphs_cut(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	call(&g, 7, 10);
	take(&g, BG_REC_ENTRY, 7, 0, 20);
	take(&g, BG_REC_ENTRY, 7, 0, 30);
	assert_int_equal(g.cut, 1);
	assert_int_equal(g.open, 1);
	take(&g, BG_REC_ENTRY, 9, 0, 31);
	ftg__close(&g);
	assert_int_equal(g.cut, 3);
	assert_int_equal(g.open, 0);
	assert_int_equal(s.n, 5);
	ftg__free(&g);
}

/*
 * A kprobe's handler drawn inside the first graph (the tracer's own path):
 * left out with what it calls, the rest as read.
 */
static void test_own_calls_left_out(void **state)
{
	struct ftgraphs g;
	struct seen s;
	struct bg_rec r;

	(void)state;
	init(&g, &s);
	take(&g, BG_REC_ENTRY, 7, 0, 10);
	r = rec(BG_REC_ENTRY, 7, 1, 11);
	assert_int_equal(ftg__take(&g, &r, true), 0);
	take(&g, BG_REC_ENTRY, 7, 2, 12); /* what the handler calls */
	take(&g, BG_REC_EXIT, 7, 2, 13);
	r = rec(BG_REC_EXIT, 7, 1, 14);
	assert_int_equal(ftg__take(&g, &r, true), 0);
	assert_int_equal(g.own, 4);
	take(&g, BG_REC_ENTRY, 7, 1, 15); /* the call's own child */
	take(&g, BG_REC_EXIT, 7, 1, 16);
	/* an exit of the tracer's path whose entry came before the graph */
	r = rec(BG_REC_EXIT, 7, 1, 17);
	assert_int_equal(ftg__take(&g, &r, true), 0);
	take(&g, BG_REC_EXIT, 7, 0, 18);
	assert_int_equal(g.own, 5);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.r[2].ts, 15);
	assert_int_equal(s.r[3].ts, 16);
	assert_int_equal(s.r[4].ts, 18);
	assert_true(g.first_over);
	ftg__free(&g);
}

static void take_fn(struct ftgraphs *g, int type, uint32_t func, uint8_t depth, uint64_t ts)
{
	struct bg_rec r = rec(type, 7, depth, ts);

	r.func = func;
	assert_int_equal(ftg__take(g, &r, false), 0);
}

/*
 * An interrupt between the pop of B's return and B's exit record: the
 * kernel records its calls at B's depth, before B's exit. They are
 * drawn nested inside B, which is still open in the records.
 */
static void test_interrupt_after_pop_nests(void **state)
{
	static const uint8_t want[] = { 0, 1, 2, 2, 2, 3, 3, 2, 1, 0 };
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	take_fn(&g, BG_REC_ENTRY, 1, 0, 10); /* A */
	take_fn(&g, BG_REC_ENTRY, 2, 1, 11); /* B */
	take_fn(&g, BG_REC_ENTRY, 3, 1, 12); /* irq_enter_rcu, at B's depth */
	take_fn(&g, BG_REC_EXIT, 3, 1, 13);
	take_fn(&g, BG_REC_ENTRY, 4, 1, 14); /* the interrupt's handler */
	take_fn(&g, BG_REC_ENTRY, 5, 2, 15);
	take_fn(&g, BG_REC_EXIT, 5, 2, 16);
	take_fn(&g, BG_REC_EXIT, 4, 1, 17);
	take_fn(&g, BG_REC_EXIT, 2, 1, 18); /* B's exit, at last */
	take_fn(&g, BG_REC_EXIT, 1, 0, 19);
	/* the comm record, then the ten */
	assert_int_equal(s.n, 11);
	for (int i = 0; i < 10; i++)
		assert_int_equal(s.r[i + 1].depth, want[i]);
	assert_true(g.first_over);
	ftg__free(&g);
}

/*
 * An interrupt between function_graph marking the task inside a graph and
 * the entry's event: its calls come first, at depth 1 with nothing open.
 * They wait for the entry and are drawn inside it, the entry at the
 * interrupt's time; in a held graph (after the first) the same.
 */
static void test_interrupt_before_entry_nests(void **state)
{
	static const uint8_t want[] = { 0, 1, 1, 1, 2, 2, 1, 1, 1, 0 };
	static const uint32_t fn[] = { 1, 3, 3, 4, 5, 5, 4, 2, 2, 1 };
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	for (int round = 0; round < 2; round++) {
		uint64_t t0 = 100 * (uint64_t)round;

		take_fn(&g, BG_REC_ENTRY, 3, 1, t0 + 10); /* irq_enter_rcu */
		take_fn(&g, BG_REC_EXIT, 3, 1, t0 + 11);
		take_fn(&g, BG_REC_ENTRY, 4, 1, t0 + 12); /* the handler */
		take_fn(&g, BG_REC_ENTRY, 5, 2, t0 + 13);
		take_fn(&g, BG_REC_EXIT, 5, 2, t0 + 14);
		take_fn(&g, BG_REC_EXIT, 4, 1, t0 + 15);
		assert_int_equal(s.n, 11 * round);
		/* no graph under way yet: a stop of the command does not wait */
		assert_int_equal(g.open, 0);
		take_fn(&g, BG_REC_ENTRY, 1, 0, t0 + 16); /* A, the entry function */
		take_fn(&g, BG_REC_ENTRY, 2, 1, t0 + 17);
		take_fn(&g, BG_REC_EXIT, 2, 1, t0 + 18);
		take_fn(&g, BG_REC_EXIT, 1, 0, t0 + 19);
		/* the comm record, then the ten */
		assert_int_equal(s.n, 11 * (round + 1));
		assert_int_equal(s.r[11 * round].type, BG_REC_COMM);
		assert_int_equal(s.r[11 * round + 1].ts, t0 + 10);
		for (int i = 0; i < 10; i++) {
			assert_int_equal(s.r[11 * round + 1 + i].depth, want[i]);
			assert_int_equal(s.r[11 * round + 1 + i].func, fn[i]);
		}
		assert_int_equal(g.open, 0);
	}
	assert_int_equal(g.cut, 0);
	ftg__free(&g);
}

/*
 * Records at depth 1 that no entry follows: as recorded, when a depth-0
 * exit comes (a graph begun before the net), an entry comes long after
 * them, or the net is over.
 */
static void test_early_records_without_entry(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init(&g, &s);
	take_fn(&g, BG_REC_ENTRY, 3, 1, 10);
	take_fn(&g, BG_REC_EXIT, 3, 1, 11);
	assert_int_equal(s.n, 0);
	take_fn(&g, BG_REC_EXIT, 1, 0, 12);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.r[0].depth, 1);
	assert_int_equal(s.r[2].depth, 0);
	assert_int_equal(g.open, 0);
	/* an entry long after them: they are not its interrupt's */
	take_fn(&g, BG_REC_ENTRY, 3, 1, 20);
	take_fn(&g, BG_REC_EXIT, 3, 1, 21);
	take_fn(&g, BG_REC_ENTRY, 1, 0, 21 + 20000000);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.r[3].depth, 1);
	assert_int_equal(s.r[5].type, BG_REC_COMM);
	assert_int_equal(s.r[6].ts, 21 + 20000000);
	take_fn(&g, BG_REC_EXIT, 1, 0, 21 + 20000001);
	assert_int_equal(s.n, 8);
	take_fn(&g, BG_REC_ENTRY, 3, 1, 30000000);
	assert_int_equal(s.n, 8);
	ftg__close(&g);
	assert_int_equal(s.n, 9);
	assert_int_equal(s.r[8].ts, 30000000);
	assert_int_equal(g.open, 0);
	ftg__free(&g);
}

/* Graphs begun from ts 50 to 60 are bpfgraph's stop of the command. */
static bool stop_50_60(void *ctx, const struct bg_rec *entry)
{
	(void)ctx;
	return entry->ts >= 50 && entry->ts <= 60;
}

/*
 * A graph begun in the command's stop (its SIGSTOP's sending, its
 * delivery) is left out whole and counted; those before and after it,
 * and the first call, go on. Only held graphs are asked.
 */
static void test_pause_graphs_left_out(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init_ops(&g, &s, (struct ftg_ops){ .pass = pass, .comm = comm, .is_pause = stop_50_60 });
	/* the first call, in the window's times but not held: passed */
	call(&g, 7, 55);
	assert_int_equal(s.n, 5);
	call(&g, 7, 40);
	assert_int_equal(s.n, 10);
	call(&g, 7, 50);
	call(&g, 7, 57);
	assert_int_equal(s.n, 10);
	assert_int_equal(g.paused, 2);
	assert_int_equal(g.open, 0);
	call(&g, 7, 61);
	assert_int_equal(s.n, 15);
	assert_int_equal(s.r[10].type, BG_REC_COMM);
	assert_int_equal(s.r[11].ts, 61);
	assert_int_equal(g.cut, 0);
	ftg__free(&g);
}

/* Graphs some entries of which are foreign (pid 9's): left out whole, never the first. */
static bool pid_9(void *ctx, const struct bg_rec *entry)
{
	(void)ctx;
	return entry->pid == 9;
}

static void test_foreign_graphs_left_out(void **state)
{
	struct ftgraphs g;
	struct seen s;

	(void)state;
	init_ops(&g, &s, (struct ftg_ops){ .pass = pass, .comm = comm, .first_end = first_end,
					   .foreign = pid_9 });
	call(&g, 9, 10);
	assert_int_equal(s.n, 0);
	assert_false(g.first_over);
	assert_int_equal(g.foreign, 1);
	call(&g, 7, 20);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.firsts, 1);
	take(&g, BG_REC_ENTRY, 9, 0, 30);
	take(&g, BG_REC_EXIT, 9, 0, 31);
	assert_int_equal(s.n, 5);
	assert_int_equal(g.foreign, 2);
	assert_int_equal(g.open, 0);
	ftg__free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_passes_later_held_until_end),
		cmocka_unit_test(test_concurrent_graph_not_held),
		cmocka_unit_test(test_exec_calls_not_first),
		cmocka_unit_test(test_first_calls_not_held),
		cmocka_unit_test(test_drop_cuts_held_graphs),
		cmocka_unit_test(test_drop_in_first_call),
		cmocka_unit_test(test_unended_held_graphs_cut),
		cmocka_unit_test(test_interrupt_after_pop_nests),
		cmocka_unit_test(test_interrupt_before_entry_nests),
		cmocka_unit_test(test_early_records_without_entry),
		cmocka_unit_test(test_own_calls_left_out),
		cmocka_unit_test(test_pause_graphs_left_out),
		cmocka_unit_test(test_foreign_graphs_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
