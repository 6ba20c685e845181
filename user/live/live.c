// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live discovery and the hooks beside the trampolines: see live.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "discover.h"
#include "hooks.h"
#include "icall.h"
#include "kprobe.h"
#include "links.h"
#include "live.h"
#include "live_int.h"
#include "netfsm.h"
#include "optprobe.h"
#include "bpfobj.h"
#include "session.h"
#include "stop.h"
#include "wide.h"

/*
 * Function idx is probed where the functions probed from now on call it,
 * and where traced functions call it through a pointer (bg_targets).
 */
static int wrap(struct live *l, uint32_t idx)
{
	const struct bg_func *f = &l->p->funcs.f[idx];
	__u32 v = BG_TARGET_WRAPPED(idx);
	struct bpfobj *s;
	int err;

	if (!l->ic || !(s = bpfobj__probes(l->obj)))
		return -ENOENT;
	err = icall__wrap(l->ic, bpfobj__prog(s, BGP_KENTRY), bpfobj__prog(s, BGP_KEXIT), f->addr,
			  idx);
	/* Called through a pointer, too: the indirect call site's probe shows it. */
	if (!err && bpf_map_update_elem(bpfobj__map_fd(l->obj, BGM_TARGETS), &f->addr, &v,
					BPF_ANY))
		err = -errno;
	return err;
}

/*
 * Where function idx's calls return to (struct bg_frange), for the entry
 * programs' untraced-caller check. A failure (an index past the map's
 * size) only leaves that function's callers to be found one per call.
 */
void live_frange_set(struct bpfobj *obj, uint32_t idx, const struct bg_func *f)
{
	struct bg_frange r = { .lo = f->addr, .hi = f->addr + f->size };

	if (f->size)
		bpf_map_update_elem(bpfobj__map_fd(obj, BGM_FRANGES), &idx, &r, BPF_ANY);
}

/*
 * The functab index of s when it was attached now; -1 when it was known
 * already or cannot be (*why says which) or its attach failed.
 */
static int attach_live(struct live *l, const struct ksym *s, bool report,
		       enum plan_skip *why)
{
	int idx;

	*why = PS_NONE;
	idx = plan__add_live(l->p, &l->po, s, why);
	if (idx == -EEXIST)
		return -1;
	if (idx < 0) {
		if (!report)
			return -1;
		l->skipped++;
		if (l->verbose)
			fprintf(stderr, "bpfgraph: traced calls pass through untraced '%s' (%s)\n",
				s->name, plan__skip_text(*why));
		return -1;
	}
	if (l->p->funcs.f[idx].flags & BG_FN_CALLSITE)
		return wrap(l, (uint32_t)idx) ? -1 : idx;
	if (live_hook(l, (uint32_t)idx))
		return -1;
	if (l->verbose)
		fprintf(stderr, "bpfgraph: attached '%s' while tracing%s\n", s->name,
			report ? ": it calls traced functions" : "");
	return idx;
}

/*
 * Probes discovery places in one burst past which the kprobe optimizer
 * is held off for the rest of it: each change of the setting is a line
 * in the kernel's log and a pass over every kprobe of the machine, not
 * worth it for a few.
 */
#define LIVE_OPT_AFTER 8

static unsigned int probes_placed(const struct icall *ic)
{
	const struct icall_stats *st = icall__stats(ic);

	/* a call site has a kprobe on the call and one after it (a lazy one fewer) */
	return st->probes + 2 * st->cprobed;
}

void live_burst_probe(struct live *l)
{
	unsigned int n;

	if (!l->ic)
		return;
	n = probes_placed(l->ic);
	if (!l->burst.on) {
		l->burst.on = true;
		l->burst.tried = false;
		l->burst.from = n;
		l->burst.t0 = links__now();
	} else if (!l->burst.tried && n - l->burst.from >= LIVE_OPT_AFTER) {
		l->burst.tried = true;
		l->burst.opt_err = optprobe__hold(&l->burst.opt);
	}
}

