// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Call tracker tests: graph events in, the calls it reports out, each
 * field compared exactly (self time, depth, callers, entry and end time,
 * flags), in the order the writers print them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "calls.h"

#define MAX_SEEN 16
#define MAX_CALLERS 8

/* A reported call, its stack and comm copied while they are valid. */
struct seen {
	struct call c;
	bool has_stack;
	uint32_t caller_func[MAX_CALLERS];
	bool caller_open[MAX_CALLERS];
	bool has_parent;
	uint32_t parent_func;
	char comm[32];
};

struct log {
	struct seen v[MAX_SEEN];
	size_t n;
	size_t entered;
	struct calls *calls;
};

static void note(struct log *l, const struct call *c)
{
	struct seen *s = &l->v[l->n++];
	const struct call_frame *p = call__parent(c);

	assert_true(l->n <= MAX_SEEN);
	memset(s, 0, sizeof(*s));
	s->c = *c;
	s->has_stack = c->stack != NULL;
	for (uint32_t i = 0; c->stack && i < c->depth && i < MAX_CALLERS; i++) {
		s->caller_func[i] = c->stack[i].func;
		s->caller_open[i] = c->stack[i].open;
	}
	s->has_parent = p != NULL;
	s->parent_func = p ? p->func : 0;
	snprintf(s->comm, sizeof(s->comm), "%s", c->comm);
	s->c.comm = s->comm;
	s->c.stack = NULL;
}

static void on_call(void *ctx, const struct call *c)
{
	note(ctx, c);
}

static void on_enter(void *ctx, const struct call *c)
{
	struct log *l = ctx;

	l->entered++;
	assert_true(c->unfinished);
	assert_true(c->noret);
	assert_int_equal(c->dur, 0);
}

static int setup(void **state)
{
	struct log *l = calloc(1, sizeof(*l));

	if (!l)
		return -1;
	l->calls = calls__new(&(struct calls_opts){ .on_call = on_call, .ctx = l });
	if (!l->calls) {
		free(l);
		return -1;
	}
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	struct log *l = *state;

	calls__free(l->calls);
	free(l);
	return 0;
}

static struct gev ev_enter(uint32_t cpu, uint32_t func, uint32_t depth, uint64_t ts)
{
	return (struct gev){ .type = GEV_ENTER, .cpu = cpu, .pid = 100 + cpu, .func = func,
			     .depth = depth, .ts = ts, .comm = "task" };
}

static struct gev ev_leaf(uint32_t cpu, uint32_t func, uint32_t depth, uint64_t ts,
			  uint64_t dur)
{
	return (struct gev){ .type = GEV_LEAF, .cpu = cpu, .pid = 100 + cpu, .func = func,
			     .depth = depth, .ts = ts, .dur = dur, .ret = func * 10,
			     .comm = "task" };
}

/* ts is the return time, as the builder gives it for exits. */
static struct gev ev_exit(uint32_t cpu, uint32_t func, uint32_t depth, uint64_t ts,
			  uint64_t dur, bool tail)
{
	return (struct gev){ .type = GEV_EXIT, .cpu = cpu, .pid = 100 + cpu, .func = func,
			     .depth = depth, .ts = ts, .dur = dur, .ret = func * 10,
			     .tail = tail, .comm = "task" };
}

static void feed(struct log *l, struct gev ev)
{
	assert_int_equal(calls__feed(l->calls, &ev), 0);
}

static void check_ended(const struct seen *s, uint32_t func, uint32_t depth, uint64_t ts,
			uint64_t end, uint64_t self)
{
	assert_int_equal(s->c.func, func);
	assert_int_equal(s->c.depth, depth);
	assert_int_equal(s->c.ts, ts);
	assert_int_equal(s->c.end, end);
	assert_int_equal(s->c.dur, end - ts);
	assert_int_equal(s->c.self, self);
	assert_false(s->c.unfinished);
}

