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

/* Every hook: trampolines, kprobe links, the wide net, sched_switch. */
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
	r->switch_link = bpf_program__attach(bpfobj__prog(r->obj, BGP_SWITCH));
	if (!r->switch_link) {
		err = -errno;
		fprintf(stderr, "bpfgraph: cannot attach to the sched_switch tracepoint: %s\n",
			strerror(-err));
	}
	return err;
}

/* Every hook goes: live's kprobes and wide net, the tracepoint, the trampolines. */
static void release_hooks(void *ctx)
{
	struct run *r = ctx;

	if (r->live)
		live__detach(r->live);
	bpf_link__destroy(r->switch_link);
	r->switch_link = NULL;
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
		done = handoff__release(release_hooks, r, RELEASE_WAIT_S, &r->releaser);
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
