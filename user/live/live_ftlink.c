// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hooks made once the ftrace net's first call is over
 * (live_ftnet.c): what the call met is planned, then hooked with the plan
 * and the direct callees of what it met, the command paused meanwhile;
 * without a command, what the call ran first, with the BPF side off, and
 * the rest once it records.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attach.h"
#include "bpfobj.h"
#include "clock.h"
#include "hooks.h"
#include "links.h"
#include "live.h"
#include "live_int.h"
#include "session.h"
#include "stop.h"

/*
 * What the net met and the plan has not: planned now, and hooked first,
 * so that the plan's kprobe stage (which takes every function of the
 * table no trampoline holds) finds them hooked; those fentry refuses it
 * takes as the plan's. With a trampoline pair per function they join the
 * plan's batch instead (BG_FN_LINK), whose verifying runs ahead of its
 * linking, while the command waits or the trace has its gap. Returns how
 * many cannot be hooked at all.
 */
static unsigned int hook_met(struct live *l, bool batch)
{
	unsigned int cannot = 0;

	for (size_t i = 0; i < l->ft_nmet && !stop__signal(); i++) {
		uint32_t idx = l->ft_met[i];
		struct bg_func *f = &l->p->funcs.f[idx];
		const struct ksym *s = ksyms__find_addr(l->po.ks, f->addr);
		enum plan_skip why;

		if (!s || plan__adopt(l->p, &l->po, s, (int)idx, &why) < 0) {
			cannot++;
			continue;
		}
		f = &l->p->funcs.f[idx];
		f->flags &= ~BG_FN_INFERRED;
		if (batch)
			f->flags |= BG_FN_LINK;
		/*
		 * On a kprobe tier the plan's kprobe stage is still to come (no
		 * backend yet: live_hook() would fail): it takes every
		 * BG_FN_KPROBE function of the table, these too.
		 */
		if (batch || ((f->flags & BG_FN_KPROBE) && !l->kp) || !live_hook(l, idx))
			l->wide_met++;
	}
	return cannot;
}

/*
 * Without a COMMAND every second of hooking is a gap in the trace: where
 * the plan is hooked a function at a time (a trampoline pair or a kprobe
 * each), its functions the first call did not run are hooked after the
 * hand-over (link_later()), with the direct callees. Not the entry
 * functions, interrupt entries, kprobes or call-site functions. Links that
 * take the whole plan at once (kprobe.multi, tracing_multi) take them
 * too. Returns how many wait.
 */
static unsigned int defer_unran(struct live *l)
{
	unsigned int n = 0;

	if (l->tier.hook != BG_HOOK_FENTRY && l->tier.hook != BG_HOOK_KPROBE)
		return 0;
	for (size_t i = 0; i < l->p->funcs.n; i++) {
		struct bg_func *f = &l->p->funcs.f[i];

		if (f->flags & (BG_FN_FTRAN | BG_FN_GRAPH | BG_FN_IRQ | BG_FN_KPROBE |
				BG_FN_CALLSITE | BG_FN_INFERRED | BG_FN_NOTRACE))
			continue;
		f->flags |= BG_FN_LATER;
		n++;
	}
	return n;
}

/*
 * The direct callees of what the net met (a later call that branches
 * elsewhere is then drawn as completely as the first; their own callees
 * are found when they run, as with the wide net). Returns how many
 * refused trampolines.
 */
static unsigned int link_callees(struct live *l)
{
	unsigned int before = l->attached, failed = 0;

	if (l->s->on_expand) {
		for (size_t i = 0; i < l->ft_nmet && !stop__signal(); i++) {
			struct bg_func *f = &l->p->funcs.f[l->ft_met[i]];
			const struct ksym *s = ksyms__find_addr(l->po.ks, f->addr);

			if (f->flags & (BG_FN_EXPANDED | BG_FN_INFERRED))
				continue;
			f->flags |= BG_FN_EXPANDED;
			if (s && s->addr == f->addr)
				live_attach_callees(l, s, true);
		}
		failed = hooks__flush(&l->hooks);
	}
	live_burst_end(l);
	l->met_callees += l->attached - before;
	return failed;
}

/* What the linking after the net did, for -v. */
struct linked {
	double t0, plan_s; /* its start, planning what the net met */
	unsigned int cannot, failed; /* cannot be hooked; refused trampolines */
};

/*
 * The net is over and the command paused: what it met and the plan's
 * hooks (but what defer_unran() left for later), and with callees the
 * direct callees of what it met.
 */
