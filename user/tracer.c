// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracing steps: kernel info, plan, open, attach, run, report,
 * detach. Live tracing and "bpfgraph record" differ only in where the
 * records go (struct tracer_sinks).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "cli.h"
#include "graph.skel.h"
#include "kbtf.h"
#include "ksyms.h"
#include "ktext.h"
#include "plan.h"
#include "record.h"
#include "render.h"
#include "discover.h"
#include "icall.h"
#include "kprobe.h"
#include "links.h"
#include "session.h"
#include "tracer.h"
#include "wide.h"

static int verbosity;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/*
	 * A kprobe the kernel refuses (a call site in a notrace function):
	 * counted and explained in our summary; libbpf's line per probe
	 * ("failed to create %s '%s+0x%zx' perf event") only with -vv.
	 */
	if (level == LIBBPF_WARN && verbosity < 2 && strstr(fmt, "failed to create %s '%s"))
		return 0;
	/* libbpf's own messages sit one level below ours. */
	if ((level == LIBBPF_WARN && verbosity < 1) ||
	    (level == LIBBPF_INFO && verbosity < 2) ||
	    (level == LIBBPF_DEBUG && verbosity < 3))
		return 0;
	return vfprintf(stderr, fmt, args);
}

/*
 * Each function costs two link fds, each kprobe two more (its perf event
 * and link): a large plan passes the usual hard limit of 4096 (seen: 1503
 * functions and their call-site kprobes failed with EMFILE). Root may lift
 * the hard limit to fs.nr_open; else the soft limit goes to the hard one.
 * COMMAND gets the limits we were started with (nofile_before).
 */
static struct rlimit nofile_before;

static void raise_nofile(void)
{
	struct rlimit r;
	unsigned long nr_open = 0;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	nofile_before = r;
	f = fopen("/proc/sys/fs/nr_open", "r");
	if (f) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (nr_open > r.rlim_max) {
		struct rlimit up = { nr_open, nr_open };

		if (!setrlimit(RLIMIT_NOFILE, &up))
			return;
	}
	if (r.rlim_cur >= r.rlim_max)
		return;
	r.rlim_cur = r.rlim_max;
	setrlimit(RLIMIT_NOFILE, &r);
}

struct kernel_info {
	struct ksyms *ks;
	struct kbtf *kb;
	struct ktext *kt;
	enum bg_hook hook; /* the tier chosen: never BG_HOOK_AUTO */
	const char *hook_why; /* why, for -v and --dry-run */
	bool wide; /* the wide net (user/wide.h) is used */
	const char *wide_why;
	/* Its list, started before planning (NULL with --dry-run); trace() takes it. */
	struct wide *wide_list;
	/* links__now() at start, after loading symbols, BTF and text, after planning */
	double t_start, t_kernel, t_plan;
};

/*
 * The hook tier: what --hook asks for, or with auto the best this kernel
 * accepts (probed, not read from its version). kprobe.multi attaches the
 * whole plan with one pair of links and detaches it with two closes;
 * per-function trampolines cost a program load and a trampoline update
 * per function and direction (tens of seconds for a few hundred functions,
 * minutes to detach).
 */
static int choose_hook(struct kernel_info *ki, const struct bg_opts *o)
{
	int multi;

	ki->hook = o->hook;
	switch (o->hook) {
	case BG_HOOK_FENTRY:
		ki->hook_why = "fentry/fexit, a trampoline per function (--hook=fentry)";
		return 0;
	case BG_HOOK_KPROBE:
		ki->hook_why = "kprobe/kretprobe per function (--hook=kprobe)";
		return 0;
	default:
		break;
	}
	multi = kprobes__multi_supported();
	if (multi > 0) {
		ki->hook = BG_HOOK_KMULTI;
		ki->hook_why = o->hook == BG_HOOK_KMULTI ?
			"kprobe.multi, one link for all functions (--hook=kprobe-multi)" :
			"kprobe.multi, one link for all functions (the kernel has it; "
			"--hook=fentry for trampolines)";
		return 0;
	}
	if (o->hook == BG_HOOK_KMULTI) {
		fprintf(stderr, "bpfgraph: this kernel cannot attach kprobe.multi links (%s): "
			"it needs CONFIG_FPROBE (5.18+); use --hook=fentry or --hook=kprobe\n",
			multi < 0 ? strerror(-multi) : "no CONFIG_FPROBE");
		return -EOPNOTSUPP;
	}
	ki->hook = BG_HOOK_FENTRY;
	ki->hook_why = "fentry/fexit, a trampoline per function (the kernel has no kprobe.multi)";
	return 0;
}

/*
 * The wide net where the kernel has kprobe.session links (probed): every
 * traceable function hooked until the first traced call returns, so that
 * it is complete without indirect-call and call-site probes.
 */
static void choose_wide(struct kernel_info *ki, const struct bg_opts *o)
{
	int r;

	ki->wide = false;
	if (ki->hook != BG_HOOK_KMULTI) {
		ki->wide_why = "none (it needs the kprobe.multi tier)";
		return;
	}
	if (o->wide == BG_WIDE_OFF || o->no_discovery) {
		ki->wide_why = o->wide == BG_WIDE_OFF ? "off (--wide=off)" : "off (--no-discovery)";
		return;
	}
	r = wide__supported();
	if (r <= 0) {
		ki->wide_why = "none (this kernel has no kprobe.session links: 6.10+)";
		return;
	}
	ki->wide = true;
	ki->wide_why = o->wide == BG_WIDE_ALWAYS ?
		"every traceable function by kprobe.session, the whole trace (--wide=always)" :
		"every traceable function by kprobe.session, until the first traced "
		"call returns (--wide=off: none)";
}