/* A(B(C), D): self time is the duration less that of the children. */
static void test_self_nested(void **state)
{
	struct log *l = *state;

	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, ev_enter(0, 2, 1, 110));
	feed(l, ev_leaf(0, 3, 2, 120, 5));
	assert_int_equal(l->n, 1);
	feed(l, ev_exit(0, 2, 1, 140, 30, false));
	feed(l, ev_leaf(0, 4, 1, 150, 10));
	feed(l, ev_exit(0, 1, 0, 200, 100, false));
	assert_int_equal(l->n, 4);
	check_ended(&l->v[0], 3, 2, 120, 125, 5);
	check_ended(&l->v[1], 2, 1, 110, 140, 25);
	check_ended(&l->v[2], 4, 1, 150, 160, 10);
	check_ended(&l->v[3], 1, 0, 100, 200, 60);
	assert_int_equal(l->v[0].c.ret, 30);
	assert_false(l->v[0].c.noret);
	assert_false(l->v[3].c.orphan);
	assert_string_equal(l->v[3].comm, "task");
	assert_int_equal(l->v[3].c.pid, 100);
}

/* Callers root first, the parent the frame right above. */
static void test_depth_and_parents(void **state)
{
	struct log *l = *state;

	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, ev_enter(0, 2, 1, 110));
	feed(l, ev_enter(0, 3, 2, 120));
	feed(l, ev_leaf(0, 4, 3, 130, 1));
	feed(l, ev_exit(0, 3, 2, 140, 20, false));
	feed(l, ev_exit(0, 1, 0, 200, 100, false));
	assert_int_equal(l->n, 4);
	/* the leaf: three callers, all open */
	assert_int_equal(l->v[0].c.depth, 3);
	assert_true(l->v[0].has_stack);
	assert_int_equal(l->v[0].caller_func[0], 1);
	assert_int_equal(l->v[0].caller_func[1], 2);
	assert_int_equal(l->v[0].caller_func[2], 3);
	assert_true(l->v[0].caller_open[0] && l->v[0].caller_open[1] && l->v[0].caller_open[2]);
	assert_true(l->v[0].has_parent);
	assert_int_equal(l->v[0].parent_func, 3);
	assert_int_equal(l->v[1].parent_func, 2);
	/* B's exit never came: A's exit ends it, deeper calls first */
	assert_int_equal(l->v[2].c.func, 2);
	assert_true(l->v[2].c.unfinished);
	assert_true(l->v[2].c.noret);
	assert_int_equal(l->v[2].c.ts, 110);
	assert_int_equal(l->v[2].c.dur, 0);
	assert_int_equal(l->v[2].c.self, 0);
	assert_int_equal(l->v[2].c.end, 0);
	assert_int_equal(l->v[2].parent_func, 1);
	/* B never ended: nothing is subtracted from A */
	check_ended(&l->v[3], 1, 0, 100, 200, 100);
	assert_false(l->v[3].has_parent);
	assert_true(l->v[3].has_stack);
}

/* Two CPUs' stacks stay apart however their events interleave. */
static void test_two_cpus(void **state)
{
	struct log *l = *state;

	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, ev_enter(1, 5, 0, 101));
	feed(l, ev_leaf(0, 2, 1, 102, 10));
	feed(l, ev_enter(1, 6, 1, 103));
	feed(l, ev_leaf(1, 7, 2, 104, 3));
	feed(l, ev_exit(0, 1, 0, 150, 50, false));
	feed(l, ev_exit(1, 6, 1, 110, 7, false));
	feed(l, ev_exit(1, 5, 0, 160, 59, false));
	assert_int_equal(l->n, 5);
	check_ended(&l->v[0], 2, 1, 102, 112, 10);
	assert_int_equal(l->v[0].c.cpu, 0);
	assert_int_equal(l->v[0].parent_func, 1);
	check_ended(&l->v[1], 7, 2, 104, 107, 3);
	assert_int_equal(l->v[1].c.cpu, 1);
	assert_int_equal(l->v[1].caller_func[0], 5);
	assert_int_equal(l->v[1].caller_func[1], 6);
	check_ended(&l->v[2], 1, 0, 100, 150, 40);
	assert_int_equal(l->v[2].c.pid, 100);
	check_ended(&l->v[3], 6, 1, 103, 110, 4);
	check_ended(&l->v[4], 5, 0, 101, 160, 52);
	assert_int_equal(l->v[4].c.cpu, 1);
	assert_int_equal(l->v[4].c.pid, 101);
}

