// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The wide net's state machine (user/live/netfsm.h), step by step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "netfsm.h"

static struct net_input at(double now)
{
	return (struct net_input){ .now = now };
}

/* Steps until NONE; the actions in acts (at most n), their count returned. */
static int run(struct netfsm *m, struct net_input in, enum net_action *acts, int n)
{
	int k = 0;
	enum net_action a;

	while ((a = netfsm__step(m, &in)) != NET_ACT_NONE) {
		assert_true(k < n);
		acts[k++] = a;
	}
	return k;
}

static void test_open_waits_for_first_call(void **state)
{
	struct netfsm m;
	enum net_action a[4];

	(void)state;
	netfsm__open(&m, false, false);
	assert_int_equal(run(&m, at(1), a, 4), 0);
	assert_int_equal(m.state, NET_OPEN);
	assert_true(netfsm__recording(&m));
}

/*
 * Running, bounded: no traced call within wait_s, and none under way,
 * closes it as a first call's end would; a call under way holds it; a
 * command's net (paused) and an unbounded one wait.
 */
static void test_bound_closes_a_net_no_call_reached(void **state)
{
	struct netfsm m;
	enum net_action a[4];
	struct net_input in = at(104.9);

	(void)state;
	netfsm__open(&m, false, false);
	netfsm__bound(&m, 100, 5);
	assert_int_equal(run(&m, in, a, 4), 0);
	in.now = 105;
	in.active = true;
	assert_int_equal(run(&m, in, a, 4), 0);
	assert_false(m.waited_out);
	in.active = false;
	/* nothing under way: closed at once */
	assert_int_equal(run(&m, in, a, 4), 3);
	assert_int_equal(a[0], NET_ACT_LINK_MET);
	assert_int_equal(a[1], NET_ACT_HAND_OVER);
	assert_int_equal(a[2], NET_ACT_CLOSE);
	assert_true(m.waited_out);

	netfsm__open(&m, true, false);
	netfsm__bound(&m, 100, 5);
	assert_int_equal(run(&m, at(1000), a, 4), 0);
	assert_int_equal(m.state, NET_OPEN);
	netfsm__open(&m, false, false);
	netfsm__bound(&m, 100, 0);
	assert_int_equal(run(&m, at(1000), a, 4), 0);
	assert_false(m.waited_out);
}

/* Running: link beside the net, then hand over, in this order, in one poll. */
static void test_running_links_before_hand_over(void **state)
{
	struct netfsm m;
	enum net_action a[4];
	struct net_input in = at(10);

	(void)state;
	netfsm__open(&m, false, false);
	in.first_over = true;
	in.active = true;
	assert_int_equal(run(&m, in, a, 4), 2);
	assert_int_equal(a[0], NET_ACT_LINK_MET);
	assert_int_equal(a[1], NET_ACT_HAND_OVER);
	assert_int_equal(m.state, NET_DRAINING);
	assert_false(netfsm__recording(&m));
	/* A task still inside a graph: its returns stay on the net a while. */
	in.now = 10 + NET_DRAIN_S / 2;
	assert_int_equal(run(&m, in, a, 4), 0);
	in.now = 10 + NET_DRAIN_S;
	assert_int_equal(run(&m, in, a, 4), 1);
	assert_int_equal(a[0], NET_ACT_CLOSE);
	assert_int_equal(m.state, NET_CLOSING);
	in.closed = true;
	assert_int_equal(run(&m, in, a, 4), 1);
	assert_int_equal(a[0], NET_ACT_RELEASE);
	assert_int_equal(m.state, NET_CLOSED);
	assert_int_equal(run(&m, in, a, 4), 0);
}

/* Paused: stop and pause first; link only once closed, then resume. */
static void test_paused_links_after_close(void **state)
{
	struct netfsm m;
	enum net_action a[4];
	struct net_input in = at(5);

	(void)state;
	netfsm__open(&m, true, false);
	in.first_over = true;
	/* No task inside a graph: closed at once; the child not done yet. */
	assert_int_equal(run(&m, in, a, 4), 2);
	assert_int_equal(a[0], NET_ACT_STOP_PAUSE);
	assert_int_equal(a[1], NET_ACT_CLOSE);
	assert_int_equal(m.stopped_at, 5);
	in.closed = true;
	assert_int_equal(run(&m, in, a, 4), 1);
	assert_int_equal(a[0], NET_ACT_LINK_RESUME);
	assert_int_equal(m.state, NET_CLOSED);
}

/* Closed in the same poll when the child is already done. */
static void test_close_and_done_in_one_poll(void **state)
{
	struct netfsm m;
	enum net_action a[4];
	struct net_input in = at(1);

	(void)state;
	netfsm__open(&m, true, false);
	in.first_over = true;
	in.closed = true;
	assert_int_equal(run(&m, in, a, 4), 3);
	assert_int_equal(a[2], NET_ACT_LINK_RESUME);
}

/* The command is gone before its first call ended: nothing to link for. */
static void test_child_exited_keeps_open(void **state)
{
	struct netfsm m;
	enum net_action a[4];
	struct net_input in = at(1);

	(void)state;
	netfsm__open(&m, true, false);
	in.first_over = true;
	in.child_exited = true;
	assert_int_equal(run(&m, in, a, 4), 0);
	assert_int_equal(m.state, NET_OPEN);
}

/* --wide=always and no net at all never act. */
static void test_always_and_none_never_act(void **state)
{
	struct netfsm m;
	enum net_action a[4];
	struct net_input in = at(1);

	(void)state;
	in.first_over = true;
	netfsm__open(&m, false, true);
	assert_int_equal(run(&m, in, a, 4), 0);
	assert_true(netfsm__recording(&m));
	m = (struct netfsm){ .state = NET_NONE };
	assert_int_equal(run(&m, in, a, 4), 0);
	assert_false(netfsm__recording(&m));
	assert_string_equal(netfsm__state_name(NET_DRAINING), "draining");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_waits_for_first_call),
		cmocka_unit_test(test_bound_closes_a_net_no_call_reached),
		cmocka_unit_test(test_running_links_before_hand_over),
		cmocka_unit_test(test_paused_links_after_close),
		cmocka_unit_test(test_close_and_done_in_one_poll),
		cmocka_unit_test(test_child_exited_keeps_open),
		cmocka_unit_test(test_always_and_none_never_act),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
