// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live discovery's part in the wide net (live.h): the functions it meets
 * get table indexes as their records come, links of their own and their
 * direct callees' when the first traced call is over; the net's state
 * machine (netfsm.h) is driven from each poll.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpfobj.h"
#include "hooks.h"
#include "kprobe.h"
#include "links.h"
#include "live.h"
#include "live_int.h"
#include "netfsm.h"
#include "session.h"
#include "stop.h"
#include "wide.h"

/*
 * A function the wide net found: a function table index for its records,
 * and a link of its own when the net is narrowed (queued now).
 */
static int map_wide(void *ctx, uint32_t func)
{
	struct live *l = ctx;
	uint32_t wi = func & ~BG_FUNC_WIDE;
	const struct ksym *s = wide__sym(l->w, wi);
	int idx;

	if (!s)
		return -ENOENT;
	if (l->wmap[wi] >= 0)
		return l->wmap[wi];
	/* Cheap: this runs for each new function while the net slows everything. */
	idx = plan__add_wide(l->p, &l->po, s);
	if (idx == -EEXIST)
		idx = functab__add(&l->p->funcs, s->name, s->module, s->addr, s->size);
	if (idx < 0)
		return idx;
	l->wmap[wi] = idx;
	l->wide_met++;
	return idx;
}

/*
 * What the net met gets links of its own (queued; flushed by the caller),
 * and so do their direct callees the first call did not reach: a later
 * call that takes another branch (a page freed where the first call's
 * was cached, a capability check the first mapping skipped) is then
 * drawn as completely as the first. Their own callees are found when
 * they run (on_expand). With the net closed (a command, paused) that is
 * done now; while it still records (no command) every system call of
 * ours runs under it, tens of times slower (reading the callees' code
 * from /proc/kcore for 48 functions took 13 s on 6.12): the met
 * functions are left to live discovery, which expands each at its next
 * call. The links may come while the net still records: they ignore
 * their calls until it is off (BG_CK_NET).
 */
static void link_met(struct live *l, bool net_closed)
{
	unsigned int before = l->attached;

	/*
	 * A stop request ends the choosing too: each function's range is a
	 * system call, slow under the net.
	 */
	for (size_t wi = 0; wi < wide__stats(l->w)->funcs && !stop__signal(); wi++) {
		int idx = l->wmap[wi];
		struct bg_func *f;

		if (idx < 0)
			continue;
		f = &l->p->funcs.f[idx];
		/* __rcu_read_lock, the locks: the keep link, then call sites (rcusites.c). */
		if ((f->flags & BG_FN_CALLSITE) || (!f->module && plan__hook_only(f->name)))
			continue;
		if (!l->kp || kprobes__attached(l->kp, (uint32_t)idx))
			continue;
		f->flags |= BG_FN_NET;
		if (!hooks__add_kprobe(&l->hooks, (uint32_t)idx))
			live_frange_set(l->obj, (uint32_t)idx, f);
	}
	/* --no-discovery: the plan and what the net met, nothing found beyond. */
	if (!net_closed || !l->s || !l->s->on_expand)
		return;
	for (size_t wi = 0; wi < wide__stats(l->w)->funcs && !stop__signal(); wi++) {
		int idx = l->wmap[wi];
		struct bg_func *f;
		const struct ksym *s;

		if (idx < 0)
			continue;
		f = &l->p->funcs.f[idx];
		if ((f->flags & (BG_FN_EXPANDED | BG_FN_CALLSITE)) ||
		    (!f->module && plan__hook_only(f->name)))
			continue;
		f->flags |= BG_FN_EXPANDED;
		s = ksyms__find_addr(l->po.ks, f->addr);
		if (s && s->addr == f->addr)
			live_attach_callees(l, s, true);
	}
	l->met_callees += l->attached - before;
}

/*
 * The functions the net met get links of their own now; -v says when,
 * counted from since (the first graph's end, or when it was seen).
 */
