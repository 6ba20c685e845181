/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The wide net's life as a state machine, without a kernel: live.c feeds
 * it what each poll saw and carries out the one action each step returns,
 * until a step returns NET_ACT_NONE.
 *
 *   OPEN --first call over--> [running: LINKING --> ] DRAINING
 *   DRAINING --no task in a graph, or NET_DRAIN_S--> CLOSING
 *   CLOSING --the child closed it--> CLOSED
 *   ALWAYS (--wide=always): records until the trace ends.
 *
 * With a command to stop (paused), the net stops recording and the
 * command is paused at once; what the net met is linked only once it is
 * closed, and then the command resumes. Without one (running: system-wide,
 * -p, --no-pause) calls keep coming: what the net met is linked first,
 * beside the net, and one store then hands every new call to those links.
 */
#ifndef BG_NETFSM_H
#define BG_NETFSM_H

#include <stdbool.h>

/*
 * A graph under way when the net stops recording keeps its open calls'
 * returns on the net: it is closed once no task is inside a graph, or
 * NET_DRAIN_S after it stopped (a graph that has not ended by then loses
 * those exits).
 */
#define NET_DRAIN_S 2.0

enum net_state {
	NET_NONE, /* no net */
	NET_OPEN, /* recording until the first traced call is over */
	NET_ALWAYS, /* recording for the whole trace */
	NET_LINKING, /* running: what it met is linked beside it */
	NET_DRAINING, /* stopped recording; calls under way end on it */
	NET_CLOSING, /* a child process closes it */
	NET_CLOSED,
};

enum net_action {
	NET_ACT_NONE,
	NET_ACT_LINK_MET, /* running: links for what it met, beside it */
	NET_ACT_HAND_OVER, /* running: it stops recording; the links take new calls */
	NET_ACT_STOP_PAUSE, /* paused: it stops recording; the command is paused */
	NET_ACT_CLOSE, /* close it in a child (asynchronous) */
	NET_ACT_LINK_RESUME, /* paused: links for what it met; the command resumes */
	NET_ACT_RELEASE, /* running: what discovery found may be hooked again */
};

/* What a poll saw. */
struct net_input {
	bool first_over; /* the first traced call ended (or the BPF side said so) */
	bool child_exited; /* the command is gone: nothing to link for */
	bool active; /* a task is inside a graph */
	bool closed; /* the child closing the net is done */
	double now; /* seconds, any monotonic origin */
};

struct netfsm {
	enum net_state state;
	bool paused; /* a command to stop while the net closes */
	double stopped_at; /* when it stopped recording */
	/*
	 * Running (no command): while no task is inside a graph, the net
	 * closes wait_s after opened_at as if a first call had ended (0: it
	 * waits for one); waited_out says it did.
	 */
	double opened_at, wait_s;
	bool waited_out;
};

/* A net that records from now on (always: for the whole trace). */
void netfsm__open(struct netfsm *m, bool paused, bool always);
/* Running, it closes wait_s after now (0: never) if no traced call began. */
void netfsm__bound(struct netfsm *m, double now, double wait_s);
/* One transition for what the poll saw: the action to carry out now. */
enum net_action netfsm__step(struct netfsm *m, const struct net_input *in);
/* The net records (OPEN, ALWAYS, LINKING). */
bool netfsm__recording(const struct netfsm *m);
const char *netfsm__state_name(enum net_state s);

#endif
