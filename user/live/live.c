// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live discovery and the hooks beside the trampolines: see live.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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
#include "netfsm.h"
#include "bpfobj.h"
#include "session.h"
#include "stop.h"
#include "wide.h"

/*
 * Functions found between traced ones while tracing (discover.h): attach
 * what can be attached, so that the calls after this one are drawn under
 * the right parent; say once, with -v, why the others cannot be.
 */
struct live {
	struct plan *p;
	struct plan_opts po;
	struct attach *a;
	struct bpfobj *obj;
	struct tier tier;
	bool fprobe_fgraph; /* live_opts.fprobe_fgraph */
	bool progress;
	struct icall *ic; /* NULL: indirect calls are not probed */
	struct kprobes *kp; /* functions fentry cannot attach to */
	struct hooks hooks; /* how a function is hooked: a and kp behind one facade */
	int verbose;
	unsigned int attached, failed, skipped;
	unsigned int targets; /* indirect targets reported */
	unsigned int targets_new; /* ... that were not traced yet */
	unsigned int met_callees; /* functions attached as direct callees of what the net met */
	/* The wide net (user/hook/wide.h), NULL: none. */
	struct wide *w;
	int32_t *wmap; /* function table index by wide index; -1: not met yet */
	struct netfsm net; /* its state (netfsm.h) */
	bool wide_always; /* --wide=always: never narrowed */
	unsigned int wide_met; /* functions it found */
	double first_end; /* the first traced call's end (running: when it was linked) */
	bool ended_seen; /* bg_wide_ended, at the last poll */
	struct session *s;
};

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
static void frange_set(struct bpfobj *obj, uint32_t idx, const struct bg_func *f)
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
	if (hooks__add(&l->hooks, (uint32_t)idx)) {
		l->failed++;
		return -1;
	}
	l->attached++;
	frange_set(l->obj, (uint32_t)idx, &l->p->funcs.f[idx]);
	if (l->ic)
		icall__probe(l->ic, (uint32_t)idx, &l->p->funcs.f[idx]);
	if (l->verbose)
		fprintf(stderr, "bpfgraph: attached '%s' while tracing%s\n", s->name,
			report ? ": it calls traced functions" : "");
	return idx;
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

/*
 * Attach the direct callees of s; through a callee that cannot be
 * attached (no fentry site; no BTF where kprobes are not available), one
 * level further, since function_graph shows its callees in its place.
 * Dozens of attaches (tens of ms each per trampoline): a stop request
 * ends them, the trace is over.
 */
static void attach_callees(struct live *l, const struct ksym *s, bool through)
{
	const struct ksym *callees[LIVE_CALLEES];
	enum plan_skip why;
	int n = plan__callees(&l->po, s, callees, LIVE_CALLEES);

	for (int i = 0; i < n && !stop__signal(); i++) {
		attach_live(l, callees[i], false, &why);
		/* Not only when looking through: it is considered once. */
		if (why == PS_NOT_TRACEABLE)
			probe_untraced_calls(l->ic, callees[i]);
		if (through && (why == PS_NO_BTF || why == PS_NOT_TRACEABLE))
			attach_callees(l, callees[i], false);
	}
}

/*
 * kprobe.multi link pairs (or kprobe.session links) beyond which they are
 * merged into one (kprobes__merge(): where each link costs every hooked
 * call). A merge re-attaches everything, seconds under emulation: not
 * after every burst.
 */
#define LIVE_MAX_PAIRS 4

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
	kprobes__retire(l->kp);
	kprobes__merge(l->kp, LIVE_MAX_PAIRS);
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
		probe_untraced_calls(l->ic, s);
		attach_callees(l, s, true);
	}
	if (idx < 0)
		return;
	/* Expanded here and now: no need to wait for its next call. */
	l->p->funcs.f[idx].flags |= BG_FN_EXPANDED;
	attach_callees(l, s, true);
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
		probe_untraced_calls(l->ic, s);
	attach_callees(l, s, true);
}