static void link_met_now(struct live *l, const char *when, double since, bool net_closed)
{
	double t0 = links__now(), t_met, t_flush;
	unsigned int failed;
	int err;

	/*
	 * A trace asked to end records nothing more: each link below can
	 * take seconds while the net records (stop_bounds' 'dur' on 6.12
	 * waited 5.8 s for them after -d's end).
	 */
	if (stop__signal())
		return;
	link_met(l, net_closed);
	t_met = links__now();
	if (stop__signal())
		return;
	failed = hooks__flush(&l->hooks);
	t_flush = links__now();
	if (stop__signal())
		return;
	err = wide__narrow(l->w, l->wmap,
			   plan__calls(l->p, "__rcu_read_lock") || plan__calls(l->p, "__rcu_read_unlock"),
			   bpfobj__prog_fd(l->obj, BGP_MENTRY));
	if (err)
		fprintf(stderr, "bpfgraph: cannot keep __rcu_read_lock/unlock hooked: %s\n",
			strerror(-err));
	if (l->verbose > 1)
		fprintf(stderr, "bpfgraph: wide net: what it met: %.2f s to choose, %.2f s to "
			"link, %.2f s to narrow the net\n", t_met - t0, t_flush - t_met,
			links__now() - t_flush);
	if (l->verbose && l->net.waited_out)
		fprintf(stderr, "bpfgraph: wide net: closed with no traced call (--wide-wait), "
			"%.2f s of linking\n", links__now() - t0);
	else if (l->verbose && net_closed)
		fprintf(stderr, "bpfgraph: first traced call over: %u functions the wide net met "
			"linked, and %u direct callees of them (%u refused) %s, %.2f s after it "
			"(%.2f s of it linking)\n", l->wide_met, l->met_callees, failed, when,
			links__now() - since, links__now() - t0);
	else if (l->verbose)
		fprintf(stderr, "bpfgraph: first traced call over: %u functions the wide net met "
			"linked (%u refused; their direct callees: at their next call) %s, %.2f s "
			"after it (%.2f s of it linking)\n", l->wide_met, failed, when,
			links__now() - since, links__now() - t0);
}

/* The first graph's end, on the BPF side's clock (CLOCK_MONOTONIC), or now. */
static double first_end(const struct live *l)
{
	uint64_t ns = __atomic_load_n(bpfobj__vars(l->obj)->wide_ended, __ATOMIC_ACQUIRE);

	return ns ? (double)ns / 1e9 : links__now();
}

/*
 * Running (netfsm.h): the hand-over is one store. Should this process be
 * too slow to make it (starved under a load), the BPF side stopped the
 * net by itself BG_WIDE_GRACE_NS after the first graph: say what that
 * cost. What the net met only in the graphs of the hand-over is not
 * linked: such a link, made once the net was gone, held the reader for
 * a long time under a load (docs/kernels.md, "The wide net"); live
 * discovery finds what later calls reach through pointers.
 */
static void hand_over(struct live *l)
{
	double late;

	__atomic_store_n(bpfobj__vars(l->obj)->wide_on, 0, __ATOMIC_RELEASE);
	late = links__now() - l->first_end - BG_WIDE_GRACE_NS / 1e9;
	if (late > 0)
		fprintf(stderr, "bpfgraph: the wide net stopped recording %.1f s after the "
			"first traced call, before what it met was linked: calls that "
			"began in the %.2f s after that lack those functions\n",
			BG_WIDE_GRACE_NS / 1e9, late);
}

void live_net_resume(struct live *l)
{
	double t0 = links__now();
	unsigned int before = l->attached;

	l->s->pause_child = true;
	l->s->hold_growth = false;
	/*
	 * What the first call ran at the edge of what is hooked (planned
	 * functions whose callees were not, callers found) is expanded before
	 * the command goes on: a later poll would come after its next calls
	 * had begun, a workload's first call right after exec's own.
	 */
	session__grow_now(l->s);
	if (l->verbose && l->attached != before)
		fprintf(stderr, "bpfgraph: %u functions the first call's records led to "
			"hooked before the command went on, %.2f s\n", l->attached - before,
			links__now() - t0);
	/* Stopped by us, or at the end of its first call (bg_wide_once). */
	session__pause(l->s, false);
}