/* Exits whose entries were not seen: orphans, callers unknown. */
static void test_orphan_exit(void **state)
{
	struct log *l = *state;

	feed(l, ev_exit(0, 2, 1, 130, 20, true));
	feed(l, ev_exit(0, 1, 0, 150, 100, true));
	assert_int_equal(l->n, 2);
	check_ended(&l->v[0], 2, 1, 110, 130, 20);
	assert_true(l->v[0].c.orphan);
	assert_true(l->v[0].has_parent);
	assert_false(l->v[0].caller_open[0]);
	/* the child printed before it counts, caller seen or not */
	check_ended(&l->v[1], 1, 0, 50, 150, 80);
	assert_true(l->v[1].c.orphan);
}

/*
 * An orphan exit at the depth of an open entry leaves that entry
 * unfinished (reported first) and still subtracts its children.
 */
static void test_orphan_over_entry(void **state)
{
	struct log *l = *state;

	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, ev_leaf(0, 2, 1, 110, 10));
	feed(l, ev_exit(0, 3, 0, 200, 60, true));
	assert_int_equal(l->n, 3);
	assert_int_equal(l->v[1].c.func, 1);
	assert_true(l->v[1].c.unfinished);
	check_ended(&l->v[2], 3, 0, 140, 200, 50);
	assert_true(l->v[2].c.orphan);
}

/* Lost-record markers and banners leave the stacks as they are. */
static void test_lost_marker(void **state)
{
	struct log *l = *state;
	struct gev lost = { .type = GEV_LOST, .cpu = 0, .ts = 115, .count = 3 };
	struct gev banner = { .type = GEV_BANNER, .cpu = 0, .pid = 7, .prev_pid = 100 };

	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, ev_enter(0, 2, 1, 110));
	feed(l, lost);
	feed(l, banner);
	/* even on a CPU the stacks cannot hold */
	lost.cpu = BG_MAX_CPUS;
	feed(l, lost);
	assert_int_equal(l->n, 0);
	feed(l, ev_exit(0, 2, 1, 140, 30, false));
	feed(l, ev_exit(0, 1, 0, 200, 100, false));
	assert_int_equal(l->n, 2);
	check_ended(&l->v[0], 2, 1, 110, 140, 30);
	assert_false(l->v[0].c.orphan);
	check_ended(&l->v[1], 1, 0, 100, 200, 70);
}

/* Open calls at flush: unfinished, CPU by CPU, callers first, once. */
static void test_flush_open(void **state)
{
	struct log *l = *state;
	struct gev e = ev_enter(1, 9, 0, 90);

	e.comm = "averyveryverylongcommname";
	feed(l, e);
	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, ev_enter(0, 2, 1, 110));
	feed(l, ev_leaf(0, 3, 2, 120, 5));
	assert_int_equal(l->n, 1);
	calls__flush(l->calls);
	assert_int_equal(l->n, 4);
	assert_int_equal(l->v[1].c.func, 1);
	assert_int_equal(l->v[1].c.depth, 0);
	assert_int_equal(l->v[1].c.cpu, 0);
	assert_int_equal(l->v[2].c.func, 2);
	assert_int_equal(l->v[2].c.ts, 110);
	/* its caller is still on the stack while it is reported */
	assert_true(l->v[2].caller_open[0]);
	assert_int_equal(l->v[3].c.func, 9);
	assert_int_equal(l->v[3].c.cpu, 1);
	assert_int_equal(l->v[3].c.pid, 101);
	/* the comm kept for an open call is as long as the kernel's */
	assert_string_equal(l->v[3].comm, "averyveryverylon");
	for (size_t i = 1; i < 4; i++) {
		assert_true(l->v[i].c.unfinished);
		assert_true(l->v[i].c.noret);
		assert_int_equal(l->v[i].c.dur, 0);
		assert_int_equal(l->v[i].c.end, 0);
	}
	calls__flush(l->calls);
	assert_int_equal(l->n, 4);
}

