// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace's hooks as a whole: every one attached in its order, every
 * one released at the end, by a child process unless --wait-detach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "attach.h"
#include "bpfobj.h"
#include "cli.h"
#include "ftnet.h"
#include "handoff.h"
#include "links.h"
#include "live.h"
#include "plan.h"
#include "run.h"
#include "stop.h"
#include "tracefs.h"

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
 * Where the kernel delivers bpfgraph's SIGSTOP to its command
 * (bg_pausing): made, once, before the command can first be stopped;
 * with the ftrace net once function_graph is on (run__attach_pause()),
 * so that ftrace runs their handler before its own, outside the graph
 * (registered before it, a -G arch_do_signal_or_restart drew kprobes'
 * dispatch on 6.1, and what the plan then hooked from it). Without them
 * the delivery's calls are traced as the command's (said).
 */
void run__attach_pause(struct run *r)
{
	static const char fn[] = "arch_do_signal_or_restart";
	int err = 0;

	if (r->pause_link[0] || bpfobj__prog_fd(r->obj, BGP_PAUSE_IN) < 0 ||
	    bpfobj__prog_fd(r->obj, BGP_PAUSE_OUT) < 0)
		return;
	/* The return first: an entry's mark never misses its clearing. */
	r->pause_link[1] = bpf_program__attach_kprobe(bpfobj__prog(r->obj, BGP_PAUSE_OUT), true, fn);
	if (!r->pause_link[1])
		err = -errno;
	if (!err) {
		r->pause_link[0] = bpf_program__attach_kprobe(bpfobj__prog(r->obj, BGP_PAUSE_IN),
							      false, fn);
		if (!r->pause_link[0])
			err = -errno;
	}
	if (!err)
		return;
	bpf_link__destroy(r->pause_link[1]);
	r->pause_link[1] = NULL;
	fprintf(stderr, "bpfgraph: no probe on %s (%s): what the command runs while "
		"bpfgraph stops it is traced as its own\n", fn, strerror(-err));
}

/*
 * Every hook: trampolines, kprobe links, the wide net, sched_switch, and
 * with --inherit the task creation and exit tracepoints (exit first: no
 * task is added that would not be let go of).
 */
static int attach_hooks(struct run *r, bool wide)
{
	int err = attach__all(r->a);

	if (!err)
		run__attach_pause(r);
	if (!err)
		err = live__attach_kprobes(r->live);
	if (!err && wide && (err = live__attach_wide(r->live))) {
		/* Traced without it: the first call is then incomplete. */
		fprintf(stderr, "bpfgraph: cannot attach the wide net (%s): the first traced "
			"call shows only what was planned; --wide=off says so up front\n",
			strerror(-err));
		err = 0;
	}
	if (err)
		return err;
	/*
	 * Flushes a switched-out task's records (and does nosleep-time), and
	 * keeps each CPU's bg_cpu_in: trusted from now on (no graph has begun
	 * yet: tracing is enabled after this, or its command is stopped).
	 */
	err = attach_tp(r, BGP_SWITCH, "sched_switch", &r->switch_link);
	if (!err && r->switch_link)
		*bpfobj__vars(r->obj)->cpu_in_on = 1;
	if (!err)
		err = attach_tp(r, BGP_TASK_EXIT, "sched_process_exit", &r->exit_link);
	return err ?: attach_tp(r, BGP_FORK, "sched_process_fork", &r->fork_link);
}

int run__attach(struct run *r, const struct kernel *k)
{
	return attach_hooks(r, k->tier.wide);
}

/* The hooks, once the ftrace net recorded the first call (live_ftnet.c). */
static int attach_after_net(void *ctx)
{
	return attach_hooks(ctx, false);
}

/*
 * What the ftrace net can record as bpfgraph would: function_graph's own
 * filters and options cover the command (set_ftrace_pid with its
 * children) or -p's tasks, -G, --max-depth and funcgraph-irqs; not -x,
 * -C, -n, nor what its events lack on some kernels (arguments, return
 * addresses; return values asked for, by -O or by a --compat that prints
 * them: before 6.5 its first call has none). Without a COMMAND (-p,
 * system-wide) nothing can wait while the first call's functions are
 * hooked, and the calls made meanwhile are not traced: taken there by
 * default only where the kernel has no wide net that draws the first call
 * whole (whole_net: kprobe.session links, the net's return hooks not
 * bounded by --wide-mem), else when asked (--wide=ftrace).
 */