/* Carries out one of the net's actions (netfsm.h). */
static void net_act(struct live *l, enum net_action act)
{
	switch (act) {
	case NET_ACT_LINK_MET:
		/* Said without -v: the first call will be drawn from the plan. */
		if (l->net.waited_out)
			fprintf(stderr, "bpfgraph: no traced call began in the wide net's first "
				"%.1f s: it is closed (it slows every task while open); the first "
				"call is drawn from the plan and what discovery adds (--wide-wait)\n",
				l->net.wait_s);
		l->first_end = first_end(l);
		link_met_now(l, "beside the net", l->first_end, false);
		break;
	case NET_ACT_HAND_OVER:
		hand_over(l);
		break;
	case NET_ACT_STOP_PAUSE:
		__atomic_store_n(bpfobj__vars(l->obj)->wide_on, 0, __ATOMIC_RELEASE);
		session__pause(l->s, true);
		break;
	case NET_ACT_CLOSE:
		wide__detach_async(l->w);
		break;
	case NET_ACT_LINK_RESUME:
		link_met_now(l, "once the net closed", l->net.stopped_at, true);
		live_net_resume(l);
		/* The net is gone: loading and placing run at full speed now. */
		rcusites__begin(l);
		break;
	case NET_ACT_RELEASE:
		l->s->hold_growth = false;
		rcusites__begin(l);
		break;
	case NET_ACT_NONE:
		break;
	}
}

static void on_poll(void *ctx, uint64_t graphs_done)
{
	struct live *l = ctx;
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	struct net_input in = {
		/*
		 * The BPF side turns the net off at the end of the first graph
		 * of a command, or marks that end (no command): seen at the
		 * poll before, the graph's records were read by this one, even
		 * by a reader that lags.
		 */
		.first_over = graphs_done || !__atomic_load_n(v->wide_on, __ATOMIC_ACQUIRE) ||
			      l->ended_seen,
		/* Nothing to link for when the command is gone: the trace ends now. */
		.child_exited = l->net.state == NET_OPEN && session__child_exited(l->s),
	};
	enum net_action act;
	double t;

	l->ended_seen = __atomic_load_n(v->wide_ended, __ATOMIC_ACQUIRE) != 0;
	do {
		in.now = links__now();
		in.active = __atomic_load_n(v->active, __ATOMIC_ACQUIRE) != 0;
		in.closed = l->net.state == NET_CLOSING && wide__detached(l->w);
		act = netfsm__step(&l->net, &in);
		net_act(l, act);
		/* -vv: where the net's steps go (a stop waits for the one under way). */
		if (l->verbose > 1 && act != NET_ACT_NONE)
			fprintf(stderr, "bpfgraph: wide net: now %s, %.2f s for the step\n",
				netfsm__state_name(l->net.state), links__now() - in.now);
	} while (act != NET_ACT_NONE);
	t = links__now();
	rcusites__step(l);
	kprobes__retire(l->kp);
	if (l->verbose > 1 && links__now() - t > 0.5)
		fprintf(stderr, "bpfgraph: wide net: %.2f s for the call sites' step and the "
			"links retired\n", links__now() - t);
}

/*
 * The trace is over: a net still open (narrowing under way, --wide=always)
 * goes now, in a child process, while the rest of the records is read:
 * under a load it makes the reader about ten times slower, and its close
 * takes seconds (docs/performance.md, "The wide net under a load").
 */
static void on_stopped(void *ctx)
{
	struct live *l = ctx;

	rcusites__stop(l);
	if (wide__attached(l->w))
		wide__detach_async(l->w);
}

/*
 * Whether the net runs: a few system calls of ours must reach it. The
 * kernel may take a kprobe.multi link over an address ftrace cannot hook
 * and hook none of its addresses (7.3), where it refuses the link on
 * 6.12: a list read from kernel text can hold such an address (an inline
 * helper's copy, notrace, that starts with a static branch).
 */
static bool wide_works(struct live *l)
{
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	bool seen = false;

	*v->wide_probed = 0;
	__atomic_store_n(v->wide_probe_tgid, (uint32_t)getpid(), __ATOMIC_RELEASE);
	for (int i = 0; i < 3 && !seen; i++) {
		syscall(SYS_getppid);
		syscall(SYS_getuid);
		syscall(SYS_getgid);
		seen = __atomic_load_n(v->wide_probed, __ATOMIC_ACQUIRE) != 0;
	}
	__atomic_store_n(v->wide_probe_tgid, 0, __ATOMIC_RELEASE);
	return seen;
}