void live_burst_end(struct live *l)
{
	if (!l->burst.on)
		return;
	l->burst.on = false;
	optprobe__release(&l->burst.opt);
	if (l->verbose && l->burst.tried && l->ic)
		fprintf(stderr, "bpfgraph: discovery placed %u probes in %.2f s (kprobe "
			"optimization %s after the first %d)\n",
			probes_placed(l->ic) - l->burst.from, links__now() - l->burst.t0,
			optprobe__text(l->burst.opt_err), LIVE_OPT_AFTER);
}

int live_hook(struct live *l, uint32_t idx)
{
	int err = hooks__add(&l->hooks, idx);

	if (err) {
		l->failed++;
		return err;
	}
	l->attached++;
	live_frange_set(l->obj, idx, &l->p->funcs.f[idx]);
	if (l->ic) {
		live_burst_probe(l);
		icall__probe(l->ic, idx, &l->p->funcs.f[idx]);
	}
	return 0;
}

/*
 * Live discovery goes one level down from what it finds, too: up to this
 * many direct callees (__tcp_transmit_skb calls more than 64; a cap
 * leaves the last ones out for good).
 */
#define LIVE_CALLEES 512

/*
 * s has no fentry site: function_graph shows what it calls in its place,
 * __rcu_read_lock at its call sites too (icall__probe_calls).
 */
static void probe_untraced_calls(struct icall *ic, const struct ksym *s)
{
	struct bg_func f = { .name = (char *)s->name, .addr = s->addr, .size = s->size };

	if (ic)
		icall__probe_calls(ic, &f);
}

/* The same, found by discovery: part of its burst (live_burst_probe). */
static void discover_untraced_calls(struct live *l, const struct ksym *s)
{
	live_burst_probe(l);
	probe_untraced_calls(l->ic, s);
}

/*
 * Attach the direct callees of s; through a callee that cannot be
 * attached (no fentry site; no BTF where kprobes are not available), one
 * level further, since function_graph shows its callees in its place.
 * Dozens of attaches (tens of ms each per trampoline): a stop request
 * ends them, the trace is over.
 */
void live_attach_callees(struct live *l, const struct ksym *s, bool through)
{
	const struct ksym *callees[LIVE_CALLEES];
	enum plan_skip why;
	int n = plan__callees(&l->po, s, callees, LIVE_CALLEES);

	for (int i = 0; i < n && !stop__signal(); i++) {
		attach_live(l, callees[i], false, &why);
		/* Not only when looking through: it is considered once. */
		if (why == PS_NOT_TRACEABLE)
			discover_untraced_calls(l, callees[i]);
		if (through && (why == PS_NO_BTF || why == PS_NOT_TRACEABLE))
			live_attach_callees(l, callees[i], false);
	}
}

/*
 * kprobe.multi link pairs beyond which they are merged into one
 * (kprobes__merge()): a pair hooks each of its functions twice, and a
 * function hooked more than once sends every call of it through ftrace's
 * walk of all its hooks, so each pair costs every hooked call. A merge
 * re-attaches everything, seconds under emulation: not after every burst.
 */
#define LIVE_MAX_PAIRS 4
/*
 * kprobe.session links beyond which they are merged. Each hooks its own
 * functions once: ftrace calls a function hooked once straight through
 * its hook's own trampoline, however many hooks there are, so separate
 * links cost a traced call nothing more (the tier bench on 6.12: 1.29-1.30x
 * function_graph's with 9-13 links and no merge, as with 11 links and two
 * merges). A merge does cost: a task inside a traced call across it keeps
 * the replaced links until it returns, and while they stay every call of
 * their functions runs each of them (unrelated work 10.7x untraced
 * instead of 3.7x with a `-p` task blocked in a traced call). The bound
 * keeps ftrace's list of hooks short for the functions the wide net
 * (--wide=always) hooks as well, where that walk is taken.
 */
#define LIVE_MAX_SESSIONS 32