bool run__ftnet_fits(const struct bg_opts *o, bool have_text, bool whole_net, char *why,
		     size_t cap)
{
	uint32_t asked = o->flags & o->flags_set;
	bool values = (asked & (BG_O_RETVAL | BG_O_RETVAL_HEX)) ||
		      (o->dialect_set && o->dialect >= BG_DIALECT_6_5 && (o->flags & BG_O_RETVAL));
	const char *no = NULL;

	if (o->wide != BG_WIDE_FIRST && o->wide != BG_WIDE_FTRACE)
		return false;
	if (!o->command_argc && whole_net && o->wide != BG_WIDE_FTRACE)
		no = "without a COMMAND the kprobe.session net records the first call (no calls "
		     "go untraced while its functions are hooked; --wide=ftrace asks for "
		     "function_graph)";
	else if (!o->command_argc && (o->inherit || o->thresh_ns || o->no_discovery))
		no = "not with --inherit, --thresh or --no-discovery";
	/* A COMMAND that will be paused after its first call (run_setup's pause_child). */
	else if (o->command_argc && (o->no_pause || o->inherit || o->thresh_ns || o->no_discovery))
		no = "the command must wait after its first traced call (not with --no-pause, "
		     "--inherit, --thresh or --no-discovery)";
	else if (!have_text)
		no = "kernel text is not readable (/proc/kcore): what the first call met "
		     "cannot be planned";
	else if (o->notrace.n || o->nr_cpus || o->comm[0] ||
		 (o->flags & (BG_O_ARGS | BG_O_RETADDR | BG_O_DETAIL)) || values)
		no = "function_graph cannot follow -x, -C, -n, arguments, return addresses "
		     "or return values as asked";
	if (no) {
		snprintf(why, cap, "%s", no);
		return false;
	}
	return !ftnet__usable(NULL, why, cap);
}

int run__attach_ftnet(struct run *r, const struct bg_opts *o, const struct kernel *k,
		      const struct plan *p)
{
	struct ftnet_opts fo = {
		.pid = r->s.child, .irqs = o->flags & BG_O_IRQS, .max_depth = o->max_depth,
		.pids = o->pids, .npids = o->nr_pids, .self = getpid(),
		.calls = r->s.child > 0 ? o->first_calls : 0,
	};
	char why[256], **graph;
	int err;

	/* A command is paused after its first call; without one the net runs on (live_ftnet.c). */
	if (!k->tier.ftnet || (r->s.child > 0 && !r->s.pause_child))
		return 0;
	/* Every entry function: one left out of set_graph_function is not traced at all. */
	graph = calloc(p->funcs.n + 1, sizeof(*graph));
	if (!graph)
		return -ENOMEM;
	for (size_t i = 0; i < p->funcs.n; i++)
		if (p->funcs.f[i].flags & BG_FN_GRAPH)
			graph[fo.ngraph++] = p->funcs.f[i].name;
	fo.graph = graph;
	/* The programs and maps exist (progs__fill); nothing is hooked. */
	if (fo.ngraph) {
		bpf_program__set_autoload(bpfobj__prog(r->obj, BGP_NET_ENTER), true);
		bpf_program__set_autoload(bpfobj__prog(r->obj, BGP_NET_LEAVE), true);
		bpf_program__set_autoload(bpfobj__prog(r->obj, BGP_NET_EXEC), true);
	}
	err = fo.ngraph ? attach__load(r->a) : 0;
	if (err || !fo.ngraph) {
		free(graph);
		return err;
	}
	err = live__open_ftnet(r->live, &fo, attach_after_net, r, why, sizeof(why));
	free(graph);
	if (err) {
		if (o->verbosity)
			fprintf(stderr, "bpfgraph: no ftrace net: %s; the first traced call shows "
				"what was planned\n", why);
		return 0;
	}
	if (o->verbosity) {
		bool own = false;

		tracefs__root(&own, NULL, 0);
		fprintf(stderr, "bpfgraph: ftrace net: function_graph records the first traced "
			"call; the plan's %zu functions are hooked once it is over%s\n",
			p->funcs.n, r->s.child > 0 ? "" : " (calls made meanwhile are not traced)");
		if (own)
			fprintf(stderr, "bpfgraph: tracefs is not mounted writable here: bpfgraph "
				"reaches it through a mount of its own that no directory holds, "
				"gone when it exits\n");
	}
	return 1;
}

/* Every hook goes: live's kprobes and wide net, the tracepoint, the trampolines. */
static void release_hooks(void *ctx)
{
	struct run *r = ctx;

	if (r->live)
		live__detach(r->live);
	bpf_link__destroy(r->fork_link);
	bpf_link__destroy(r->exit_link);
	if (r->switch_link)
		*bpfobj__vars(r->obj)->cpu_in_on = 0;
	bpf_link__destroy(r->switch_link);
	bpf_link__destroy(r->pause_link[0]);
	bpf_link__destroy(r->pause_link[1]);
	r->switch_link = r->fork_link = r->exit_link = NULL;
	r->pause_link[0] = r->pause_link[1] = NULL;
	if (r->a)
		attach__detach(r->a);
	r->obj = NULL; /* a's, destroyed with its links */
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