int live__attach_wide(struct live *l)
{
	const struct wide_stats *ws;
	int err;

	if (!l->w)
		return -ENOENT;
	err = wide__attach(l->w, &l->p->funcs, bpfobj__prog_fd(l->obj, BGP_WIDE),
			   bpfobj__prog_fd(l->obj, BGP_MENTRY), bpfobj__map_fd(l->obj, BGM_WRANGES),
			   *bpfobj__vars(l->obj)->gen & 0xff);
	ws = wide__stats(l->w);
	l->wmap = err ? NULL : malloc((ws->funcs + 1) * sizeof(*l->wmap));
	if (!err && !l->wmap)
		err = -ENOMEM;
	if (err == -ENOSPC)
		fprintf(stderr, "bpfgraph: the wide net's return hooks take more than "
			"--wide-mem allows for even one function on this machine's %d CPUs\n",
			libbpf_num_possible_cpus());
	if (err) {
		live_free_wide(l, true);
		return err;
	}
	memset(l->wmap, 0xff, (ws->funcs + 1) * sizeof(*l->wmap));
	if (!wide_works(l)) {
		fprintf(stderr, "bpfgraph: the kernel took the wide net's link but it hooks "
			"nothing (%zu functions from %s: one of them, ftrace cannot hook?)\n",
			ws->funcs, ws->source);
		live_free_wide(l, true);
		return -ENODATA;
	}
	netfsm__open(&l->net, false, l->wide_always); /* paused: live__bind() */
	netfsm__bound(&l->net, links__now(), l->wide_wait_s);
	*bpfobj__vars(l->obj)->wide_on = 1;
	if (l->verbose && ws->records < 0)
		fprintf(stderr, "bpfgraph: wide net: ftrace's records not read from kernel memory "
			"(%s)\n", strerror((int)-ws->records));
	if (l->verbose) {
		char recs[32] = "", retry[96] = "";

		if (ws->records > 0)
			snprintf(recs, sizeof(recs), ": %ld records", ws->records);
		if (ws->retried)
			snprintf(retry, sizeof(retry), " (the kernel refused %u of them once: %s)",
				 ws->retried, strerror(-ws->refused));
		fprintf(stderr, "bpfgraph: wide net: %zu functions (from %s%s; %zu on the tracer's "
			"own path left out) in %d links, %.2f s to list, %.2f s to attach%s\n",
			ws->funcs, ws->source, recs, ws->denied, ws->links, ws->build_s,
			ws->attach_s, retry);
	}
	/*
	 * Said without -v: a first call through the entry-only part can come
	 * out nested wrong, and --wide-mem is what the user can change.
	 */
	if (ws->entry_only) {
		char whole[48] = "more than the kernel allows";

		if (ws->whole_bytes != UINT64_MAX)
			snprintf(whole, sizeof(whole), "%.0f MiB", ws->whole_bytes / 1048576.0);
		fprintf(stderr, "bpfgraph: wide net: %zu of its %zu functions without their "
			"return hooks (--wide-mem; on %u CPU%s all would take %s): the first "
			"traced call may show some calls at the wrong depth\n", ws->entry_only,
			ws->funcs, ws->ncpus, ws->ncpus == 1 ? "" : "s", whole);
	}
	if (l->verbose && ws->pool_bytes)
		fprintf(stderr, "bpfgraph: wide net: the kernel's return hooks for %zu of them "
			"take about %.1f MiB (--wide-mem); %zu hooked at their entry only (%zu "
			"functions' code read to choose, %.2f s%s)\n", ws->funcs - ws->entry_only,
			ws->pool_bytes / 1048576.0, ws->entry_only, ws->decoded, ws->choose_s,
			ws->entry_only && !ws->ranges ? "; their ranges unknown: their callees are "
			"drawn beside them" : "");
	return 0;
}

void live_free_wide(struct live *l, bool wait)
{
	if (!l->w)
		return;
	if (wait)
		wide__detach(l->w);
	if (l->verbose && wait && wide__stats(l->w)->funcs)
		fprintf(stderr, "bpfgraph: wide net: %u functions met, closed in %.2f s (%.2f s "
			"of it to start the closing process)\n", l->wide_met,
			wide__stats(l->w)->detach_s, wide__stats(l->w)->closer_spawn_s);
	wide__free(l->w);
	l->w = NULL;
	free(l->wmap);
	l->wmap = NULL;
}

void live_net_bind(struct session *s)
{
	s->map_func = map_wide;
	s->on_poll = on_poll;
	s->on_stopped = on_stopped;
}