/* A traced function at the edge of what is traced was entered. */
static void on_expand(void *ctx, uint32_t func)
{
	struct live *l = ctx;
	const struct bg_func *f = &l->p->funcs.f[func];
	/* By address: a name several functions share would find the first. */
	const struct ksym *s = ksyms__find_addr(l->po.ks, f->addr);

	if (s && s->addr == f->addr)
		attach_callees(l, s, true);
}

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

	for (size_t wi = 0; wi < wide__stats(l->w)->funcs; wi++) {
		int idx = l->wmap[wi];
		struct bg_func *f;

		if (idx < 0)
			continue;
		f = &l->p->funcs.f[idx];
		/* __rcu_read_lock...: the net's keep link shows them (wide__narrow). */
		if (!f->module && plan__hook_only(f->name))
			continue;
		if (!l->kp || kprobes__attached(l->kp, (uint32_t)idx))
			continue;
		f->flags |= BG_FN_NET;
		if (!hooks__add_kprobe(&l->hooks, (uint32_t)idx))
			frange_set(l->obj, (uint32_t)idx, f);
	}
	if (!net_closed)
		return;
	for (size_t wi = 0; wi < wide__stats(l->w)->funcs && !stop__signal(); wi++) {
		int idx = l->wmap[wi];
		struct bg_func *f;
		const struct ksym *s;

		if (idx < 0)
			continue;
		f = &l->p->funcs.f[idx];
		if ((f->flags & BG_FN_EXPANDED) || (!f->module && plan__hook_only(f->name)))
			continue;
		f->flags |= BG_FN_EXPANDED;
		s = ksyms__find_addr(l->po.ks, f->addr);
		if (s && s->addr == f->addr)
			attach_callees(l, s, true);
	}
	l->met_callees += l->attached - before;
}

/*
 * The functions the net met get links of their own now; -v says when,
 * counted from since (the first graph's end, or when it was seen).
 */