/*
 * A burst of discovery is over (the command, if paused, is still
 * stopped): with kprobe.multi, what it found goes in one link pair or
 * session link (a function the kernel refused then counts as failed, not
 * attached).
 */
static void on_settled(void *ctx)
{
	struct live *l = ctx;
	unsigned int n;

	/* fentry.multi: what the burst found, one link pair (before the kprobes it refused). */
	n = hooks__flush(&l->hooks);
	l->failed += n;
	l->attached -= n < l->attached ? n : l->attached;
	live_burst_end(l);
	kprobes__retire(l->kp);
	kprobes__merge(l->kp, l->tier.ksession && l->net.state != NET_ALWAYS ? LIVE_MAX_SESSIONS
									 : LIVE_MAX_PAIRS);
}

/* After each poll, without a net: pairs a merge replaced may go now. */
static void on_poll(void *ctx, uint64_t graphs_done)
{
	struct live *l = ctx;

	(void)graphs_done;
	kprobes__retire(l->kp);
}

static void on_caller(void *ctx, const struct ksym *s)
{
	struct live *l = ctx;
	enum plan_skip why;
	int idx = attach_live(l, s, true, &why);

	/*
	 * A function without an fentry site (notrace, inlined into a noinstr
	 * caller) is not shown by function_graph either, but its callees are,
	 * in its place: attach them.
	 */
	if (idx < 0 && why == PS_NOT_TRACEABLE) {
		discover_untraced_calls(l, s);
		live_attach_callees(l, s, true);
	}
	if (idx < 0)
		return;
	/* Expanded here and now: no need to wait for its next call. */
	l->p->funcs.f[idx].flags |= BG_FN_EXPANDED;
	live_attach_callees(l, s, true);
}

/*
 * Traced function func called target through a pointer. A target without
 * BTF (a compiler clone) cannot be attached: what it calls can.
 */
static void on_target(void *ctx, uint64_t target, uint32_t func)
{
	struct live *l = ctx;
	const struct ksym *s = ksyms__find_addr(l->po.ks, target);
	enum plan_skip why;
	int idx;

	l->targets++;
	/* Not a function's start: a jump within one (a switch table). */
	if (!s || s->addr != target)
		return;
	idx = attach_live(l, s, false, &why);
	if (idx < 0 && why != PS_NO_BTF && why != PS_NOT_TRACEABLE)
		return;
	l->targets_new++;
	if (l->verbose && func < l->p->funcs.n)
		fprintf(stderr, "bpfgraph: '%s' calls '%s' through a pointer\n",
			l->p->funcs.f[func].name, s->name);
	if (idx >= 0)
		l->p->funcs.f[idx].flags |= BG_FN_EXPANDED;
	if (why == PS_NOT_TRACEABLE)
		discover_untraced_calls(l, s);
	live_attach_callees(l, s, true);
}

/* A traced function at the edge of what is traced was entered. */
static void on_expand(void *ctx, uint32_t func)
{
	struct live *l = ctx;
	const struct bg_func *f = &l->p->funcs.f[func];
	/* By address: a name several functions share would find the first. */
	const struct ksym *s = ksyms__find_addr(l->po.ks, f->addr);

	if (s && s->addr == f->addr)
		live_attach_callees(l, s, true);
}

