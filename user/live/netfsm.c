// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "netfsm.h"

void netfsm__open(struct netfsm *m, bool paused, bool always)
{
	*m = (struct netfsm){ .state = always ? NET_ALWAYS : NET_OPEN, .paused = paused };
}

void netfsm__bound(struct netfsm *m, double now, double wait_s)
{
	m->opened_at = now;
	m->wait_s = wait_s;
}

/* Running, no task in a graph, the bound passed: the net has waited enough. */
static bool waited_out(struct netfsm *m, const struct net_input *in)
{
	if (m->paused || m->wait_s <= 0 || in->active || in->now - m->opened_at < m->wait_s)
		return false;
	m->waited_out = true;
	return true;
}

static enum net_action go(struct netfsm *m, enum net_state to, enum net_action act)
{
	m->state = to;
	return act;
}

static enum net_action stop_recording(struct netfsm *m, const struct net_input *in,
				      enum net_action act)
{
	m->stopped_at = in->now;
	return go(m, NET_DRAINING, act);
}

enum net_action netfsm__step(struct netfsm *m, const struct net_input *in)
{
	switch (m->state) {
	case NET_OPEN:
		if (in->child_exited || (!in->first_over && !waited_out(m, in)))
			return NET_ACT_NONE;
		if (m->paused)
			return stop_recording(m, in, NET_ACT_STOP_PAUSE);
		return go(m, NET_LINKING, NET_ACT_LINK_MET);
	case NET_LINKING:
		return stop_recording(m, in, NET_ACT_HAND_OVER);
	case NET_DRAINING:
		if (in->active && in->now - m->stopped_at < NET_DRAIN_S)
			return NET_ACT_NONE;
		return go(m, NET_CLOSING, NET_ACT_CLOSE);
	case NET_CLOSING:
		if (!in->closed)
			return NET_ACT_NONE;
		return go(m, NET_CLOSED, m->paused ? NET_ACT_LINK_RESUME : NET_ACT_RELEASE);
	case NET_NONE:
	case NET_ALWAYS:
	case NET_CLOSED:
		break;
	}
	return NET_ACT_NONE;
}

bool netfsm__recording(const struct netfsm *m)
{
	return m->state == NET_OPEN || m->state == NET_ALWAYS || m->state == NET_LINKING;
}

const char *netfsm__state_name(enum net_state s)
{
	static const char *const names[] = {
		[NET_NONE] = "none", [NET_OPEN] = "open", [NET_ALWAYS] = "always",
		[NET_LINKING] = "linking", [NET_DRAINING] = "draining",
		[NET_CLOSING] = "closing", [NET_CLOSED] = "closed",
	};

	return s <= NET_CLOSED ? names[s] : "?";
}