/* An entry, then a leaf at its depth: the entry never got its exit. */
static void test_leaf_ends_entry(void **state)
{
	struct log *l = *state;
	struct gev leaf = ev_leaf(0, 2, 0, 120, 5);

	leaf.noret = true;
	leaf.comm = NULL;
	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, leaf);
	assert_int_equal(l->n, 2);
	assert_int_equal(l->v[0].c.func, 1);
	assert_true(l->v[0].c.unfinished);
	check_ended(&l->v[1], 2, 0, 120, 125, 5);
	assert_true(l->v[1].c.noret);
	assert_string_equal(l->v[1].comm, "<...>");
}

/* Beyond the stacks: still reported, without callers. */
static void test_untracked(void **state)
{
	struct log *l = *state;
	struct gev deep = ev_leaf(0, 2, BG_MAX_DEPTH, 120, 5);
	struct gev far = ev_exit(BG_MAX_CPUS, 3, 0, 200, 50, false);

	feed(l, ev_enter(0, 1, 0, 100));
	feed(l, deep);
	assert_int_equal(calls__feed(l->calls, &far), -EINVAL);
	far.type = GEV_ENTER;
	assert_int_equal(calls__feed(l->calls, &far), -EINVAL);
	assert_int_equal(l->n, 2);
	check_ended(&l->v[0], 2, BG_MAX_DEPTH, 120, 125, 5);
	assert_false(l->v[0].has_stack);
	assert_false(l->v[0].has_parent);
	check_ended(&l->v[1], 3, 0, 150, 200, 50);
	assert_false(l->v[1].has_stack);
	/* the deep leaf did not end the entry at depth 0 */
	feed(l, ev_exit(0, 1, 0, 300, 200, false));
	check_ended(&l->v[2], 1, 0, 100, 300, 200);
}

static void test_on_enter(void **state)
{
	struct log l = { 0 };
	struct calls *c = calls__new(&(struct calls_opts){ .on_call = on_call,
							    .on_enter = on_enter, .ctx = &l });

	assert_non_null(c);
	l.calls = c;
	feed(&l, ev_enter(0, 1, 0, 100));
	feed(&l, ev_enter(0, 2, 1, 110));
	feed(&l, ev_leaf(0, 3, 2, 120, 5));
	assert_int_equal(l.entered, 2);
	assert_int_equal(l.n, 1);
	calls__free(c);
	(void)state;
}

static void test_new_errors(void **state)
{
	errno = 0;
	assert_null(calls__new(NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(calls__new(&(struct calls_opts){ 0 }));
	assert_int_equal(errno, EINVAL);
	calls__free(NULL);
	(void)state;
}

#define CALLS_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CALLS_TEST(test_self_nested),
		CALLS_TEST(test_depth_and_parents),
		CALLS_TEST(test_two_cpus),
		CALLS_TEST(test_orphan_exit),
		CALLS_TEST(test_orphan_over_entry),
		CALLS_TEST(test_lost_marker),
		CALLS_TEST(test_flush_open),
		CALLS_TEST(test_leaf_ends_entry),
		CALLS_TEST(test_untracked),
		cmocka_unit_test(test_on_enter),
		cmocka_unit_test(test_new_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