int live__attach_kprobes(struct live *l)
{
	const struct functab *ft = &l->p->funcs;
	double t0 = links__now(), last = 0;
	unsigned int graphs = 0, graphs_ok = 0;
	bool multi = tier__kmulti(&l->tier);
	struct kprobes_opts ko = {
		.entry = multi && l->tier.ksession ? bpfobj__prog(l->obj, BGP_MSESSION) :
			 multi		      ? bpfobj__prog(l->obj, BGP_MENTRY) :
						bpfobj__prog(l->obj, BGP_KENTRY),
		.exit = multi && l->tier.ksession ? NULL :
			multi		     ? bpfobj__prog(l->obj, BGP_MEXIT) :
					       bpfobj__prog(l->obj, BGP_KEXIT),
		.multi = multi, .session = multi && l->tier.ksession, .funcs = ft, .verbose = l->verbose,
		.progress = l->progress, .err = stderr,
	};

	/*
	 * Merging link pairs pays where each pair is an ftrace ops of its own
	 * that every hooked call walks (fprobe on ftrace ops, 5.18 to 6.13).
	 * Since fprobe runs on the function-graph tracer (6.14: one hook and
	 * a table by address, fprobe_fgraph_entry), pairs cost next to
	 * nothing, and closing one while another is made is unsafe there: a
	 * return still pending when its fprobe is freed is matched by address
	 * alone, and a new fprobe at the same address (an entry link, without
	 * an exit handler) was called in its place (a NULL call, seen on 7.3).
	 */
	if (multi && !l->fprobe_fgraph) {
		ko.gen = bpfobj__vars(l->obj)->gen;
		ko.active = bpfobj__vars(l->obj)->active;
		ko.in_epoch = bpfobj__vars(l->obj)->in_epoch;
		ko.epoch = bpfobj__vars(l->obj)->epoch;
		ko.merging = bpfobj__vars(l->obj)->merging;
	}
	/* Unmapped, the programs ask the kernel for every cookie: slower, not wrong. */
	if (ko.session)
		ko.ckc = bpfobj__ckc(l->obj);
	l->kp = kprobes__new(&ko);
	if (!l->kp)
		return -ENOMEM;
	l->hooks.kprobe = (struct hook_backend){ &hook_ops_kprobe, l->kp };
	/* fentry refused (a variadic function...): a kprobe will do. */
	hooks__hand_refused(&l->hooks);
	for (size_t i = 0; i < ft->n && !stop__signal(); i++) {
		const struct bg_func *f = &ft->f[i];

		if ((f->flags & (BG_FN_KPROBE | BG_FN_CALLSITE)) != BG_FN_KPROBE)
			continue;
		hooks__add(&l->hooks, (uint32_t)i);
		/* --kprobes puts every function here: say how far it got. */
		if (!multi)
			attach__progress(l->a, (uint32_t)i + 1, t0, &last);
	}
	if (last > 0)
		fprintf(stderr, "\n");
	hooks__flush(&l->hooks);
	for (size_t i = 0; i < ft->n; i++) {
		const struct bg_func *f = &ft->f[i];

		if (!(f->flags & BG_FN_GRAPH))
			continue;
		graphs++;
		if (!(f->flags & BG_FN_KPROBE) || hooks__hooked(&l->hooks, (uint32_t)i)) {
			graphs_ok++;
			continue;
		}
		/* -v: kprobes__attach has said why already. */
		if (!l->verbose)
			fprintf(stderr, "bpfgraph: cannot trace '%s': %s\n", f->display,
				multi ? "the kernel refused its kprobe.multi link" :
				"neither fentry nor a kprobe attached");
	}
	if (stop__signal())
		return -EINTR;
	/* No -G function to start a graph: nothing would ever be traced. */
	if (graphs && !graphs_ok)
		return -ENOENT;
	return 0;
}

