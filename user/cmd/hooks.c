// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace's hooks as a whole: every one attached in its order, every
 * one released at the end, by a child process unless --wait-detach.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "attach.h"
#include "bpfobj.h"
#include "handoff.h"
#include "links.h"
#include "live.h"
#include "run.h"
#include "stop.h"

/* A tracepoint's program, loaded or not (NULL then): 0 or -errno, said. */
static int attach_tp(struct run *r, enum bpfobj_prog p, const char *tp, struct bpf_link **l)
{
	int err;

	if (bpfobj__prog_fd(r->obj, p) < 0)
		return 0;
	*l = bpf_program__attach(bpfobj__prog(r->obj, p));
	if (*l)
		return 0;
	err = -errno;
	fprintf(stderr, "bpfgraph: cannot attach to the %s tracepoint: %s\n", tp, strerror(-err));
	return err;
}

/*
 * Every hook: trampolines, kprobe links, the wide net, sched_switch, and
 * with --inherit the task creation and exit tracepoints (exit first: no
 * task is added that would not be let go of).
 */
int run__attach(struct run *r, const struct kernel *k)
{
	int err = attach__all(r->a);

	if (!err)
		err = live__attach_kprobes(r->live);
	if (!err && k->tier.wide && (err = live__attach_wide(r->live))) {
		/* Traced without it: the first call is then incomplete. */
		fprintf(stderr, "bpfgraph: cannot attach the wide net (%s): the first traced "
			"call shows only what was planned; --wide=off says so up front\n",
			strerror(-err));
		err = 0;
	}
	if (err)
		return err;
	/* Flushes a switched-out task's records (and does nosleep-time). */
	err = attach_tp(r, BGP_SWITCH, "sched_switch", &r->switch_link);
	if (!err)
		err = attach_tp(r, BGP_TASK_EXIT, "sched_process_exit", &r->exit_link);
	return err ?: attach_tp(r, BGP_FORK, "sched_process_fork", &r->fork_link);
}

/* Every hook goes: live's kprobes and wide net, the tracepoint, the trampolines. */
static void release_hooks(void *ctx)
{
	struct run *r = ctx;

	if (r->live)
		live__detach(r->live);
	bpf_link__destroy(r->fork_link);
	bpf_link__destroy(r->exit_link);
	bpf_link__destroy(r->switch_link);
	r->switch_link = r->fork_link = r->exit_link = NULL;
	if (r->a)
		attach__detach(r->a);
}

/*
 * How long bpfgraph waits for the child releasing the hooks before it
 * leaves it at work: small plans are released before bpfgraph exits.
 */
#define RELEASE_WAIT_S 1.5

/*
 * Once the trace is written: per-function hooks take seconds per hundred
 * to release (an RCU grace period each, serialised by ftrace), so a child
 * process does it (handoff.h) unless --wait-detach.
 */
void run__release(struct run *r, bool wait)
{
	double t0 = links__now();
	int done = -1;

	if (!wait) {
		stop__rearm();
		done = handoff__release(RELEASE_WAIT_S, &r->releaser, &r->spawn_s);
		if (done < 0)
			fprintf(stderr, "bpfgraph: cannot start a process to release the hooks "
				"(%s): released here\n", strerror(-done));
	}
	if (done < 0)
		release_hooks(r);
	r->handed_off = done >= 0;
	if (done > 0)
		r->releaser = 0;
	r->detach_s = links__now() - t0;
}
