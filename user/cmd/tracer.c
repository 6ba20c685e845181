// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracing steps: kernel info, plan, open, attach, run, report,
 * detach. Live tracing and "bpfgraph record" differ only in where the
 * records go (struct tracer_sinks).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "cli.h"
#include "graph.skel.h"
#include "kbtf.h"
#include "detail.h"
#include "globset.h"
#include "args.h"
#include "ksyms.h"
#include "ktext.h"
#include "plan.h"
#include "discover.h"
#include "kprobe.h"
#include "links.h"
#include "live.h"
#include "others.h"
#include "output.h"
#include "session.h"
#include "handoff.h"
#include "stop.h"
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
	/* fentry-multi: functions it cannot take go to kprobe.multi (the kernel has it) */
	bool kmulti_rest;
	/* kprobe.multi (the tier or the rest) by kprobe.session links, not pairs */
	bool ksession;
	bool wide; /* the wide net (user/hook/wide.h) is used */
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
 * minutes to detach). fentry-multi is not auto's choice: beside the wide
 * net each traced call costs it eight entry hooks on __rcu_read_lock/
 * unlock from the trampoline's helpers (7.3: 11.6x function_graph's added
 * time per call, kprobe.multi 2.8x; docs/performance.md).
 */
static int choose_hook(struct kernel_info *ki, const struct bg_opts *o)
{
	int multi;

	ki->hook = o->hook;
	switch (o->hook) {
	case BG_HOOK_TMULTI:
		multi = attach__multi_supported();
		if (multi > 0) {
			ki->kmulti_rest = kprobes__multi_supported() > 0;
			ki->ksession = ki->kmulti_rest && kprobes__session_supported() > 0;
			ki->hook_why = "fentry.multi/fexit.multi, one link pair for all functions, a "
				       "trampoline per function (--hook=fentry-multi)";
			return 0;
		}
		fprintf(stderr, "bpfgraph: this kernel cannot attach fentry.multi links (%s): "
			"it needs tracing_multi (7.x); --hook=auto takes the best this kernel has\n",
			multi < 0 ? strerror(-multi) : "no BPF_TRACE_FENTRY_MULTI");
		return -EOPNOTSUPP;
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
		ki->ksession = o->hook != BG_HOOK_KMULTI && kprobes__session_supported() > 0;
		if (o->hook == BG_HOOK_KSESSION && !ki->ksession) {
			fprintf(stderr, "bpfgraph: this kernel cannot attach kprobe.session links "
				"(6.10+): --hook=kprobe-multi hooks returns by kretprobe.multi\n");
			return -EOPNOTSUPP;
		}
		ki->hook_why =
			o->hook == BG_HOOK_KMULTI ?
				"kprobe.multi and kretprobe.multi, a link pair for all functions "
				"(--hook=kprobe-multi)" :
			o->hook == BG_HOOK_KSESSION ?
				"kprobe.session, one link for all functions, returns hooked only "
				"inside graphs (--hook=kprobe-session)" :
			ki->ksession ?
				"kprobe.session, one link for all functions, returns hooked only "
				"inside graphs (the kernel has it; --hook=fentry for trampolines)" :
				"kprobe.multi and kretprobe.multi, a link pair for all functions "
				"(the kernel has no kprobe.session; --hook=fentry for trampolines)";
		return 0;
	}
	if (o->hook == BG_HOOK_KMULTI || o->hook == BG_HOOK_KSESSION) {
		fprintf(stderr, "bpfgraph: this kernel cannot attach kprobe.multi links (%s): "
			"it needs CONFIG_FPROBE (5.18+); use --hook=fentry or --hook=kprobe\n",
			multi < 0 ? strerror(-multi) : "no CONFIG_FPROBE");
		return -EOPNOTSUPP;
	}
	ki->hook = BG_HOOK_FENTRY;
	ki->hook_why = "fentry/fexit, a trampoline per function (the kernel has no kprobe.multi)";
	return 0;
}