static void link_met_now(struct live *l, const char *when, double since, bool net_closed)
{
	double t0 = links__now();
	unsigned int failed;
	int err;

	link_met(l, net_closed);
	failed = hooks__flush(&l->hooks);
	err = wide__narrow(l->w, l->wmap,
			   plan__calls(l->p, "__rcu_read_lock") || plan__calls(l->p, "__rcu_read_unlock"),
			   bpfobj__prog_fd(l->obj, BGP_MENTRY));
	if (err)
		fprintf(stderr, "bpfgraph: cannot keep __rcu_read_lock/unlock hooked: %s\n",
			strerror(-err));
	if (l->verbose && net_closed)
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

/* Carries out one of the net's actions (netfsm.h). */
static void net_act(struct live *l, enum net_action act)
{
	switch (act) {
	case NET_ACT_LINK_MET:
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
		l->s->pause_child = true;
		l->s->hold_growth = false;
		/* Stopped by us, or at the end of its first call (bg_wide_once). */
		session__pause(l->s, false);
		break;
	case NET_ACT_RELEASE:
		l->s->hold_growth = false;
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

	l->ended_seen = __atomic_load_n(v->wide_ended, __ATOMIC_ACQUIRE) != 0;
	do {
		in.now = links__now();
		in.active = __atomic_load_n(v->active, __ATOMIC_ACQUIRE) != 0;
		in.closed = l->net.state == NET_CLOSING && wide__detached(l->w);
		act = netfsm__step(&l->net, &in);
		net_act(l, act);
	} while (act != NET_ACT_NONE);
}

static void free_wide(struct live *l, bool wait);

/*
 * The trace is over: a net still open (narrowing under way, --wide=always)
 * goes now, in a child process, while the rest of the records is read:
 * under a load it makes the reader about ten times slower, and its close
 * takes seconds (docs/performance.md, "The wide net under a load").
 */
static void on_stopped(void *ctx)
{
	struct live *l = ctx;

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
		free_wide(l, true);
		return err;
	}
	memset(l->wmap, 0xff, (ws->funcs + 1) * sizeof(*l->wmap));
	if (!wide_works(l)) {
		fprintf(stderr, "bpfgraph: the kernel took the wide net's link but it hooks "
			"nothing (%zu functions from %s: one of them, ftrace cannot hook?)\n",
			ws->funcs, ws->source);
		free_wide(l, true);
		return -ENODATA;
	}
	netfsm__open(&l->net, false, l->wide_always); /* paused: live__bind() */
	*bpfobj__vars(l->obj)->wide_on = 1;
	if (l->verbose)
		fprintf(stderr, "bpfgraph: wide net: %zu functions (from %s; %zu on the tracer's "
			"own path left out) in %d links, %.2f s to list, %.2f s to attach\n",
			ws->funcs, ws->source, ws->denied, ws->links, ws->build_s, ws->attach_s);
	if (l->verbose && ws->pool_bytes)
		fprintf(stderr, "bpfgraph: wide net: the kernel's return hooks for %zu of them "
			"take about %.1f MiB (--wide-mem); %zu hooked at their entry only (%zu "
			"functions' code read to choose, %.2f s%s)\n", ws->funcs - ws->entry_only,
			ws->pool_bytes / 1048576.0, ws->entry_only, ws->decoded, ws->choose_s,
			ws->entry_only && !ws->ranges ? "; their ranges unknown: their callees are "
			"drawn beside them" : "");
	return 0;
}

/* wait: for a child still closing the net too (releasing the hooks here). */
static void free_wide(struct live *l, bool wait)
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
	}
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
	struct bpfobj *s;

	/* The wide net shows what indirect calls reach: no probes for them. */
	if (indirect && l->w)
		return;
	s = bpfobj__probes(l->obj);
	if (!s)
		return;
	l->ic = icall__new(bpfobj__prog(s, BGP_ICALL), ks, kt, l->verbose, stderr);
	if (!l->ic) {
		fprintf(stderr, "bpfgraph: indirect calls are not followed: %s\n",
			strerror(errno));
		return;
	}
	icall__set_indirect(l->ic, indirect);
	/* What is probed at its call sites first: all callers come after. */
	for (size_t i = 0; i < l->p->funcs.n && !stop__signal(); i++)
		if ((l->p->funcs.f[i].flags & BG_FN_CALLSITE) && wrap(l, (uint32_t)i))
			fprintf(stderr, "bpfgraph: cannot trace '%s' at its call sites\n",
				l->p->funcs.f[i].name);
	for (size_t i = 0; i < l->p->funcs.n && !stop__signal(); i++)
		icall__probe(l->ic, (uint32_t)i, &l->p->funcs.f[i]);
	/* The plan looked through these for callees: their calls show too. */
	for (size_t i = 0; i < l->p->ncands && !stop__signal(); i++)
		if (l->p->cands[i].skip == PS_NOT_TRACEABLE && !l->p->cands[i].notrace)
			probe_untraced_calls(l->ic, l->p->cands[i].sym);
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

		if (d)
			fprintf(stderr, "bpfgraph: %u indirect call sites in %u functions: %u "
				"probed, %u not probeable, %u refused; %u targets met, %u newly "
				"traced; probes %.2f s%s\n",
				is->sites, is->funcs, is->probes, is->unusable, is->failed,
				l->targets, l->targets_new, is->attach_s,
				detach_text(dt, sizeof(dt), "removal", is->detach_s, released_here));
		if (is->csites)
			fprintf(stderr, "bpfgraph: %u calls to functions no trampoline may hook: %u "
				"probed (%u with their return taken at the next event), %u not "
				"probeable (prefixed calls), %u refused, %u in functions without "
				"an fentry site (the kernel allows no kprobe there)\n", is->csites,
				is->cprobed, is->clazy, is->cunusable, is->cfailed, is->cnotrace);
	}
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
	l->progress = o->progress;
	l->verbose = o->verbose;
	return l;
}

void live__set_franges(struct live *l)
{
	for (uint32_t i = 0; i < l->p->funcs.n; i++)
		frange_set(l->obj, i, &l->p->funcs.f[i]);
}

void live__bind(struct live *l, struct session *s, bool discover)
{
	if (discover) {
		s->on_caller = on_caller;
		s->on_expand = on_expand;
		s->on_target = on_target;
		s->on_settled = on_settled;
		s->caller_ctx = l;
	}
	if (!l->w)
		return;
	s->map_func = map_wide;
	s->on_poll = on_poll;
	s->on_stopped = on_stopped;
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

void live__detach(struct live *l)
{
	icall__detach(l->ic);
	free_wide(l, true);
	kprobes__detach(l->kp);
}

void live__free(struct live *l)
{
	if (!l)
		return;
	free_wide(l, false);
	icall__free(l->ic);
	kprobes__free(l->kp);
	free(l);
}