void live__probe_calls(struct live *l, const struct ksyms *ks, struct ktext *kt,
		       bool indirect)
{
	struct optprobe_hold opt;
	double t0 = links__now();
	struct bpfobj *s;
	int opt_err;

	/*
	 * The wide net shows what indirect calls reach: no probes for them.
	 * It shows the calls to what is probed at its call sites
	 * (__rcu_read_lock...) too; once it is narrowed, its keep link and
	 * then call-site probes do (rcusites.c). Their handlers' calls would
	 * be drawn in the ftrace net's first call: once it is over.
	 */
	if (l->w || l->ft) {
		l->probe_later.ks = ks;
		l->probe_later.kt = kt;
		l->probe_later.indirect = indirect && !l->w;
		/* --wide=always: never narrowed, the net shows them throughout */
		l->probe_later.due = !(l->w && l->wide_always);
		return;
	}
	s = bpfobj__probes(l->obj);
	if (!s)
		return;
	l->ic = icall__new(bpfobj__prog(s, BGP_ICALL), ks, kt, l->verbose, stderr);
	if (!l->ic) {
		fprintf(stderr, "bpfgraph: indirect calls are not followed: %s\n",
			strerror(errno));
		return;
	}
#ifdef BG_ABLATE_ICALLS
	indirect = false; /* a measurement build (tests/bench/ablate.sh): no indirect-call probes */
#endif
	icall__set_indirect(l->ic, indirect);
	/* Placed in a row: the optimizer's pauses held off until they are all in. */
	opt_err = optprobe__hold(&opt);
	/* What is probed at its call sites first: all callers come after. */
	for (size_t i = 0; i < l->p->funcs.n && !stop__signal(); i++)
		if ((l->p->funcs.f[i].flags & BG_FN_CALLSITE) && wrap(l, (uint32_t)i))
			fprintf(stderr, "bpfgraph: cannot trace '%s' at its call sites\n",
				l->p->funcs.f[i].name);
	/* Not yet hooked: probed when they are (live_hook()). */
	for (size_t i = 0; i < l->p->funcs.n && !stop__signal(); i++)
		if (!(l->p->funcs.f[i].flags & BG_FN_LATER))
			icall__probe(l->ic, (uint32_t)i, &l->p->funcs.f[i]);
	/* The plan looked through these for callees: their calls show too. */
	for (size_t i = 0; i < l->p->ncands && !stop__signal(); i++)
		if (l->p->cands[i].skip == PS_NOT_TRACEABLE && !l->p->cands[i].notrace)
			probe_untraced_calls(l->ic, l->p->cands[i].sym);
	optprobe__release(&opt);
	if (l->verbose)
		fprintf(stderr, "bpfgraph: call-site and indirect-call probes placed in %.2f s "
			"(kprobe optimization %s meanwhile)\n", links__now() - t0,
			optprobe__text(opt_err));
}


/* ", detach 1.23 s", or nothing when another process released the hooks. */
static const char *detach_text(char *buf, size_t len, const char *what, double s,
			       bool released_here)
{
	if (released_here)
		snprintf(buf, len, ", %s %.2f s", what, s);
	else
		buf[0] = 0;
	return buf;
}

void live__print(const struct live *l, const struct discover_stats *d, bool released_here)
{
	char dt[48];

	if (l->kp) {
		const struct kprobe_stats *ks = kprobes__stats(l->kp);

		if ((ks->attached || ks->failed) && !l->po.kprobes_only)
			fprintf(stderr, "bpfgraph: %u functions without BTF or a unique name "
				"traced by kprobe, %u failed; attach %.2f s%s\n",
				ks->attached, ks->failed, ks->attach_s,
				detach_text(dt, sizeof(dt), "detach", ks->detach_s, released_here));
	}
	if (l->ic) {
		const struct icall_stats *is = icall__stats(l->ic);

		/* The rcu pair's call-site probes only: no indirect sites. */
		if (d && !l->rcu)
			fprintf(stderr, "bpfgraph: %u indirect call sites in %u functions: %u "
				"probed, %u not probeable, %u refused; %u targets met, %u newly "
				"traced; probes %.2f s%s\n",
				is->sites, is->funcs, is->probes, is->unusable, is->failed,
				l->targets, l->targets_new, is->attach_s,
				detach_text(dt, sizeof(dt), "removal", is->detach_s, released_here));
		if (is->csites)
			fprintf(stderr, "bpfgraph: %u calls to functions traced at their call sites: %u "
				"probed (%u with their return taken at the next event), %u not "
				"probeable (prefixed calls), %u refused, %u in functions without "
				"an fentry site (the kernel allows no kprobe there)\n", is->csites,
				is->cprobed, is->clazy, is->cunusable, is->cfailed, is->cnotrace);
	}
	rcusites__print(l);
	if (!d || !d->checked)
		return;
	fprintf(stderr, "bpfgraph: %llu of %llu calls came through untraced functions; "
		"%u functions attached while tracing, %u callers cannot be (-v says why); "
		"%llu more callers read from %llu kernel stacks%s\n",
		(unsigned long long)d->between, (unsigned long long)d->checked, l->attached,
		l->skipped + l->failed, (unsigned long long)d->stacked,
		(unsigned long long)d->stacks,
		d->unknown * 2 > d->checked ? "; return addresses look wrong on this kernel" : "");
}