static void link_all(struct live *l, bool callees, struct linked *k)
{
	unsigned int failed = l->failed;
	double t = links__now();
	bool batch = attach__clones(l->a);
	int err;

	k->cannot = hook_met(l, batch);
	k->plan_s = links__now() - t;
	err = l->link_plan(l->link_ctx);
	/* The batch's refusals went to kprobes there (hooks__hand_refused()). */
	for (size_t i = 0; batch && i < l->ft_nmet; i++)
		k->failed += !!(l->p->funcs.f[l->ft_met[i]].flags & BG_FN_KPROBE);
	/*
	 * On kprobe tiers the plan's links took what the net met (hook_met()
	 * leaves it to them, live_hook() does not run): their code ranges,
	 * which tell a kprobe.session return its function without the
	 * kernel's search of the link's addresses (session_frame()), are set
	 * here; the plan's own were set at the start.
	 */
	for (size_t i = 0; i < l->ft_nmet; i++)
		live_frange_set(l->obj, l->ft_met[i], &l->p->funcs.f[l->ft_met[i]]);
	/* -EINTR: a stop request ended the linking, the trace is over. */
	if (err && err != -EINTR)
		fprintf(stderr, "bpfgraph: cannot hook the plan once the first call was over: %s\n",
			strerror(-err));
	if (l->probe_later.due) {
		l->probe_later.due = false;
		live__probe_calls(l, l->probe_later.ks, l->probe_later.kt, l->probe_later.indirect);
	}
	k->failed += l->failed - failed + hooks__flush(&l->hooks);
	k->failed += callees ? link_callees(l) : 0;
}

static void print_linked(const struct live *l, const struct linked *k)
{
	if (!l->verbose)
		return;
	if (l->net.waited_out)
		fprintf(stderr, "bpfgraph: function_graph stopped with no traced call (--wide-wait): ");
	else if (l->ft_ends > 1)
		fprintf(stderr, "bpfgraph: first %u traced calls over (--first-calls): ", l->ft_ends);
	else
		fprintf(stderr, "bpfgraph: first traced call over: ");
	fprintf(stderr, "function_graph recorded %llu records of %zu functions; %u of them not "
		"in the plan (planned in %.2f s), the plan and %u direct callees of them linked "
		"(%u more cannot be hooked; %u %s), %.2f s\n",
		(unsigned long long)l->ft_records, l->ft_n, l->wide_met, k->plan_s,
		l->met_callees, k->cannot, k->failed,
		tier__trampolines(&l->tier) ? "refused trampolines, left to kprobes" :
					      "refused by the kernel",
		links__now() - k->t0);
}

/*
 * What defer_unran() left, then what discovery found in the first call's
 * records (the edges of the plan it crossed, expanded), then the direct
 * callees of what the net met.
 */
static unsigned int link_later(struct live *l)
{
	unsigned int failed = l->failed, before;

	for (size_t i = 0; i < l->p->funcs.n && !stop__signal(); i++) {
		struct bg_func *f = &l->p->funcs.f[i];

		if (!(f->flags & BG_FN_LATER))
			continue;
		f->flags &= ~BG_FN_LATER;
		live_hook(l, (uint32_t)i);
	}
	failed = l->failed - failed + hooks__flush(&l->hooks);
	before = l->attached;
	l->s->hold_growth = false;
	session__grow_now(l->s);
	l->met_callees = l->attached - before;
	return failed + link_callees(l);
}

/*
 * Without a command (-p, system-wide) nothing waits: function_graph stops
 * once the first call is over (what it recorded is read to its end), or
 * once --wide-wait passed with no call begun (netfsm.c's waited_out()), the
 * BPF side records nothing until what the first call ran is hooked, and
 * the calls begun in between are not traced, which is said; the rest of
 * the plan and the callees are hooked after, while it records. Recording
 * on meanwhile was tried: function_graph's hook on every kernel function
 * made the hooking (planning what the first call met reads its code) five
 * times slower on 6.1 under emulation, narrowing it to the functions to
 * hook took as long again, and its trampolines' own calls
 * (rcu_read_lock(), migrate_disable()) had to be left out of every graph
 * (docs/kernels.md).
 */
void live_ft_link_running(struct live *l)
{
	const struct bpfobj_vars *v = bpfobj__vars(l->obj);
	uint64_t from = mono_ns(), to;
	struct linked k = { .t0 = links__now() };
	unsigned int later;

	/* Said at once, without -v: the plan's hooking may take seconds. */
	if (l->net.waited_out)
		fprintf(stderr, "bpfgraph: no traced call began in function_graph's first %.1f s: "
			"it is stopped (it slows every task while on; --wide-wait), and the plan "
			"traces the calls that come later\n", l->net.wait_s);
	live_ft_close(l);
	if (v)
		__atomic_store_n(v->enabled, 0, __ATOMIC_RELEASE);
	/* No call ran: nothing to hook first, the whole plan before the calls go on. */
	later = l->net.waited_out ? 0 : defer_unran(l);
	link_all(l, false, &k);
	to = mono_ns();
	if (v)
		__atomic_store_n(v->enabled, 1, __ATOMIC_RELEASE);
	/* On the records' clock (funcgraph-abstime shows it). */
	fprintf(stderr, "bpfgraph: %s; calls begun from %.6f to %.6f (%.1f s, while its "
		"functions were hooked) are not traced%s\n",
		l->net.waited_out ? "the plan is hooked" : "function_graph recorded the first traced call",
		(double)from / 1e9, (double)to / 1e9, (double)(to - from) / 1e9,
		stop__signal() ? " (the trace ended meanwhile)" : "");
	if (l->verbose && !l->net.waited_out)
		fprintf(stderr, "bpfgraph: %u functions of the plan the first call did not run, "
			"and the direct callees of what it met, are hooked while the trace "
			"records\n", later);
	k.failed += link_later(l);
	print_linked(l, &k);
}

void live_ft_link_paused(struct live *l)
{
	struct linked k = { .t0 = links__now() };

	link_all(l, true, &k);
	print_linked(l, &k);
}