static int load_kernel_info(struct kernel_info *ki, const struct bg_opts *o)
{
	ki->ks = ksyms__load(NULL);
	if (!ki->ks) {
		fprintf(stderr, "bpfgraph: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return -errno;
	}
	if (ksyms__hidden(ki->ks)) {
		fprintf(stderr, "bpfgraph: kernel addresses are hidden (kptr_restrict): "
			"run as root\n");
		return -EPERM;
	}
	ki->kb = kbtf__load(NULL);
	if (!ki->kb) {
		fprintf(stderr, "bpfgraph: kernel BTF not found (/sys/kernel/btf/vmlinux): "
			"fentry needs a kernel built with CONFIG_DEBUG_INFO_BTF\n");
		return -ENOENT;
	}
	ki->kt = ktext__open(NULL);
	if (!ki->kt && o->callee_depth > 0)
		fprintf(stderr, "bpfgraph: cannot read kernel text (/proc/kcore: %s): "
			"callees are not discovered, only -G and -a functions are traced\n",
			strerror(errno));
	return 0;
}

static void free_kernel_info(struct kernel_info *ki)
{
	wide__free(ki->wide_list);
	ksyms__free(ki->ks);
	kbtf__free(ki->kb);
	ktext__close(ki->kt);
}

static struct plan_opts plan_opts_of(const struct bg_opts *o, const struct kernel_info *ki)
{
	return (struct plan_opts){
		.graph = o->graph.v, .n_graph = (int)o->graph.n,
		.allow = o->allow.v, .n_allow = (int)o->allow.n,
		.notrace = o->notrace.v, .n_notrace = (int)o->notrace.n,
		.callee_depth = ki->kt ? (int)o->callee_depth : 0,
		.max_funcs = (int)o->max_funcs,
		.irqs = !!(o->flags & BG_O_IRQS), .kprobes = 1,
		.kprobes_only = ki->hook == BG_HOOK_KPROBE || ki->hook == BG_HOOK_KMULTI,
		.kprobes_how = ki->hook == BG_HOOK_KMULTI ? "kprobe.multi" : NULL,
		/*
		 * Call sites are found and probed with the indirect ones; the
		 * wide net shows those calls without probes.
		 */
		.callsites = ki->kt && !o->thresh_ns && !o->no_callsites && !ki->wide,
		.ks = ki->ks, .kb = ki->kb, .kt = ki->kt, .err = stderr,
	};
}

/* Our timestamps call the clocksource's read function: see plan__set_clocksource. */
static void set_clocksource(int verbose)
{
	char name[64] = "";
	const char *fn;
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (f) {
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
	}
	name[strcspn(name, "\n")] = 0;
	fn = plan__set_clocksource(name);
	if (verbose && fn)
		fprintf(stderr, "bpfgraph: clocksource %s: '%s' is traced where traced functions "
			"call it, not by a trampoline (every timestamp of ours calls it)\n",
			name, fn);
	else if (verbose)
		fprintf(stderr, "bpfgraph: clocksource '%s' unknown here: if its read function "
			"is traced, each record pays a nested trampoline pass\n",
			name[0] ? name : "(cannot read current_clocksource)");
}

static int make_plan(struct plan *p, const struct bg_opts *o, struct kernel_info *ki)
{
	struct plan_opts po = plan_opts_of(o, ki);

	set_clocksource(o->verbosity);
	return plan__build(p, &po);
}

/*
 * Functions found between traced ones while tracing (discover.h): attach
 * what can be attached, so that the calls after this one are drawn under
 * the right parent; say once, with -v, why the others cannot be.
 */
struct live {
	struct plan *p;
	struct plan_opts po;
	struct attach *a;
	struct icall *ic; /* NULL: indirect calls are not probed */
	struct kprobes *kp; /* functions fentry cannot attach to */
	int verbose;
	unsigned int attached, failed, skipped;
	unsigned int targets; /* indirect targets reported */
	unsigned int targets_new; /* ... that were not traced yet */
	/* The wide net (user/wide.h), NULL: none. */
	struct wide *w;
	int32_t *wmap; /* function table index by wide index; -1: not met yet */
	bool wide_on; /* it records (bg_wide_on) */
	bool wide_always; /* --wide=always: never narrowed */
	unsigned int wide_met; /* functions it found */
	double wide_narrowed_at; /* when it was narrowed, 0: not yet */
	struct session *s;
	bool pause_after; /* session.pause_child once narrowed */
};

/*
 * Function idx is probed where the functions probed from now on call it,
 * and where traced functions call it through a pointer (bg_targets).
 */
static int wrap(struct live *l, uint32_t idx)
{
	const struct bg_func *f = &l->p->funcs.f[idx];
	__u32 v = BG_TARGET_WRAPPED(idx);
	int err;

	if (!l->ic)
		return -ENOENT;
	err = icall__wrap(l->ic, l->a->skel->progs.bg_kentry, l->a->skel->progs.bg_kexit,
			  f->addr, idx);
	/* Called through a pointer, too: the indirect call site's probe shows it. */
	if (!err && bpf_map_update_elem(bpf_map__fd(l->a->skel->maps.bg_targets), &f->addr, &v,
					BPF_ANY))
		err = -errno;
	return err;
}

/*
 * Where function idx's calls return to (struct bg_frange), for the entry
 * programs' untraced-caller check. A failure (an index past the map's
 * size) only leaves that function's callers to be found one per call.
 */
static void frange_set(struct graph_bpf *skel, uint32_t idx, const struct bg_func *f)
{
	struct bg_frange r = { .lo = f->addr, .hi = f->addr + f->size };

	if (f->size)
		bpf_map_update_elem(bpf_map__fd(skel->maps.bg_franges), &idx, &r, BPF_ANY);
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
	if (!(l->p->funcs.f[idx].flags & BG_FN_KPROBE) && attach__one(l->a, (uint32_t)idx))
		attach__disown(l->a, (uint32_t)idx); /* variadic...: try a kprobe */
	if ((l->p->funcs.f[idx].flags & BG_FN_KPROBE) &&
	    (!l->kp || kprobes__attach(l->kp, (uint32_t)idx, &l->p->funcs.f[idx]))) {
		l->failed++;
		return -1;
	}
	l->attached++;
	frange_set(l->a->skel, (uint32_t)idx, &l->p->funcs.f[idx]);
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

/* Functions attached while tracing that bg_franges has room for. */
#define LIVE_FRANGES 4096

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
 */
static void attach_callees(struct live *l, const struct ksym *s, bool through)
{
	const struct ksym *callees[LIVE_CALLEES];
	enum plan_skip why;
	int n = plan__callees(&l->po, s, callees, LIVE_CALLEES);

	for (int i = 0; i < n; i++) {
		attach_live(l, callees[i], false, &why);
		/* Not only when looking through: it is considered once. */
		if (why == PS_NOT_TRACEABLE)
			probe_untraced_calls(l->ic, callees[i]);
		if (through && (why == PS_NO_BTF || why == PS_NOT_TRACEABLE))
			attach_callees(l, callees[i], false);
	}
}

/*
 * kprobe.multi link pairs beyond which they are merged into one
 * (kprobes__merge(): where each pair costs every hooked call). A merge
 * re-attaches everything, seconds under emulation: not after every burst.
 */
#define LIVE_MAX_PAIRS 4

/*
 * A burst of discovery is over (the command, if paused, is still
 * stopped): with kprobe.multi, what it found goes in one link pair (a
 * function the kernel refused then counts as failed, not attached).
 */
static void on_settled(void *ctx)
{
	struct live *l = ctx;
	unsigned int n = l->kp ? kprobes__flush(l->kp) : 0;

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

/* What the net met gets links of its own (queued; flushed by the caller). */
static void link_met(struct live *l)
{
	for (size_t wi = 0; wi < wide__stats(l->w)->funcs; wi++) {
		int idx = l->wmap[wi];
		struct bg_func *f;

		if (idx < 0)
			continue;
		f = &l->p->funcs.f[idx];
		/* __rcu_read_lock...: the net's keep link shows them (wide__narrow). */
		if (!f->module && plan__hook_only(f->name))
			continue;
		if (l->kp && !kprobes__attached(l->kp, (uint32_t)idx) &&
		    !kprobes__attach(l->kp, (uint32_t)idx, f)) {
			frange_set(l->a->skel, (uint32_t)idx, f);
			f->flags |= BG_FN_EXPANDED;
		}
	}
}

/*
 * The first traced call is over: the net stops recording and the command
 * is paused. Once no task is inside a graph (calls under way get their
 * returns) the net is closed, and only then does what it met get links of
 * its own: on kernels where fprobe runs on the function graph tracer
 * (6.14+), closing a link over addresses another link hooks too unhooked
 * them for both (seen on 7.3). A graph that does not end within
 * WIDE_DRAIN_S loses its open calls' exits.
 */
#define WIDE_DRAIN_S 2.0

static void narrow_wide(struct live *l)
{
	double t0 = links__now();
	unsigned int failed;
	int err;

	if (l->wide_on) {
		__atomic_store_n(&l->a->skel->bss->bg_wide_on, 0, __ATOMIC_RELEASE);
		l->wide_on = false;
		l->wide_narrowed_at = t0;
		/* --no-pause: the command runs on, its calls meanwhile partly drawn. */
		if (l->pause_after)
			session__pause(l->s, true);
	}
	if (__atomic_load_n(&l->a->skel->bss->bg_active, __ATOMIC_ACQUIRE) &&
	    t0 - l->wide_narrowed_at < WIDE_DRAIN_S)
		return;
	wide__detach(l->w);
	link_met(l);
	failed = l->kp ? kprobes__flush(l->kp) : 0;
	err = wide__narrow(l->w, l->wmap, bpf_program__fd(l->a->skel->progs.bg_mentry));
	if (err)
		fprintf(stderr, "bpfgraph: cannot keep __rcu_read_lock/unlock hooked: %s\n",
			strerror(-err));
	if (l->verbose)
		fprintf(stderr, "bpfgraph: first traced call over: the wide net closed, %u "
			"functions it met linked (%u refused) in %.2f s\n", l->wide_met, failed,
			links__now() - l->wide_narrowed_at);
	l->s->pause_child = l->pause_after;
	l->s->hold_growth = false;
	/* Stopped by us, or at the end of its first call (bg_wide_once). */
	if (l->pause_after)
		session__pause(l->s, false);
}

static void on_poll(void *ctx, uint64_t graphs_done)
{
	struct live *l = ctx;
	/* The BPF side turns the net off at the end of the first graph. */
	bool off = !__atomic_load_n(&l->a->skel->bss->bg_wide_on, __ATOMIC_ACQUIRE);

	/* Nothing to link for when the command is gone: the trace ends now. */
	if (l->wide_on && !l->wide_always && (graphs_done || off) &&
	    !session__child_exited(l->s))
		narrow_wide(l);
	else if (!l->wide_on && wide__attached(l->w))
		narrow_wide(l);
}

/* Starts listing what the wide net will cover, while the rest is planned. */
static void start_wide(struct kernel_info *ki, const struct bg_opts *o)
{
	struct wide_opts wo = {
		.ks = ki->ks, .kt = ki->kt,
		.notrace = o->notrace.v, .n_notrace = o->notrace.n,
		/* fprobe on ftrace ops: see wide_opts.split_hot and attach_kprobes(). */
		.split_hot = !ksyms__find_name(ki->ks, "fprobe_fgraph_entry", NULL),
		.no_rcu = o->no_callsites,
	};

	if (!ki->wide || o->dry_run)
		return;
	ki->wide_list = wide__new(&wo);
	if (!ki->wide_list)
		fprintf(stderr, "bpfgraph: cannot list functions for the wide net: %s\n",
			strerror(errno));
}

/* The wide net over everything the plan left without links: 0 or -errno. */
static int attach_wide(struct live *l, const struct bg_opts *o)
{
	const struct wide_stats *ws;
	int err;

	if (!l->w)
		return -ENOENT;
	err = wide__attach(l->w, &l->p->funcs, bpf_program__fd(l->a->skel->progs.bg_wide),
			   l->a->skel->bss->bg_gen & 0xff);
	if (err)
		return err;
	ws = wide__stats(l->w);
	l->wmap = malloc((ws->funcs + 1) * sizeof(*l->wmap));
	if (!l->wmap)
		return -ENOMEM;
	memset(l->wmap, 0xff, (ws->funcs + 1) * sizeof(*l->wmap));
	l->wide_on = true;
	l->wide_always = o->wide == BG_WIDE_ALWAYS;
	l->a->skel->bss->bg_wide_on = 1;
	if (l->verbose)
		fprintf(stderr, "bpfgraph: wide net: %zu functions (from %s; %zu on the tracer's "
			"own path left out) in %s, %.2f s to list, %.2f s to attach\n", ws->funcs,
			ws->source, ws->denied, ws->links == 2 ? "two kprobe.session links (hot "
			"functions last)" : "one kprobe.session link", ws->build_s, ws->attach_s);
	return 0;
}

static void free_wide(struct live *l)
{
	if (!l->w)
		return;
	wide__detach(l->w);
	if (l->verbose && wide__stats(l->w)->funcs)
		fprintf(stderr, "bpfgraph: wide net: %u functions met, closed in %.2f s\n",
			l->wide_met, wide__stats(l->w)->detach_s);
	wide__free(l->w);
	l->w = NULL;
	free(l->wmap);
	l->wmap = NULL;
}

/* kprobe.h: what fentry cannot attach to, or everything (kprobe tiers). */
static int attach_kprobes(struct live *l, enum bg_hook hook)
{
	const struct functab *ft = &l->p->funcs;
	double t0 = links__now(), last = 0;
	unsigned int graphs = 0, graphs_ok = 0;
	bool multi = hook == BG_HOOK_KMULTI;
	struct kprobes_opts ko = {
		.entry = multi ? l->a->skel->progs.bg_mentry : l->a->skel->progs.bg_kentry,
		.exit = multi ? l->a->skel->progs.bg_mexit : l->a->skel->progs.bg_kexit,
		.multi = multi, .funcs = ft, .verbose = l->verbose,
		.progress = l->a->progress, .err = stderr,
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
	if (multi && !ksyms__find_name(l->po.ks, "fprobe_fgraph_entry", NULL)) {
		ko.gen = &l->a->skel->bss->bg_gen;
		ko.active = (volatile int64_t *)&l->a->skel->bss->bg_active;
	}
	l->kp = kprobes__new(&ko);
	if (!l->kp)
		return -ENOMEM;
	for (size_t i = 0; i < ft->n; i++) {
		const struct bg_func *f = &ft->f[i];

		/* fentry refused (a variadic function...): a kprobe will do. */
		if (!(f->flags & BG_FN_KPROBE) && !attach__attached(l->a, (uint32_t)i))
			attach__disown(l->a, (uint32_t)i);
		if ((f->flags & (BG_FN_KPROBE | BG_FN_CALLSITE)) != BG_FN_KPROBE)
			continue;
		kprobes__attach(l->kp, (uint32_t)i, f);
		/* --kprobes puts every function here: say how far it got. */
		if (!multi)
			attach__progress(l->a, (uint32_t)i + 1, t0, &last);
	}
	if (last > 0)
		fprintf(stderr, "\n");
	kprobes__flush(l->kp);
	for (size_t i = 0; i < ft->n; i++) {
		const struct bg_func *f = &ft->f[i];

		if (!(f->flags & BG_FN_GRAPH))
			continue;
		graphs++;
		if (!(f->flags & BG_FN_KPROBE) || kprobes__attached(l->kp, (uint32_t)i)) {
			graphs_ok++;
			continue;
		}
		/* -v: kprobes__attach has said why already. */
		if (!l->verbose)
			fprintf(stderr, "bpfgraph: cannot trace '%s': %s\n", f->display,
				multi ? "the kernel refused its kprobe.multi link" :
				"neither fentry nor a kprobe attached");
	}
	/* No -G function to start a graph: nothing would ever be traced. */
	if (graphs && !graphs_ok)
		return -ENOENT;
	return 0;
}

/* Kprobes on the indirect call sites of everything attached so far. */
static void probe_indirect(struct live *l, const struct kernel_info *ki, bool indirect)
{
	l->ic = icall__new(l->a->skel->progs.bg_icall, ki->ks, ki->kt, l->verbose, stderr);
	if (!l->ic) {
		fprintf(stderr, "bpfgraph: indirect calls are not followed: %s\n",
			strerror(errno));
		return;
	}
	icall__set_indirect(l->ic, indirect);
	/* What is probed at its call sites first: all callers come after. */
	for (size_t i = 0; i < l->p->funcs.n; i++)
		if ((l->p->funcs.f[i].flags & BG_FN_CALLSITE) && wrap(l, (uint32_t)i))
			fprintf(stderr, "bpfgraph: cannot trace '%s' at its call sites\n",
				l->p->funcs.f[i].name);
	for (size_t i = 0; i < l->p->funcs.n; i++)
		icall__probe(l->ic, (uint32_t)i, &l->p->funcs.f[i]);
	/* The plan looked through these for callees: their calls show too. */
	for (size_t i = 0; i < l->p->ncands; i++)
		if (l->p->cands[i].skip == PS_NOT_TRACEABLE && !l->p->cands[i].notrace)
			probe_untraced_calls(l->ic, l->p->cands[i].sym);
}

/* bg_self_lo/hi: what a BPF trampoline calls around our programs. */
static void fill_self_ranges(struct graph_bpf *skel, const struct ksyms *ks)
{
	static const char *const globs[] = {
		"__bpf_prog_enter*", "__bpf_prog_exit*", "__bpf_tramp_enter", "__bpf_tramp_exit",
		NULL,
	};
	struct graph_bpf__rodata *ro = skel->rodata;
	size_t n = 0;

	for (size_t i = 0; i < ksyms__count(ks) && n < BG_SELF_RANGES; i++) {
		const struct ksym *s = ksyms__at(ks, i);

		if (s->module || (s->type != 't' && s->type != 'T'))
			continue;
		for (int g = 0; globs[g]; g++) {
			if (fnmatch(globs[g], s->name, 0))
				continue;
			ro->bg_self_lo[n] = s->addr;
			ro->bg_self_hi[n] = s->addr + (s->size ? s->size : 1);
			n++;
			break;
		}
	}
}

static int configure_skel(struct graph_bpf *skel, const struct bg_opts *o)
{
	struct graph_bpf__rodata *ro = skel->rodata;

	ro->bg_max_depth = o->max_depth;
	ro->bg_discover_irqs = o->discover_irqs;
	ro->bg_thresh_ns = o->thresh_ns;
	ro->bg_self_tgid = getpid();
	ro->bg_filter_pid = o->nr_pids > 0 || o->command_argc > 0;
	ro->bg_filter_cpu = o->nr_cpus > 0;
	memcpy((void *)ro->bg_cpumask, o->cpus, sizeof(ro->bg_cpumask));
	ro->bg_filter_comm = o->comm[0] != 0;
	memcpy((void *)ro->bg_comm, o->comm, sizeof(ro->bg_comm));
	ro->bg_noirqs = !(o->flags & BG_O_IRQS);
	ro->bg_nosleep = !(o->flags & BG_O_SLEEP_TIME);
	/* bg_pause_tgid is set once the command exists (trace()). */
	return bpf_map__set_max_entries(skel->maps.bg_events, o->buffer_size);
}

static int fill_pids(struct graph_bpf *skel, const struct bg_opts *o, pid_t child)
{
	int fd = bpf_map__fd(skel->maps.bg_pids);
	__u8 one = 1;

	for (size_t i = 0; i < o->nr_pids; i++)
		if (bpf_map_update_elem(fd, &o->pids[i], &one, BPF_ANY))
			return -errno;
	if (child > 0) {
		__u32 pid = child;

		if (bpf_map_update_elem(fd, &pid, &one, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* Where records go: a renderer, a record file, or both (then in tee). */
struct output {
	FILE *f;
	struct render *render;
	struct record_writer *rec;
	struct rec_sink print, file;
	struct record_meta meta;
};

static int tee_feed(void *ctx, const struct bg_rec *r)
{
	struct output *out = ctx;
	int err = out->file.feed(out->file.ctx, r);

	return err ? err : out->print.feed(out->print.ctx, r);
}

static void tee_drain(void *ctx, uint64_t upto)
{
	struct output *out = ctx;

	out->file.drain(out->file.ctx, upto);
	out->print.drain(out->print.ctx, upto);
}

static void tee_flush(void *ctx)
{
	struct output *out = ctx;

	out->file.flush(out->file.ctx);
	out->print.flush(out->print.ctx);
}

static int open_render(struct output *out, const struct bg_opts *o, const struct tracer_sinks *ts,
		       const struct functab *funcs)
{
	const char *path = ts->record ? NULL : o->output;
	struct render_opts ro = {
		.funcs = funcs, .format = o->format, .flags = o->flags, .dialect = o->dialect,
		.nr_cpu_ids = (uint32_t)libbpf_num_possible_cpus(), .header = !o->no_header,
		.folded_count = o->folded_count,
	};

	out->f = path ? fopen(path, "we") : stdout;
	if (!out->f) {
		fprintf(stderr, "bpfgraph: cannot open '%s': %s\n", path, strerror(errno));
		return -errno;
	}
	/*
	 * A file is read afterwards: large writes (a system call costs much
	 * under emulation). stdout keeps stdio's buffering, so a pipe or a
	 * terminal sees lines as they come.
	 */
	if (path)
		setvbuf(out->f, NULL, _IOFBF, 1 << 20);
	ro.out = out->f;
	out->render = render__new(&ro);
	if (!out->render)
		return -ENOMEM;
	out->print = render__sink(out->render);
	return 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* What report needs to print the records as they would have been here. */
static void fill_meta(struct record_meta *m, const struct bg_opts *o, const char *cmdline)
{
	static struct utsname u;
	static char host[256];
	uint64_t mono = clock_ns(CLOCK_MONOTONIC);

	*m = (struct record_meta){
		.flags = o->flags, .dialect = o->dialect, .max_depth = o->max_depth,
		.nr_cpu_ids = (uint32_t)libbpf_num_possible_cpus(),
		.ncpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN),
		.header = !o->no_header, .thresh_ns = o->thresh_ns,
		.clock_offset_ns = (int64_t)(clock_ns(CLOCK_REALTIME) - mono),
		.start_ns = mono, .cmdline = (char *)cmdline,
	};
	if (!uname(&u))
		m->release = u.release;
	if (!gethostname(host, sizeof(host) - 1))
		m->hostname = host;
}

static int open_output(struct output *out, const struct bg_opts *o, const struct tracer_sinks *ts,
		       const struct functab *funcs)
{
	int err = 0;

	if (ts->print)
		err = open_render(out, o, ts, funcs);
	if (!err && ts->record) {
		fill_meta(&out->meta, o, ts->cmdline);
		out->rec = record__create(ts->record, &out->meta, funcs, stderr);
		if (!out->rec)
			return -errno;
		out->file = record__sink(out->rec);
	}
	/* Before COMMAND runs and writes to the same stdout. */
	if (out->f)
		fflush(out->f);
	return err;
}

static struct rec_sink output_sink(struct output *out)
{
	if (out->render && out->rec)
		return (struct rec_sink){ tee_feed, tee_drain, tee_flush, out };
	return out->rec ? out->file : out->print;
}

static void fill_trailer(struct record_trailer *t, const struct attach *a,
			 const struct session *s)
{
	*t = (struct record_trailer){
		.records = s->st.records, .drops = s->st.drops,
		.recursion_misses = a->st.recursion_misses, .nested = s->st.nested,
		.unmatched_exits = s->st.unmatched_exits, .unmatched_entries = s->st.unwound,
		.deep = s->st.deep, .nostate = s->st.nostate,
		.end_ns = clock_ns(CLOCK_MONOTONIC),
	};
}

static int close_record(struct output *out, const struct attach *a, const struct session *s,
			const char *path)
{
	struct record_trailer t;
	int err = 0;

	if (a) {
		fill_trailer(&t, a, s);
		err = record__write_trailer(out->rec, &t);
		fprintf(stderr, "bpfgraph: %llu records written to '%s' (%llu bytes)\n",
			(unsigned long long)s->st.records, path,
			(unsigned long long)record__bytes(out->rec));
	}
	return record__close(out->rec) ?: err;
}

/* After the session (a and s NULL on error paths): ends and closes both. */
static int close_output(struct output *out, const struct attach *a, const struct session *s,
			const char *path)
{
	int err = 0;

	if (out->render && a)
		err = render__finish(out->render);
	render__free(out->render);
	if (out->f && out->f != stdout && fclose(out->f) && !err)
		err = -errno;
	else if (out->f == stdout)
		fflush(stdout);
	if (out->rec)
		err = close_record(out, a, s, path) ?: err;
	return err;
}

static void print_summary(const struct plan *p, const struct attach *a,
			  const struct session *s, const struct live *l)
{
	const struct kprobe_stats *ks = l->kp ? kprobes__stats(l->kp) : NULL;
	unsigned int attached = a->st.attached, failed = a->st.failed;
	double attach_s = a->st.attach_s, detach_s = a->st.detach_s;
	char kp[64] = "";

	/* Not failures, but not trampolines either: -v names them. */
	if (a->no_fentry && ks) {
		attached = ks->attached;
		failed += ks->failed;
		attach_s += ks->attach_s;
		detach_s += ks->detach_s;
		if (l->po.kprobes_how)
			snprintf(kp, sizeof(kp), " (by %s, %u links, %u merges)", l->po.kprobes_how,
				 ks->links, ks->merges);
		else
			snprintf(kp, sizeof(kp), " (by kprobe: --kprobes)");
	} else if (a->st.handed_over) {
		snprintf(kp, sizeof(kp), " (+%u by kprobe: fentry refused)",
			 a->st.handed_over);
	}
	fprintf(stderr,
		"bpfgraph: %u functions attached, %zu skipped, %u failed%s; %llu records, "
		"%llu dropped, %llu recursion misses, %llu nested in the tracer, "
		"%llu unmatched exits, %llu unmatched entries, %llu too deep; "
		"attach %.2f s, detach %.2f s\n",
		attached, p->nskipped, failed, kp,
		(unsigned long long)s->st.records, (unsigned long long)s->st.drops,
		(unsigned long long)a->st.recursion_misses, (unsigned long long)s->st.nested,
		(unsigned long long)s->st.unmatched_exits, (unsigned long long)s->st.unwound,
		(unsigned long long)s->st.deep, attach_s, detach_s);
	if (s->st.drops)
		fprintf(stderr, "bpfgraph: %llu records were lost (ring buffer full): "
			"use a larger -b or trace fewer functions\n",
			(unsigned long long)s->st.drops);
	if (s->st.targets_full)
		fprintf(stderr, "bpfgraph: %llu indirect call targets were not followed: "
			"more distinct targets than the probes can remember; narrow the "
			"trace (-x, --callee-depth)\n",
			(unsigned long long)s->st.targets_full);
	/* Which trampoline layout the kernel has: found per call (tramp_caller_at()). */
	if (verbosity && (s->st.tramp_call || s->st.tramp_jmp))
		fprintf(stderr, "bpfgraph: trampoline frames: %llu entered by a call from the "
			"fentry site, %llu by a jmp (caller's return address one slot lower)\n",
			(unsigned long long)s->st.tramp_call, (unsigned long long)s->st.tramp_jmp);
	if (s->st.active_neg)
		fprintf(stderr, "bpfgraph: internal error: the count of tasks inside a graph "
			"went below zero %llu times; records may be missing: please report it\n",
			(unsigned long long)s->st.active_neg);
}

/* d: NULL when nothing was discovered while tracing (--no-discovery). */
static void print_discovery(const struct live *l, const struct discover_stats *d)
{
	if (l->kp) {
		const struct kprobe_stats *ks = kprobes__stats(l->kp);

		if ((ks->attached || ks->failed) && !l->po.kprobes_only)
			fprintf(stderr, "bpfgraph: %u functions without BTF or a unique name "
				"traced by kprobe, %u failed; attach %.2f s, detach %.2f s\n",
				ks->attached, ks->failed, ks->attach_s, ks->detach_s);
	}
	if (l->ic) {
		const struct icall_stats *is = icall__stats(l->ic);

		if (d)
			fprintf(stderr, "bpfgraph: %u indirect call sites in %u functions: %u "
				"probed, %u not probeable, %u refused; %u targets met, %u newly "
				"traced; probes %.2f s, removal %.2f s\n",
				is->sites, is->funcs, is->probes, is->unusable, is->failed,
				l->targets, l->targets_new, is->attach_s, is->detach_s);
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

int tracer__check_report_options(const struct bg_opts *o)
{
	if (o->flags & BG_O_SLEEP_TIME)
		return 0;
	fprintf(stderr, "bpfgraph: nosleep-time applies while tracing (the time a task was "
		"switched out is taken off as it happens): trace or record with it\n");
	return -EOPNOTSUPP;
}

int tracer__check_cpus(const struct bg_opts *o)
{
	int ncpu = libbpf_num_possible_cpus();

	if (!o->nr_cpus || ncpu <= 0)
		return 0;
	for (int c = 0; c < ncpu; c++)
		if (cli__cpu_isset(o, c))
			return 0;
	fprintf(stderr, "bpfgraph: -C names no CPU of this machine (possible CPUs: 0-%d)\n",
		ncpu - 1);
	return -EINVAL;
}

static int trace(const struct bg_opts *o, struct plan *p, const struct tracer_sinks *ts,
		 struct kernel_info *ki)
{
	struct attach a = { .funcs = &p->funcs, .verbose = o->verbosity, .err = stderr,
			    .progress = isatty(STDERR_FILENO),
			    .no_fentry = ki->hook != BG_HOOK_FENTRY };
	struct session s = { .go_fd = -1, .batch_fd = -1, .duration_ms = o->duration_ms };
	struct output out = {};
	struct live live = { .p = p, .po = plan_opts_of(o, ki), .a = &a, .verbose = o->verbosity };
	struct bpf_link *switch_link = NULL;
	int err, cerr, stats_fd = -1;
	unsigned int traced;

	/* Ours from here: freed with the rest (free_wide). */
	live.w = ki->wide_list;
	ki->wide_list = NULL;
	a.skel = graph_bpf__open();
	if (!a.skel) {
		err = -errno;
		fprintf(stderr, "bpfgraph: failed to open the BPF object: %s\n", strerror(-err));
		free_wide(&live);
		return err;
	}
	err = configure_skel(a.skel, o);
	/* The kprobe.multi pair only where it is used: older kernels may refuse its load. */
	bpf_program__set_autoload(a.skel->progs.bg_mentry, ki->hook == BG_HOOK_KMULTI);
	bpf_program__set_autoload(a.skel->progs.bg_mexit, ki->hook == BG_HOOK_KMULTI);
	bpf_program__set_autoload(a.skel->progs.bg_wide, ki->wide);
	if (ki->wide)
		bpf_program__set_expected_attach_type(a.skel->progs.bg_wide,
						      (enum bpf_attach_type)BG_ATTACH_KPROBE_SESSION);
	if (o->verbosity)
		fprintf(stderr, "bpfgraph: hooks: %s\n", ki->hook_why);
	if (o->verbosity && ki->hook == BG_HOOK_KMULTI)
		fprintf(stderr, "bpfgraph: wide net: %s\n", ki->wide_why);
	/* bg_franges: every function of the plan and room for live ones. */
	if (!err)
		err = bpf_map__set_max_entries(a.skel->maps.bg_franges,
					       (uint32_t)(p->funcs.n + LIVE_FRANGES));
	fill_self_ranges(a.skel, ki->ks);
	if (!err && o->command_argc)
		err = session__spawn(&s, o->command,
				    nofile_before.rlim_cur ? &nofile_before : NULL);
	s.pause_child = s.child > 0 && !o->no_pause && ki->kt && !o->thresh_ns &&
			!o->no_discovery;
	s.discover_irqs = o->discover_irqs;
	if (s.pause_child)
		a.skel->rodata->bg_pause_tgid = (uint32_t)s.child;
	a.skel->rodata->bg_wide_once = ki->wide && o->wide != BG_WIDE_ALWAYS;
	/* -vv: per-program run counts and time, kept only while this fd is open. */
	if (!err && o->verbosity >= 2) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0)
			fprintf(stderr, "bpfgraph: cannot enable bpf_stats (%s): no program "
				"run counts\n", strerror(errno));
	}
	if (!err)
		err = attach__all(&a);
	if (!err)
		err = attach_kprobes(&live, ki->hook);
	if (!err && ki->wide && (err = attach_wide(&live, o))) {
		/* Traced without it: the first call is then incomplete. */
		fprintf(stderr, "bpfgraph: cannot attach the wide net (%s): the first traced "
			"call shows only what was planned; --wide=off says so up front\n",
			strerror(-err));
		free_wide(&live);
		err = 0;
	}
	if (!err) {
		/* Flushes a switched-out task's records (and does nosleep-time). */
		switch_link = bpf_program__attach(a.skel->progs.bg_switch);
		if (!switch_link) {
			err = -errno;
			fprintf(stderr, "bpfgraph: cannot attach to the sched_switch tracepoint: "
				"%s\n", strerror(errno));
		}
	}
	if (!err)
		err = fill_pids(a.skel, o, s.child);
	if (!err)
		err = open_output(&out, o, ts, &p->funcs);
	if (err) {
		session__abort(&s);
		bpf_link__destroy(switch_link);
		free_wide(&live);
		kprobes__free(live.kp);
		attach__detach(&a);
		if (stats_fd >= 0)
			close(stats_fd);
		close_output(&out, NULL, NULL, ts->record);
		return err;
	}
	for (uint32_t i = 0; i < p->funcs.n; i++)
		frange_set(a.skel, i, &p->funcs.f[i]);
	s.ringbuf_fd = bpf_map__fd(a.skel->maps.bg_events);
	s.stats_fd = bpf_map__fd(a.skel->maps.bg_stats);
	s.batch_fd = bpf_map__fd(a.skel->maps.bg_batch);
	s.enabled = &a.skel->bss->bg_enabled;
	s.sink = output_sink(&out);
	/* Without kernel text there is no static discovery to extend either. */
	if (ki->kt && !o->thresh_ns && !o->no_discovery) {
		s.discover = discover__new(&p->funcs, ki->ks);
		s.on_caller = on_caller;
		s.on_expand = on_expand;
		s.on_target = on_target;
		s.on_settled = on_settled;
		s.caller_ctx = &live;
		/* The wide net shows what indirect calls reach: no probes for them. */
		if (!live.w)
			probe_indirect(&live, ki, true);
	} else if (ki->kt && !o->thresh_ns && !o->no_callsites) {
		probe_indirect(&live, ki, false); /* the call-site probes only */
	}
	if (live.w) {
		s.map_func = map_wide;
		s.on_poll = on_poll;
		s.caller_ctx = &live;
		live.s = &s;
		/*
		 * Nothing is attached while the net is on (it shows everything):
		 * the command runs on, and what discovery finds waits until the
		 * net is narrowed (with --wide=always, for good).
		 */
		live.pause_after = s.pause_child;
		s.pause_child = false;
		s.hold_growth = true;
	}
	a.skel->bss->bg_enabled = 1;
	if (verbosity)
		fprintf(stderr, "bpfgraph: ready after %.2f s: kernel symbols, BTF and text %.2f s, "
			"hook probes and plan %.2f s, programs and links %.2f s (the wide net "
			"%.2f s of it)\n",
			links__now() - ki->t_start, ki->t_kernel - ki->t_start,
			ki->t_plan - ki->t_kernel, links__now() - ki->t_plan,
			live.w ? wide__stats(live.w)->attach_s : 0.0);
	/* Say when tracing really began (without a command: when to stop). */
	traced = a.st.attached + (live.kp ? kprobes__stats(live.kp)->attached : 0) +
		 (live.w ? (unsigned int)wide__stats(live.w)->funcs : 0);
	if (s.child <= 0 && (verbosity || isatty(STDERR_FILENO)))
		fprintf(stderr, "bpfgraph: tracing %u functions; Ctrl-C to stop\n", traced);
	else if (s.child > 0 && verbosity)
		fprintf(stderr, "bpfgraph: tracing %u functions; starting the command\n", traced);
	if (s.child > 0)
		err = session__go(&s);
	if (!err)
		err = session__run(&s);
	attach__count_misses(&a);
	if (stats_fd >= 0)
		attach__print_runs(&a, 15);
	icall__detach(live.ic);
	free_wide(&live);
	kprobes__detach(live.kp);
	bpf_link__destroy(switch_link);
	attach__unlink(&a);
	session__finish(&s);
	session__read_stats(&s);
	attach__detach(&a);
	if (stats_fd >= 0)
		close(stats_fd);
	cerr = close_output(&out, &a, &s, ts->record);
	print_summary(p, &a, &s, &live);
	if (s.st.unmapped)
		fprintf(stderr, "bpfgraph: %llu records of the wide net named no function it "
			"listed: dropped\n", (unsigned long long)s.st.unmapped);
	print_discovery(&live, s.discover ? discover__stats(s.discover) : NULL);
	discover__free(s.discover);
	icall__free(live.ic);
	kprobes__free(live.kp);
	if (!err && s.st.cmd_status > 0)
		fprintf(stderr, "bpfgraph: command exited with status %d\n",
			WIFEXITED(s.st.cmd_status) ? WEXITSTATUS(s.st.cmd_status) : 128 + WTERMSIG(s.st.cmd_status));
	return err ?: cerr;
}

/*
 * An output that cannot be created is found before anything is attached
 * (then it is opened for real, and truncated, once tracing starts). The
 * file is created if missing, never truncated here.
 */
static int check_writable(const char *path)
{
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0) {
		int err = -errno;

		fprintf(stderr, "bpfgraph: cannot write '%s': %s\n", path, strerror(-err));
		return err;
	}
	close(fd);
	return 0;
}

void tracer__set_verbosity(int v)
{
	verbosity = v;
	libbpf_set_print(libbpf_print);
}

int tracer__run(const struct bg_opts *o, const struct tracer_sinks *ts)
{
	struct kernel_info ki = {};
	struct plan p = {};
	int err;

	/* Before anything is planned or attached: a typo costs nothing. */
	if (o->command_argc && !o->dry_run && (err = session__check_command(o->command[0]))) {
		fprintf(stderr, "bpfgraph: cannot run '%s': %s\n", o->command[0], strerror(-err));
		return err;
	}
	/* The files open_output() opens: the record file, else -o. */
	if (!o->dry_run && (err = check_writable(ts->record ? ts->record : o->output)))
		return err;
	for (size_t i = 0; i < o->nr_pids && !o->dry_run; i++) {
		/* Signal 0 tests existence; EPERM: it exists (another user's). */
		if (kill((pid_t)o->pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, "bpfgraph: -p %u: no such process or thread\n", o->pids[i]);
			return -ESRCH;
		}
	}
	raise_nofile();
	ki.t_start = links__now();
	err = load_kernel_info(&ki, o);
	ki.t_kernel = links__now();
	if (!err)
		err = choose_hook(&ki, o);
	if (!err) {
		choose_wide(&ki, o);
		start_wide(&ki, o);
	}
	if (!err)
		err = make_plan(&p, o, &ki);
	ki.t_plan = links__now();
	if (!err && o->dry_run) {
		printf("# hooks: %s\n", ki.hook_why);
		if (ki.hook == BG_HOOK_KMULTI)
			printf("# wide net: %s\n", ki.wide_why);
		plan__print(&p, stdout);
	}
	else if (!err)
		err = trace(o, &p, ts, &ki);
	plan__free(&p);
	free_kernel_info(&ki);
	return err;
}