/* What fentry-multi cannot take (variadic...): by kprobe.multi where the kernel has it. */
static const char *rest_why(const struct kernel_info *ki)
{
	return ki->hook != BG_HOOK_TMULTI ? "" :
	       ki->ksession	 ? "; what it cannot take by kprobe.session" :
	       ki->kmulti_rest	 ? "; what it cannot take by kprobe.multi" :
				   "; what it cannot take by kprobe";
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
	/* Once narrowed, what it met goes to kprobe.multi (live.c: link_met). */
	if (ki->hook != BG_HOOK_KMULTI && !(ki->hook == BG_HOOK_TMULTI && ki->kmulti_rest)) {
		ki->wide_why = "none (it needs kprobe.multi links)";
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
		.kprobes_how = ki->hook != BG_HOOK_KMULTI ? NULL :
			       ki->ksession		 ? "kprobe.session" :
							   "kprobe.multi",
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

/*
 * The return hooks' addresses (bg_hooked_ret): a tail-called function's
 * caller is read as one of them, and the entry program takes the caller
 * of the frame below instead.
 */
static void fill_hooked_ret(struct graph_bpf *skel, const struct ksyms *ks)
{
	static const char *const names[] = { "return_to_handler", "arch_rethook_trampoline" };

	for (int i = 0; i < 2 && ks; i++) {
		const struct ksym *s = ksyms__find_name(ks, names[i], NULL);

		skel->rodata->bg_hooked_ret[i] = s ? s->addr : 0;
	}
}

/* bg_graph_lo: the -G functions' addresses, if there are at most BG_GRAPH_IPS. */
static void fill_graph_ips(struct graph_bpf *skel, const struct plan *p)
{
	uint32_t n = 0;

	for (size_t i = 0; i < p->funcs.n; i++) {
		if (!(p->funcs.f[i].flags & BG_FN_GRAPH))
			continue;
		if (n == BG_GRAPH_IPS || !p->funcs.f[i].addr) {
			n = 0;
			break;
		}
		skel->rodata->bg_graph_lo[n++] = p->funcs.f[i].addr;
	}
	skel->rodata->bg_graph_n = n;
}

struct range {
	uint64_t lo, hi;
};

static int by_lo(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Only padding (__pfx_/__cfi_ symbols) between lo and hi? */
static bool only_padding(const struct ksyms *ks, uint64_t lo, uint64_t hi)
{
	while (lo < hi) {
		const struct ksym *s = ksyms__find_addr(ks, lo);

		if (!s || (strncmp(s->name, "__pfx_", 6) && strncmp(s->name, "__cfi_", 6)))
			return false;
		lo = s->addr + (s->size ? s->size : 1);
	}
	return true;
}

/*
 * Kernel functions whose calls are our own work (see called_by_us()): the
 * trampoline's helpers around every program run and traced function, and
 * the tracepoint runners of bg_switch (bpf_trace_run2 calls
 * rcu_read_lock() around it on a task switch inside a graph). Neighbours
 * with only padding between them make one range.
 */
static void fill_self_ranges(struct graph_bpf *skel, const struct ksyms *ks)
{
	static const char *const globs[] = {
		"__bpf_prog_enter*", "__bpf_prog_exit*", "__bpf_tramp_enter", "__bpf_tramp_exit",
		"bpf_trace_run[0-9]*", "__bpf_trace_run", NULL,
	};
	struct graph_bpf__rodata *ro = skel->rodata;
	const struct ksym *lo = ksyms__find_name(ks, "_stext", NULL);
	const struct ksym *hi = ksyms__find_name(ks, "_etext", NULL);
	struct globset *g = globset__new(globs);
	struct range r[64];
	size_t n = 0, m = 0;

	if (lo && hi && !lo->module && !hi->module && lo->addr < hi->addr) {
		ro->bg_ktext_lo = lo->addr;
		ro->bg_ktext_hi = hi->addr;
	}

	/* Every kernel symbol against the list: compiled once (globset.h). */
	for (size_t i = 0; g && i < ksyms__count(ks) && n < sizeof(r) / sizeof(r[0]); i++) {
		const struct ksym *s = ksyms__at(ks, i);

		if (s->module || (s->type != 't' && s->type != 'T') || !globset__match(g, s->name))
			continue;
		r[n].lo = s->addr;
		r[n++].hi = s->addr + (s->size ? s->size : 1);
	}
	globset__free(g);
	qsort(r, n, sizeof(r[0]), by_lo);
	for (size_t i = 0; i < n; i++) {
		if (m && only_padding(ks, r[m - 1].hi, r[i].lo)) {
			if (r[i].hi > r[m - 1].hi)
				r[m - 1].hi = r[i].hi;
			continue;
		}
		r[m++] = r[i];
	}
	/* More than fit (no kernel seen has): the first ones. */
	for (size_t i = 0; i < m && i < BG_SELF_RANGES; i++) {
		ro->bg_self_lo[i] = r[i].lo;
		ro->bg_self_hi[i] = r[i].hi;
	}
}

/*
 * The ring buffer: -b, else 8M, or 64M for a broad plan: beyond
 * BROAD_ENTRIES entry functions every call of them, from anywhere, starts
 * a graph. Measured on 6.1 under emulation with vfs_* (--callee-depth=0)
 * and a load: a live text trace in 8M lost 87% of its records, a
 * recording in 64M none (docs/performance.md, "Stopping").
 */
#define BROAD_ENTRIES 16
#define BROAD_BUFFER_SIZE (64U << 20)

static uint32_t ring_size(const struct bg_opts *o, const struct plan *p)
{
	size_t entries = 0;

	if (o->buffer_size_set)
		return o->buffer_size;
	for (size_t i = 0; i < p->funcs.n; i++)
		entries += !!(p->funcs.f[i].flags & BG_FN_GRAPH);
	return entries > BROAD_ENTRIES && o->buffer_size < BROAD_BUFFER_SIZE ?
		       BROAD_BUFFER_SIZE : o->buffer_size;
}

static int configure_skel(struct graph_bpf *skel, const struct bg_opts *o, uint32_t ring)
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
	ro->bg_args = !!(o->flags & BG_O_ARGS);
	ro->bg_detail_on = (o->flags & BG_O_ARGS) && (o->flags & BG_O_DETAIL);
	ro->bg_nosleep = !(o->flags & BG_O_SLEEP_TIME);
	/* bg_pause_tgid is set once the command exists (trace()). */
	return bpf_map__set_max_entries(skel->maps.bg_events, ring);
}

/*
 * --args-detail: the read plan of each planned function with something to
 * read, found in its prototype as the argument printer finds it (vmlinux
 * first, then its module's BTF). Functions found while tracing get none.
 */
static int fill_detail(struct graph_bpf *skel, const struct bg_opts *o, const struct plan *p,
		       struct kbtf *kb)
{
	unsigned int what = (o->flags & BG_O_DETAIL_STR ? DETAIL_STRINGS : 0) |
			    (o->flags & BG_O_DETAIL_FIELDS ? DETAIL_FIELDS : 0);
	const struct btf *vml = kb ? kbtf__btf(kb, NULL) : NULL;
	bool tags = detail__btf_has_user_tags(vml);
	int fd = bpf_map__fd(skel->maps.bg_detail);
	size_t planned = 0;

	if (!(o->flags & BG_O_ARGS) || !what || !vml)
		return 0;
	for (uint32_t i = 0; i < p->funcs.n; i++) {
		const struct bg_func *f = &p->funcs.f[i];
		const struct btf *btf = vml;
		uint32_t id = args__find_func(btf, f->name);
		struct bg_detail_plan dp;

		if (!id && f->module && (btf = kbtf__btf(kb, f->module)))
			id = args__find_func(btf, f->name);
		if (!id || !detail__plan(btf, id, what, tags, &dp))
			continue;
		if (bpf_map_update_elem(fd, &i, &dp, BPF_ANY)) {
			int err = -errno;

			fprintf(stderr, "bpfgraph: failed to pass the read plan of '%s': %s\n",
				f->name, strerror(-err));
			return err;
		}
		planned++;
	}
	if (o->verbosity)
		fprintf(stderr, "bpfgraph: --args-detail: %zu functions read strings or fields "
			"(user pointers: %s)\n", planned,
			tags ? "from BTF type tags" : "kernel read, then user read");
	return 0;
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
/* What one trace holds from attaching to detaching. */
struct run {
	struct graph_bpf *skel; /* owned by a */
	struct attach *a;
	struct live *live;
	struct session s;
	struct output *out; /* NULL until opened */
	struct bpf_link *switch_link;
	int stats_fd; /* -vv: bpf_stats stays enabled while it is open */
	bool no_fentry; /* a kprobe tier */
	const char *kprobes_how; /* plan_opts.kprobes_how */
	/*
	 * A child process took the hooks over (handoff.h): no link, map or
	 * program of this process may be touched any more.
	 */
	bool handed_off;
	pid_t releaser; /* that child, while still at work when it was left */
	double detach_s; /* from the release's start until it ended or was left */
};

/* "; by CPU: CPU 0: n, CPU 3: m" for the CPUs whose count is not 0, at most 8. */
static void print_by_cpu(const uint64_t *v, int ncpu)
{
	int shown = 0, more = 0;

	for (int c = 0; v && c < ncpu; c++) {
		if (!v[c])
			continue;
		if (shown == 8) {
			more++;
			continue;
		}
		fprintf(stderr, "%s CPU %d: %llu", shown++ ? "," : "; by CPU:", c,
			(unsigned long long)v[c]);
	}
	if (more)
		fprintf(stderr, " and %d more CPUs", more);
}

/* Lost records, with the CPUs they were lost on (their graphs may be wrong). */
static void print_drops(const struct session_stats *st)
{
	fprintf(stderr, "bpfgraph: %llu records were lost (ring buffer full)",
		(unsigned long long)st->drops);
	print_by_cpu(st->drops_cpu, st->ncpu_stats);
	fprintf(stderr, "; graphs on those CPUs may be cut or misnested. A larger -b, "
		"'bpfgraph record' (cheaper to keep up with than text) or fewer "
		"functions keep a trace whole\n");
}

/* Exits left out: no call of theirs was open in their task (begun before the trace). */
static void print_unmatched(const struct session_stats *st)
{
	fprintf(stderr, "bpfgraph: %llu exits matched no call open in their task and were "
		"left out", (unsigned long long)st->unmatched_exits);
	print_by_cpu(st->unmatched_cpu, st->ncpu_stats);
	fprintf(stderr, "\n");
}

static void print_summary(const struct plan *p, const struct run *r)
{
	const struct kprobe_stats *ks = live__kprobe_stats(r->live);
	const struct attach_stats *as = attach__stats(r->a);
	const struct session *s = &r->s;
	unsigned int attached = as->attached, failed = as->failed;
	double attach_s = as->attach_s;
	char kp[64] = "";

	/* Not failures, but not trampolines either: -v names them. */
	if (r->no_fentry && ks) {
		attached = ks->attached;
		failed += ks->failed;
		attach_s += ks->attach_s;
		if (r->kprobes_how)
			snprintf(kp, sizeof(kp), " (by %s, %u links, %u merges)", r->kprobes_how,
				 ks->links, ks->merges);
		else
			snprintf(kp, sizeof(kp), " (by kprobe: --kprobes)");
	} else if (as->handed_over && as->no_fds) {
		snprintf(kp, sizeof(kp), " (+%u handed to kprobes, %u for want of fds)",
			 as->handed_over, as->no_fds);
	} else if (as->handed_over) {
		snprintf(kp, sizeof(kp), " (+%u by kprobe: fentry refused)", as->handed_over);
	}
	fprintf(stderr,
		"bpfgraph: %u functions attached, %zu skipped, %u failed%s; %llu records, "
		"%llu dropped, %llu recursion misses, %llu nested in the tracer, "
		"%llu unmatched exits, %llu unmatched entries, %llu too deep; "
		"attach %.2f s, detach %.2f s\n",
		attached, p->nskipped, failed, kp,
		(unsigned long long)s->st.records, (unsigned long long)s->st.drops,
		(unsigned long long)as->recursion_misses, (unsigned long long)s->st.nested,
		(unsigned long long)s->st.unmatched_exits, (unsigned long long)s->st.unwound,
		(unsigned long long)s->st.deep, attach_s, r->detach_s);
	if (r->releaser > 0)
		fprintf(stderr, "bpfgraph: the hooks are still being released by process %d "
			"(they record nothing meanwhile); --wait-detach waits for that\n",
			(int)r->releaser);
	if (s->st.drops)
		print_drops(&s->st);
	if (s->st.unmatched_exits)
		print_unmatched(&s->st);
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

/* The counts a record file ends with. */
static void fill_trailer(struct record_trailer *t, const struct run *r)
{
	const struct session_stats *st = &r->s.st;

	*t = (struct record_trailer){
		.records = st->records, .drops = st->drops,
		.recursion_misses = attach__stats(r->a)->recursion_misses, .nested = st->nested,
		.unmatched_exits = st->unmatched_exits, .unmatched_entries = st->unwound,
		.deep = st->deep, .nostate = st->nostate,
		.end_ns = output__clock_ns(CLOCK_MONOTONIC), .held = st->held,
	};
}

/*
 * After the session: the summary, then what live discovery did. Returns
 * -EMFILE when functions were lost for want of file descriptors: the
 * trace is incomplete for a cause the user can remove.
 */
static int print_report(const struct plan *p, const struct run *r)
{
	const struct kprobe_stats *ks = live__kprobe_stats(r->live);
	unsigned int no_fds = attach__stats(r->a)->no_fds + (ks ? ks->no_fds : 0);
	struct rlimit lim = { 0, 0 };

	print_summary(p, r);
	if (r->s.st.detail_lost)
		fprintf(stderr, "bpfgraph: %llu calls were recorded without their --args-detail "
			"reads (their CPU's batch was in use by a preempted program)\n",
			(unsigned long long)r->s.st.detail_lost);
	if (r->s.st.unmapped)
		fprintf(stderr, "bpfgraph: %llu records of the wide net named no function it "
			"listed: dropped\n", (unsigned long long)r->s.st.unmapped);
	live__print(r->live, r->s.discover ? discover__stats(r->s.discover) : NULL,
		    !r->handed_off);
	if (!no_fds)
		return 0;
	getrlimit(RLIMIT_NOFILE, &lim);
	fprintf(stderr, "bpfgraph: %u hooks failed for want of file descriptors (the limit is "
		"%llu): their functions are missing from the trace; raise the limit (ulimit -n, "
		"fs.nr_open) or trace fewer functions\n", no_fds,
		(unsigned long long)lim.rlim_cur);
	return -EMFILE;
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

/* The BPF object, opened and set up for this plan; attach__all() loads it. */
static struct graph_bpf *open_skel(const struct bg_opts *o, const struct kernel_info *ki,
				   const struct plan *p)
{
	size_t nfuncs = p->funcs.n;
	struct graph_bpf *skel = graph_bpf__open();
	bool kmulti;
	int err;

	if (!skel) {
		err = errno;
		fprintf(stderr, "bpfgraph: failed to open the BPF object: %s\n", strerror(err));
		errno = err;
		return NULL;
	}
	err = configure_skel(skel, o, ring_size(o, p));
	/*
	 * The kprobe.multi programs only where they are used: older kernels
	 * may refuse their load. bg_mentry also hooks __rcu_read_lock/unlock
	 * once the wide net is narrowed (entry only).
	 */
	kmulti = ki->hook == BG_HOOK_KMULTI || ki->kmulti_rest;
	bpf_program__set_autoload(skel->progs.bg_mentry, kmulti && (!ki->ksession || ki->wide));
	bpf_program__set_autoload(skel->progs.bg_mexit, kmulti && !ki->ksession);
	bpf_program__set_autoload(skel->progs.bg_msession, kmulti && ki->ksession);
	bpf_program__set_autoload(skel->progs.bg_wide, ki->wide);
	if (ki->wide)
		bpf_program__set_expected_attach_type(skel->progs.bg_wide,
						      (enum bpf_attach_type)BG_ATTACH_KPROBE_SESSION);
	/*
	 * Per-function kprobes and per-site probes (indirect calls, RCU call
	 * sites): with the whole plan on kprobe.multi links and the wide net
	 * instead of per-site probes, nothing attaches them unless the kernel
	 * refuses the net; live.c loads them then (probe_progs()).
	 */
	if (ki->wide && kmulti) {
		bpf_program__set_autoload(skel->progs.bg_kentry, false);
		bpf_program__set_autoload(skel->progs.bg_kexit, false);
		bpf_program__set_autoload(skel->progs.bg_icall, false);
	}
	if (kmulti && ki->ksession)
		bpf_program__set_expected_attach_type(skel->progs.bg_msession,
						      (enum bpf_attach_type)BG_ATTACH_KPROBE_SESSION);
	/* bg_franges: every function of the plan and room for live ones. */
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.bg_franges,
					       (uint32_t)(nfuncs + LIVE_FRANGES));
	/* bg_detail: a plan per planned function at most */
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.bg_detail,
					       o->flags & BG_O_DETAIL ? (uint32_t)nfuncs + 1 : 1);
	fill_self_ranges(skel, ki->ks);
	fill_hooked_ret(skel, ki->ks);
	fill_graph_ips(skel, p);
	if (err) {
		fprintf(stderr, "bpfgraph: cannot size the BPF maps: %s\n", strerror(-err));
		graph_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/* The BPF objects and live discovery, before anything is loaded. */
static int run_open(struct run *r, const struct bg_opts *o, struct plan *p,
		    struct kernel_info *ki)
{
	struct live_opts lo = {
		.plan = p, .po = plan_opts_of(o, ki), .hook = ki->hook,
		.kmulti_rest = ki->kmulti_rest, .ksession = ki->ksession,
		.wide_always = o->wide == BG_WIDE_ALWAYS, .progress = isatty(STDERR_FILENO),
		.verbose = o->verbosity,
	};
	struct wide *w = ki->wide_list;

	ki->wide_list = NULL; /* live's from here */
	r->no_fentry = ki->hook != BG_HOOK_FENTRY && ki->hook != BG_HOOK_TMULTI;
	r->kprobes_how = lo.po.kprobes_how;
	r->skel = open_skel(o, ki, p);
	if (r->skel)
		r->a = attach__new(&(struct attach_opts){
			.skel = r->skel, .funcs = &p->funcs, .verbose = o->verbosity,
			.progress = lo.progress, .no_fentry = r->no_fentry,
			.multi = ki->hook == BG_HOOK_TMULTI, .err = stderr });
	if (!r->a) {
		wide__free(w);
		return -errno;
	}
	lo.attach = r->a;
	lo.skel = r->skel;
	lo.wide = w;
	r->live = live__new(&lo);
	if (!r->live)
		return -errno;
	if (o->verbosity)
		fprintf(stderr, "bpfgraph: hooks: %s%s\n", ki->hook_why, rest_why(ki));
	if (o->verbosity && (ki->hook == BG_HOOK_KMULTI || ki->hook == BG_HOOK_TMULTI))
		fprintf(stderr, "bpfgraph: wide net: %s\n", ki->wide_why);
	return 0;
}

/* Every hook: trampolines, kprobe links, the wide net, sched_switch. */
static int run_attach(struct run *r, const struct kernel_info *ki)
{
	int err = attach__all(r->a);

	if (!err)
		err = live__attach_kprobes(r->live);
	if (!err && ki->wide && (err = live__attach_wide(r->live))) {
		/* Traced without it: the first call is then incomplete. */
		fprintf(stderr, "bpfgraph: cannot attach the wide net (%s): the first traced "
			"call shows only what was planned; --wide=off says so up front\n",
			strerror(-err));
		err = 0;
	}
	if (err)
		return err;
	/* Flushes a switched-out task's records (and does nosleep-time). */
	r->switch_link = bpf_program__attach(r->skel->progs.bg_switch);
	if (!r->switch_link) {
		err = -errno;
		fprintf(stderr, "bpfgraph: cannot attach to the sched_switch tracepoint: %s\n",
			strerror(-err));
	}
	return err;
}

/* The command (stopped until session__go), the hooks and the outputs. */
static int run_setup(struct run *r, const struct bg_opts *o, struct plan *p,
		     const struct tracer_sinks *ts, struct kernel_info *ki)
{
	struct session *s = &r->s;
	int err = run_open(r, o, p, ki);

	if (!err && o->command_argc)
		err = session__spawn(s, o->command, nofile_before.rlim_cur ? &nofile_before : NULL);
	if (err)
		return err;
	s->pause_child = s->child > 0 && !o->no_pause && ki->kt && !o->thresh_ns &&
			 !o->no_discovery;
	s->discover_irqs = o->discover_irqs;
	if (s->pause_child)
		r->skel->rodata->bg_pause_tgid = (uint32_t)s->child;
	r->skel->rodata->bg_wide_once = ki->wide && o->wide != BG_WIDE_ALWAYS;
	/* -vv: per-program run counts and time, kept only while this fd is open. */
	if (o->verbosity >= 2) {
		r->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (r->stats_fd < 0)
			fprintf(stderr, "bpfgraph: cannot enable bpf_stats (%s): no program "
				"run counts\n", strerror(errno));
	}
	err = run_attach(r, ki);
	if (!err)
		err = fill_pids(r->skel, o, s->child);
	if (!err)
		err = fill_detail(r->skel, o, p, ki->kb);
	if (err)
		return err;
	/*
	 * Its header is written now, once the kernel took the programs: a
	 * refusal prints no header. (A full file system was found before
	 * attaching: check_writable.)
	 */
	{
		struct args_src as = output__kernel_args(ki->kb, ki->ks);

		r->out = output__open(o, ts, &p->funcs, &as);
	}
	return r->out ? 0 : -errno;
}

/* The session reads the ring buffer and hands live what it finds. */
static void run_bind(struct run *r, const struct bg_opts *o, struct plan *p,
		     const struct kernel_info *ki)
{
	struct session *s = &r->s;
	/* Without kernel text there is no static discovery to extend either. */
	bool discover = ki->kt && !o->thresh_ns && !o->no_discovery;

	live__set_franges(r->live);
	s->ringbuf_fd = bpf_map__fd(r->skel->maps.bg_events);
	s->stats_fd = bpf_map__fd(r->skel->maps.bg_stats);
	s->batch_fd = bpf_map__fd(r->skel->maps.bg_batch);
	s->enabled = &r->skel->bss->bg_enabled;
	s->stopped = &r->skel->bss->bg_stopped;
	s->active = &r->skel->bss->bg_active;
	s->sink = output__sink(r->out);
	if (discover) {
		s->discover = discover__new(&p->funcs, ki->ks);
		live__probe_calls(r->live, ki->ks, ki->kt, true);
	} else if (ki->kt && !o->thresh_ns && !o->no_callsites) {
		live__probe_calls(r->live, ki->ks, ki->kt, false); /* call sites only */
	}
	live__bind(r->live, s, discover);
}

/* Tracing proper: from enabling the programs to the end of the session. */
static int run_trace(struct run *r, const struct kernel_info *ki)
{
	struct session *s = &r->s;
	unsigned int traced;
	int err = 0;

	r->skel->bss->bg_enabled = 1;
	if (verbosity)
		fprintf(stderr, "bpfgraph: ready after %.2f s: kernel symbols, BTF and text %.2f s, "
			"hook probes and plan %.2f s, programs and links %.2f s (the wide net "
			"%.2f s of it)\n",
			links__now() - ki->t_start, ki->t_kernel - ki->t_start,
			ki->t_plan - ki->t_kernel, links__now() - ki->t_plan,
			live__wide_attach_s(r->live));
	/* Say when tracing really began (without a command: when to stop). */
	traced = attach__stats(r->a)->attached + live__traced(r->live);
	if (s->child <= 0 && (verbosity || isatty(STDERR_FILENO)))
		fprintf(stderr, "bpfgraph: tracing %u functions; Ctrl-C to stop\n", traced);
	else if (s->child > 0 && verbosity)
		fprintf(stderr, "bpfgraph: tracing %u functions; starting the command\n", traced);
	if (s->child > 0)
		err = session__go(s);
	if (!err)
		err = session__run(s);
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
static void release(struct run *r, bool wait)
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

/*
 * Read what is left, close the outputs, release the hooks, say what was
 * done. ran: the session ran (else an error path: outputs are dropped).
 * The programs record nothing after session__finish: the hooks can be
 * released after the trace is written.
 */
static int run_close(struct run *r, const struct plan *p, const struct tracer_sinks *ts,
		     bool ran, bool wait)
{
	struct session *s = &r->s;
	/* From when tracing stopped: session__run drained some already. */
	double t0 = s->stop_ns ? s->stop_ns / 1e9 : links__now(), t_drain, t_out;
	/* A stop request (Ctrl-C, -d) came before: the poll under way ended it. */
	double t_req = s->stop_req_ns && s->stop_req_ns <= s->stop_ns ? s->stop_req_ns / 1e9 : t0;
	struct record_trailer t;
	int cerr;

	if (!ran)
		session__abort(s);
	if (r->a && ran)
		attach__count_misses(r->a);
	if (r->stats_fd >= 0 && ran)
		attach__print_runs(r->a, 15);
	if (ran) {
		session__finish(s);
		session__read_stats(s);
		fill_trailer(&t, r);
	} else if (r->skel && r->skel->bss) {
		r->skel->bss->bg_stopped = 1;
	}
	t_drain = links__now();
	if (r->stats_fd >= 0)
		close(r->stats_fd);
	cerr = output__close(r->out, ran ? &t : NULL, ts->record);
	t_out = links__now();
	release(r, wait);
	/* Where a stop's time goes: the records left are the user's to keep. */
	if (verbosity && ran)
		fprintf(stderr, "bpfgraph: stopping took %.2f s: %.2f s to end the poll under way "
			"(reading %.2f s; formatting %.2f s; the wide net %.2f s; attaching what "
			"was found %.2f s), %.2f s for the graphs under way and the records left "
			"(%llu read after the end), %.2f s to close the output, %.2f s on the "
			"hooks (%s)\n", links__now() - t_req, t0 - t_req, s->stop_step_ns[0] / 1e9,
			s->stop_step_ns[2] / 1e9, s->stop_step_ns[1] / 1e9, s->stop_step_ns[3] / 1e9,
			t_drain - t0,
			(unsigned long long)(s->st.records - s->stop_records), t_out - t_drain,
			r->detach_s,
			r->releaser > 0 ? "left to a background process" : "all released");
	/*
	 * The -d alarm is handled when this process next runs: under a load
	 * (and SCHED_BATCH, see session__run) that may be late, and the
	 * stop's count above starts at the handler.
	 */
	if (verbosity && s->end_due_ns && s->stop_req_ns > s->end_due_ns + 50000000ULL)
		fprintf(stderr, "bpfgraph: the end of -d was seen %.2f s after it was due\n",
			(s->stop_req_ns - s->end_due_ns) / 1e9);
	if (ran)
		cerr = print_report(p, r) ?: cerr;
	discover__free(s->discover);
	session__free_stats(s);
	if (!r->handed_off) {
		live__free(r->live);
		attach__free(r->a);
	}
	return cerr;
}

static int trace(const struct bg_opts *o, struct plan *p, const struct tracer_sinks *ts,
		 struct kernel_info *ki)
{
	struct run r = { .s = { .go_fd = -1, .batch_fd = -1, .duration_ms = o->duration_ms },
			 .stats_fd = -1 };
	int err = run_setup(&r, o, p, ts, ki), cerr;
	const struct kprobe_stats *ks;
	unsigned int hooked;

	if (!err) {
		run_bind(&r, o, p, ki);
		/* Asked to stop before tracing began: the command never runs. */
		if (stop__signal())
			err = -EINTR;
	}
	if (err) {
		/* The plan's functions only: the wide net is not one of them. */
		ks = r.live ? live__kprobe_stats(r.live) : NULL;
		hooked = (r.a ? attach__stats(r.a)->attached : 0) + (ks ? ks->attached : 0);
		run_close(&r, p, ts, false, o->wait_detach);
		if (err == -EINTR && r.releaser > 0)
			fprintf(stderr, "bpfgraph: stopped while attaching (%u of %zu functions "
				"were hooked; process %d releases them): nothing was traced\n",
				hooked, p->funcs.n, (int)r.releaser);
		else if (err == -EINTR)
			fprintf(stderr, "bpfgraph: stopped while attaching (%u of %zu functions "
				"were hooked; all are detached): nothing was traced\n", hooked,
				p->funcs.n);
		return err;
	}
	err = run_trace(&r, ki);
	cerr = run_close(&r, p, ts, true, o->wait_detach);
	if (!err && r.s.st.cmd_status > 0)
		fprintf(stderr, "bpfgraph: command exited with status %d\n",
			WIFEXITED(r.s.st.cmd_status) ? WEXITSTATUS(r.s.st.cmd_status) :
						       128 + WTERMSIG(r.s.st.cmd_status));
	return err ?: cerr;
}

/*
 * An output that cannot be created, or a regular file on a full file
 * system, is found before anything is attached (then it is opened for
 * real, and truncated, once tracing starts). The file is created if
 * missing; one byte is appended and taken off again, so an existing file
 * keeps its contents if bpfgraph stops before tracing. Other files
 * (devices, pipes) are only opened: a byte would reach their reader.
 */
static int check_writable(const char *path)
{
	struct stat st;
	int fd, err = 0;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0)
		err = -errno;
	else if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		if (write(fd, "\n", 1) != 1)
			err = errno ? -errno : -EIO;
		else if (ftruncate(fd, st.st_size))
			err = -errno;
	}
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "bpfgraph: cannot write the trace to '%s': %s\n", path,
			strerror(-err));
	return err;
}

int tracer__exit_status(int err)
{
	if (err == -EINTR)
		return BG_EXIT_INTERRUPTED;
	if (err == -EPIPE)
		return BG_EXIT_PIPE;
	return err ? BG_EXIT_FAILURE : BG_EXIT_OK;
}

void tracer__set_verbosity(int v)
{
	verbosity = v;
	libbpf_set_print(libbpf_print);
}

/*
 * File descriptors the plan's links take: two per function by trampoline,
 * four per kprobe pair (each probe a perf event and its link), a few for
 * all of kprobe.multi; call-site probes come on top, and the rest of
 * bpfgraph needs some (NOFILE_BASE). A limit below that would lose
 * functions while attaching: refused up front, with the number.
 */
#define NOFILE_BASE 256

static int check_nofile(const struct plan *p, enum bg_hook hook)
{
	struct rlimit r;
	size_t need = NOFILE_BASE;

	for (size_t i = 0; i < p->funcs.n && hook != BG_HOOK_KMULTI; i++) {
		const struct bg_func *f = &p->funcs.f[i];

		if (f->flags & BG_FN_CALLSITE)
			continue;
		if (hook == BG_HOOK_KPROBE || (f->flags & BG_FN_KPROBE))
			need += 4;
		else if (hook != BG_HOOK_TMULTI)
			need += 2;
	}
	if (getrlimit(RLIMIT_NOFILE, &r) || r.rlim_cur >= need)
		return 0;
	fprintf(stderr, "bpfgraph: the plan's %zu functions need about %zu file descriptors "
		"(2 per function by trampoline, 4 per kprobe pair), the limit is %llu: raise it "
		"(ulimit -n; root may go up to fs.nr_open) or trace fewer functions\n",
		p->funcs.n, need, (unsigned long long)r.rlim_cur);
	return -EMFILE;
}

/*
 * How long the programs of a bpfgraph that just ended may take to go: the
 * kernel frees them once their links are released (0.2-0.3 s measured
 * under emulation).
 */
#define OTHERS_WAIT_MS 3000

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
	/* The file output__open() opens: the record file, else -o. */
	if (!o->dry_run && (err = check_writable(ts->record ? ts->record : o->output)))
		return err;
	for (size_t i = 0; i < o->nr_pids && !o->dry_run; i++) {
		/* Signal 0 tests existence; EPERM: it exists (another user's). */
		if (kill((pid_t)o->pids[i], 0) && errno == ESRCH) {
			fprintf(stderr, "bpfgraph: -p %u: no such process or thread\n", o->pids[i]);
			return -ESRCH;
		}
	}
	/* Before anything of ours is loaded: one of its programs would be found. */
	if (!o->dry_run && (err = others__check(OTHERS_WAIT_MS)))
		return err;
	/* Ctrl-C from here on ends with what was done, not by the default action. */
	stop__catch();
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
	if (!err && stop__signal()) {
		fprintf(stderr, "bpfgraph: stopped while planning: nothing was attached\n");
		err = -EINTR;
	}
	if (!err && !o->dry_run)
		err = check_nofile(&p, ki.hook);
	if (!err && o->dry_run) {
		printf("# hooks: %s%s\n", ki.hook_why, rest_why(&ki));
		if (ki.hook == BG_HOOK_KMULTI || ki.hook == BG_HOOK_TMULTI)
			printf("# wide net: %s\n", ki.wide_why);
		plan__print(&p, stdout);
	}
	else if (!err)
		err = trace(o, &p, ts, &ki);
	plan__free(&p);
	free_kernel_info(&ki);
	return err;
}