struct live *live__new(const struct live_opts *o)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l) {
		wide__free(o->wide);
		return NULL;
	}
	l->p = o->plan;
	l->po = o->po;
	l->a = o->attach;
	/* A kprobe tier's attach object refuses every function: all go to kprobes. */
	l->hooks = (struct hooks){ .funcs = &o->plan->funcs,
				   .tramp = { &hook_ops_tramp, o->attach } };
	l->obj = o->obj;
	l->tier = o->tier;
	l->fprobe_fgraph = o->fprobe_fgraph;
	l->w = o->wide;
	l->wide_always = o->wide_always;
	l->wide_wait_s = o->wide_wait_s;
	l->progress = o->progress;
	l->verbose = o->verbose;
	return l;
}

void live__set_franges(struct live *l)
{
	for (uint32_t i = 0; i < l->p->funcs.n; i++)
		live_frange_set(l->obj, i, &l->p->funcs.f[i]);
}

void live__bind(struct live *l, struct session *s, bool discover)
{
	if (discover) {
		s->on_caller = on_caller;
		s->on_expand = on_expand;
		s->on_target = on_target;
		s->on_settled = on_settled;
		s->on_poll = on_poll; /* the nets' own call kprobes__retire() too */
		s->caller_ctx = l;
	}
	if (l->ft) {
		live_ftnet_bind(s);
		s->caller_ctx = l;
		l->s = s;
		/* A command is paused after its first call; without one the net runs on. */
		l->net.paused = s->child > 0;
		s->pause_child = false;
		s->hold_growth = true;
		return;
	}
	if (!l->w)
		return;
	live_net_bind(s);
	s->caller_ctx = l;
	l->s = s;
	/*
	 * Nothing is attached while the net is on (it shows everything): the
	 * command runs on, and what discovery finds waits until the net is
	 * narrowed (with --wide=always, for good).
	 */
	l->net.paused = s->pause_child;
	s->pause_child = false;
	s->hold_growth = true;
}

unsigned int live__traced(const struct live *l)
{
	return (l->kp ? kprobes__stats(l->kp)->attached : 0) +
	       (l->w ? (unsigned int)wide__stats(l->w)->funcs : 0);
}

double live__wide_attach_s(const struct live *l)
{
	return l->w ? wide__stats(l->w)->attach_s : 0.0;
}

const struct kprobe_stats *live__kprobe_stats(const struct live *l)
{
	return l->kp ? kprobes__stats(l->kp) : NULL;
}

void live__settle(struct live *l)
{
	if (!l)
		return;
	rcusites__stop(l);
	live_burst_end(l);
	/* Every holder has released: the optimizer's guard goes. */
	optprobe__end();
}

void live__detach(struct live *l)
{
	rcusites__detach(l);
	icall__detach(l->ic);
	live_free_wide(l, true);
	live_free_ftnet(l);
	kprobes__detach(l->kp);
	/*
	 * The object goes next (attach__detach()), while l may still be freed
	 * later (--wait-detach): nothing after this may reach its variables.
	 */
	l->obj = NULL;
}

void live__free(struct live *l)
{
	if (!l)
		return;
	live_free_wide(l, false);
	live_free_ftnet(l);
	free(l->ft_addr);
	free(l->ft_idx);
	free(l->ft_own);
	free(l->ft_met);
	rcusites__free(l);
	live__settle(l);
	icall__free(l->ic);
	kprobes__free(l->kp);
	free(l);
}
