// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The trace command's steps: pre-flight checks, the kernel's
 * capabilities, the hook tier, the plan, the BPF programs, the hooks, the
 * session, the close. Live tracing and "bpfgraph record" differ only in
 * where the records go (struct tracer_sinks).
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "bpfobj.h"
#include "cli.h"
#include "discover.h"
#include "handoff.h"
#include "kbtf.h"
#include "kops.h"
#include "kprobe.h"
#include "ksyms.h"
#include "ktext.h"
#include "links.h"
#include "live.h"
#include "optprobe.h"
#include "output.h"
#include "plan.h"
#include "preflight.h"
#include "run.h"
#include "session.h"
#include "settle.h"
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

/* Symbols, BTF and text; then what the kernel offers and the tier. */
static int load_kernel(struct kernel *k, const struct bg_opts *o)
{
	struct tier_request tr = { o->hook, o->wide, o->no_discovery, false };
	char why[256] = "";
	bool bounded;

	k->kb = kbtf__load(NULL);
	if (!k->kb) {
		fprintf(stderr, "bpfgraph: kernel BTF not found (/sys/kernel/btf/vmlinux): "
			"fentry needs a kernel built with CONFIG_DEBUG_INFO_BTF\n");
		return -ENOENT;
	}
	k->kt = ktext__open(NULL);
	if (!k->kt && o->callee_depth > 0)
		fprintf(stderr, "bpfgraph: cannot read kernel text (/proc/kcore: %s): "
			"callees are not discovered, only -G and -a functions are traced\n",
			strerror(errno));
	/* From kernel memory where it can be read, else as the kernel prints them. */
	k->ks = ksyms__load_kcore(k->kt, kbtf__btf(k->kb, NULL));
	if (!k->ks && o->verbosity)
		fprintf(stderr, "bpfgraph: kernel symbols not read from kernel memory (%s): "
			"reading /proc/kallsyms\n", strerror(errno));
	if (!k->ks)
		k->ks = ksyms__load(NULL);
	if (k->ks && o->verbosity > 1)
		fprintf(stderr, "bpfgraph: kernel symbols from %s\n", ksyms__source(k->ks));
	if (!k->ks) {
		fprintf(stderr, "bpfgraph: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return -errno;
	}
	if (ksyms__hidden(k->ks)) {
		fprintf(stderr, "bpfgraph: kernel addresses are hidden (kptr_restrict): "
			"run as root\n");
		return -EPERM;
	}
	if (k->kt) {
		k->ops = kops__new(k->kb, k->ks, k->kt);
		if (!k->ops && errno == ENOMEM)
			return -ENOMEM;
	}
	caps__probe(&k->caps, k->ks, k->kt, k->kb, o->verbosity || o->dry_run);
	/* The planner traces the clocksource's read function at its call sites only. */
	k->caps.clock_read = plan__set_clocksource(k->caps.clocksource);
	if (o->verbosity)
		caps__print(&k->caps, stderr, "bpfgraph: ");
	/*
	 * Without a COMMAND the wide net is the default where it draws the
	 * first call whole: not where its return hooks may be bounded
	 * (--wide-mem; fprobe before 6.14, on many CPUs).
	 */
	bounded = k->caps.kprobe_session.have > 0 && progs__wide_bounded(o, &k->caps);
	tr.ftnet_ok = run__ftnet_fits(o, k->kt != NULL, k->caps.kprobe_session.have > 0 && !bounded,
				      why, sizeof(why));
	if (tr.ftnet_ok && bounded && !o->command_argc && o->verbosity)
		fprintf(stderr, "bpfgraph: the wide net's return hooks would be bounded on %d CPUs "
			"(--wide-mem), its first call drawn in part: function_graph records it\n",
			libbpf_num_possible_cpus());
	/* Asked for, or the default's first choice missed for want of tracefs: said. */
	if (!tr.ftnet_ok && why[0] &&
	    (o->wide == BG_WIDE_FTRACE || (o->verbosity && o->command_argc)))
		fprintf(stderr, "bpfgraph: no ftrace net: %s\n", why);
	return tier__choose(&k->tier, &tr, &k->caps);
}

static void free_kernel(struct kernel *k)
{
	wide__free(k->wide_list);
	ksyms__free(k->ks);
	kbtf__free(k->kb);
	kops__free(k->ops);
	ktext__close(k->kt);
}

/*
 * The lock primitives hooked like other callees, not at their call sites
 * (--locks): a hook on them runs for every lock the machine's tasks take,
 * which -p and system-wide traces, run beside the work they watch, are
 * spared by default; a COMMAND's trace keeps the lock calls of functions
 * without an fentry site, where no call-site probe may go.
 */
static bool hook_locks(const struct bg_opts *o)
{
	return o->locks == BG_LOCKS_HOOKED || (o->locks == BG_LOCKS_AUTO && o->command_argc);
}

/*
 * Functions traced at their call sites (__rcu_read_lock...) are: with the
 * kernel's text to find the calls, not under -t, not refused.
 */
static bool callsites(const struct bg_opts *o, const struct kernel *k)
{
#ifdef BG_ABLATE_CALLSITES
	return false; /* a measurement build (tests/bench/ablate.sh): as --no-callsite-probes */
#endif
	return k->kt && !o->thresh_ns && !o->no_callsites;
}

/* Where the plan puts the locks (plan_opts.callsites and hook_locks). */
static bool locks_at_callsites(const struct bg_opts *o, const struct kernel *k)
{
	return callsites(o, k) && !hook_locks(o);
}

static struct plan_opts plan_opts_of(const struct bg_opts *o, const struct kernel *k)
{
	return (struct plan_opts){
		.graph = o->graph.v, .n_graph = (int)o->graph.n,
		.allow = o->allow.v, .n_allow = (int)o->allow.n,
		.notrace = o->notrace.v, .n_notrace = (int)o->notrace.n,
		.callee_depth = k->kt ? (int)o->callee_depth : 0,
		.max_funcs = (int)o->max_funcs,
		.irqs = !!(o->flags & BG_O_IRQS), .kprobes = 1,
		.kprobes_only = k->tier.hook == BG_HOOK_KPROBE || k->tier.hook == BG_HOOK_KMULTI,
		.kprobes_how = tier__kprobes_how(&k->tier),
		/*
		 * Call sites are found and probed with the indirect ones (once
		 * a wide net, which shows those calls itself, is narrowed).
		 */
		.callsites = callsites(o, k),
		.hook_locks = hook_locks(o),
		.ks = k->ks, .kb = k->kb, .kt = k->kt, .ops = k->ops, .err = stderr,
	};
}

/* Starts listing what the wide net will cover, while the rest is planned. */
static void start_wide(struct kernel *k, const struct bg_opts *o)
{
	struct wide_opts wo = {
		.ks = k->ks, .kt = k->kt, .btf = k->kb ? kbtf__btf(k->kb, NULL) : NULL,
		.notrace = o->notrace.v, .n_notrace = o->notrace.n,
		/* fprobe on ftrace ops: see wide_opts.split_hot and attach_kprobes(). */
		.split_hot = !k->caps.fprobe_fgraph,
		.no_rcu = o->no_callsites,
		/* the net's keep link holds them only if call sites take them after */
		.hook_locks = !locks_at_callsites(o, k),
		/* rethook pools: fprobe on ftrace ops, as for split_hot. */
		.ret_pools = !k->caps.fprobe_fgraph,
		.mem_budget = o->wide_mem,
	};
	int ncpus;

	if (!k->tier.wide || o->dry_run)
		return;
	ncpus = libbpf_num_possible_cpus();
	wo.ncpus = ncpus > 0 ? (unsigned int)ncpus : 1;
	k->wide_list = wide__new(&wo);
	if (!k->wide_list)
		fprintf(stderr, "bpfgraph: cannot list functions for the wide net: %s\n",
			strerror(errno));
}

/* The BPF object and live discovery, before anything is loaded. */
static int run_open(struct run *r, const struct bg_opts *o, struct plan *p,
		    const struct tracer_sinks *ts, struct kernel *k)
{
	struct live_opts lo = {
		.plan = p, .po = plan_opts_of(o, k), .tier = k->tier,
		.fprobe_fgraph = k->caps.fprobe_fgraph,
		.wide_always = o->wide == BG_WIDE_ALWAYS, .progress = isatty(STDERR_FILENO),
		.wide_wait_s = o->wide_wait_ms / 1000.0,
		.verbose = o->verbosity,
	};
	struct wide *w = k->wide_list;

	k->wide_list = NULL; /* live's from here */
	r->tier = &k->tier;
	r->obj = progs__open(o, k, p, ts->record != NULL);
	if (r->obj)
		r->a = attach__new(&(struct attach_opts){
			.obj = r->obj, .funcs = &p->funcs, .verbose = o->verbosity,
			.progress = lo.progress, .no_fentry = !tier__trampolines(r->tier),
			.multi = k->tier.hook == BG_HOOK_TMULTI, .err = stderr });
	if (!r->a) {
		wide__free(w);
		return -errno;
	}
	lo.attach = r->a;
	lo.obj = r->obj;
	lo.wide = w;
	r->live = live__new(&lo);
	if (!r->live)
		return -errno;
	if (o->verbosity)
		tier__print(&k->tier, stderr, "bpfgraph: ");
	return 0;
}

/*
 * How long a trace with a net waits for an earlier one's hooks to go: on
 * 6.1 a few hundred trampolines take tens of seconds under emulation.
 */
#define HANDOFF_WAIT_S 60.0

/* The command (stopped until session__go), the hooks and the outputs. */
static int run_setup(struct run *r, const struct bg_opts *o, struct plan *p,
		     const struct tracer_sinks *ts, struct kernel *k, struct spawned *cmd)
{
	struct session *s = &r->s;
	int err = run_open(r, o, p, ts, k);

	if (err)
		return err;
	/* Forked by tracer__run() before the kernel's data was read. */
	if (cmd->pid > 0)
		session__adopt(s, cmd);
	/*
	 * --inherit: the tasks it creates would go on while it is stopped, and
	 * the wide net would wait for a graph of its own to end: traced on
	 * meanwhile, as with -p.
	 */
	s->pause_child = s->child > 0 && !o->no_pause && !o->inherit && k->kt &&
			 !o->thresh_ns && !o->no_discovery;
	s->discover_irqs = o->discover_irqs;
	bpfobj__set_pause(r->obj, s->pause_child ? s->child : 0,
			  k->tier.wide && o->wide != BG_WIDE_ALWAYS);
	/* -vv: per-program run counts and time, kept only while this fd is open. */
	if (o->verbosity >= 2) {
		r->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (r->stats_fd < 0)
			fprintf(stderr, "bpfgraph: cannot enable bpf_stats (%s): no program "
				"run counts\n", strerror(errno));
	}
	/* A net sees every hook: an earlier trace's, still being released, first. */
	if (k->tier.ftnet || k->tier.wide)
		handoff__wait_others(HANDOFF_WAIT_S, stderr, !k->tier.ftnet);
	err = run__attach_ftnet(r, o, k, p);
	err = !err ? run__attach(r, k) : err > 0 ? 0 : err;
	if (!err)
		err = progs__fill(r->obj, o, p, k->kb, s->child);
	if (err)
		return err;
	/*
	 * Its header is written now, once the kernel took the programs: a
	 * refusal prints no header. (A full file system was found before
	 * attaching: preflight__before.)
	 */
	{
		struct args_src as = output__kernel_args(k->kb, k->ks);

		r->out = output__open(o, ts, &p->funcs, &as);
	}
	return r->out ? 0 : -errno;
}

/* The session reads the ring buffer and hands live what it finds. */
static void run_bind(struct run *r, const struct bg_opts *o, struct plan *p,
		     const struct kernel *k)
{
	struct session *s = &r->s;
	const struct bpfobj_vars *v = bpfobj__vars(r->obj);
	/* Without kernel text there is no static discovery to extend either. */
	bool discover = k->kt && !o->thresh_ns && !o->no_discovery;

	live__set_franges(r->live);
	s->ringbuf_fd = bpfobj__map_fd(r->obj, BGM_EVENTS);
	s->stats_fd = bpfobj__map_fd(r->obj, BGM_STATS);
	s->batch_fd = bpfobj__map_fd(r->obj, BGM_BATCH);
	s->enabled = v->enabled;
	s->stopped = v->stopped;
	s->active = v->active;
	s->stop_req = v->stop_req;
	s->pausing = v->pausing;
	s->cont_ns = v->cont_ns;
	s->sink = output__sink(r->out);
	if (discover) {
		s->discover = discover__new(&p->funcs, k->ks);
		live__probe_calls(r->live, k->ks, k->kt, true);
	} else if (callsites(o, k)) {
		live__probe_calls(r->live, k->ks, k->kt, false); /* call sites only */
	}
	live__bind(r->live, s, discover);
}

/* Tracing proper: from enabling the programs to the end of the session. */
static int run_trace(struct run *r, const struct kernel *k)
{
	struct session *s = &r->s;
	unsigned int traced;
	int err = 0;

	/*
	 * Without a command the ftrace net's function_graph records from the
	 * start, before "ready" and -d's count: starting it patches every
	 * function (seconds under emulation, where a -d 1 trace ended first).
	 */
	if (s->child <= 0 && live__ftnet_used(r->live) && (err = live__start_ftnet(r->live)))
		return err;
	*bpfobj__vars(r->obj)->enabled = 1;
	run__cpu(r->cpu_ready);
	if (verbosity)
		fprintf(stderr, "bpfgraph: ready after %.2f s: kernel symbols, BTF and text %.2f s, "
			"hook probes and plan %.2f s, programs and links %.2f s (loading the "
			"programs %.2f s, the wide net %.2f s of it)\n",
			links__now() - k->t_start, k->t_kernel - k->t_start,
			k->t_plan - k->t_kernel, links__now() - k->t_plan,
			attach__stats(r->a)->load_s, live__wide_attach_s(r->live));
	/* Say when tracing really began (without a command: when to stop). */
	traced = attach__stats(r->a)->attached + live__traced(r->live);
	if (s->child <= 0 && live__ftnet_used(r->live) && (verbosity || isatty(STDERR_FILENO)))
		fprintf(stderr, "bpfgraph: tracing by function_graph until the first traced call "
			"is over; Ctrl-C to stop\n");
	else if (s->child <= 0 && (verbosity || isatty(STDERR_FILENO)))
		fprintf(stderr, "bpfgraph: tracing %u functions; Ctrl-C to stop\n", traced);
	else if (s->child > 0 && verbosity && live__ftnet_used(r->live))
		fprintf(stderr, "bpfgraph: tracing by function_graph until the first traced call "
			"is over; starting the command\n");
	else if (s->child > 0 && verbosity)
		fprintf(stderr, "bpfgraph: tracing %u functions; starting the command\n", traced);
	if (s->child > 0) {
		err = session__start(s);
		if (!err)
			err = live__start_ftnet(r->live);
		if (!err)
			run__attach_pause(r);
		if (!err)
			err = session__go(s);
	}
	if (!err)
		err = session__run(s);
	return err;
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
		summary__trailer(&t, r);
	} else if (bpfobj__vars(r->obj)) {
		*bpfobj__vars(r->obj)->stopped = 1;
	}
	t_drain = links__now();
	if (ran) {
		struct timespec now;

		/* This thread's and the ring buffer's reading thread's (ended by now). */
		if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now))
			r->reader_cpu = (double)now.tv_sec + now.tv_nsec / 1e9 +
					s->fetch_st.cpu.all / 1e9;
		run__cpu(r->cpu_traced);
		r->cpu_traced[0] -= r->cpu_ready[0];
		r->cpu_traced[1] -= r->cpu_ready[1];
	}
	if (r->stats_fd >= 0)
		close(r->stats_fd);
	cerr = output__close(r->out, ran ? &t : NULL, ts->record);
	t_out = links__now();
	live__settle(r->live);
	run__release(r, wait);
	/* Where a stop's time goes: the records left are the user's to keep. */
	if (verbosity && ran)
		fprintf(stderr, "bpfgraph: stopping took %.2f s: %.2f s to end the poll under way "
			"(reading %.2f s; formatting %.2f s; the wide net %.2f s; attaching what "
			"was found %.2f s), %.2f s for the graphs under way and the records left "
			"(%llu read after the end), %.2f s to close the output, %.2f s on the "
			"hooks (%s; %.2f s of it to start the releasing process)\n",
			links__now() - t_req, t0 - t_req, s->stop_step_ns[0] / 1e9,
			s->stop_step_ns[2] / 1e9, s->stop_step_ns[1] / 1e9, s->stop_step_ns[3] / 1e9,
			t_drain - t0,
			(unsigned long long)(s->st.records - s->stop_records), t_out - t_drain,
			r->detach_s,
			r->releaser > 0 ? "left to a background process" : "all released",
			r->spawn_s);
	/*
	 * The -d alarm is handled when this process next runs: under a load
	 * (and SCHED_BATCH, see session__run) that may be late, and the
	 * stop's count above starts at the handler.
	 */
	if (verbosity && s->end_due_ns && s->stop_req_ns > s->end_due_ns + 50000000ULL)
		fprintf(stderr, "bpfgraph: the end of -d was seen %.2f s after it was due\n",
			(s->stop_req_ns - s->end_due_ns) / 1e9);
	if (ran)
		cerr = summary__print(p, r, verbosity) ?: cerr;
	discover__free(s->discover);
	session__free_stats(s);
	if (!r->handed_off) {
		live__free(r->live);
		attach__free(r->a);
	}
	return cerr;
}

static int trace(const struct bg_opts *o, struct plan *p, const struct tracer_sinks *ts,
		 struct kernel *k, struct spawned *cmd)
{
	struct run r = { .s = { .go_fd = -1, .batch_fd = -1, .duration_ms = o->duration_ms },
			 .stats_fd = -1 };
	int err, cerr;
	const struct kprobe_stats *ks;
	unsigned int hooked;

	if (o->no_opt_hold)
		optprobe__forbid();
	err = run_setup(&r, o, p, ts, k, cmd);
	if (!err) {
		run_bind(&r, o, p, k);
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
	err = run_trace(&r, k);
	cerr = run_close(&r, p, ts, true, o->wait_detach);
	if (!err && r.s.st.cmd_status > 0)
		fprintf(stderr, "bpfgraph: command exited with status %d\n",
			WIFEXITED(r.s.st.cmd_status) ? WEXITSTATUS(r.s.st.cmd_status) :
						       128 + WTERMSIG(r.s.st.cmd_status));
	return err ?: cerr;
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

/* What --dry-run prints: the kernel's offer, the hook tier, the plan. */
static void print_plan(FILE *out, const struct kernel *k, const struct plan *p)
{
	caps__print(&k->caps, out, "# ");
	tier__print(&k->tier, out, "# ");
	plan__print(p, out);
}

/* --plan-file: the same into a file, before anything is attached. */
static int write_plan(const char *path, const struct kernel *k, const struct plan *p)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f) {
		err = -errno;
		fprintf(stderr, "bpfgraph: --plan-file: cannot write '%s': %s\n", path,
			strerror(errno));
		return err;
	}
	print_plan(f, k, p);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		fprintf(stderr, "bpfgraph: --plan-file: writing '%s' failed: %s\n", path,
			strerror(-err));
	return err;
}

int tracer__run(const struct bg_opts *o, const struct tracer_sinks *ts)
{
	struct kernel k = {};
	struct plan p = {};
	struct plan_opts po;
	struct spawned cmd = { 0, -1 };
	int err = preflight__before(o, ts->record ? ts->record : o->output);

	if (err)
		return err;
	/*
	 * Blocks of 256 KiB and more in mappings of their own, whatever was
	 * freed before: otherwise glibc raises that bound to the largest block
	 * freed (the BTF file's read buffer), and the next ones of that size
	 * (libbpf's own copy of the kernel's BTF while it loads the programs,
	 * the symbol sort's scratch) are carved from the heap, whose freed
	 * middle stays this process's for the whole trace: 8 MiB on 7.3.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	/* Ctrl-C from here on ends with what was done, not by the default action. */
	stop__catch();
	preflight__raise_nofile();
	/*
	 * The command is forked now, while this process is small: its exec
	 * then frees a copy of a few pages, not of the kernel's symbols, BTF
	 * and text read below (tens of MiB), whose teardown a traced exec
	 * drew (thousands of page-table lines in -G __x64_sys_execve's first
	 * call, which filled function_graph's buffers) and whose freed page
	 * tables and VMAs left the RCU grace-period thread work to do in the
	 * command's first calls. It waits for session__go().
	 */
	if (o->command_argc && !o->dry_run) {
		err = session__spawn_early(&cmd, o->command, preflight__nofile_before());
		if (err) {
			fprintf(stderr, "bpfgraph: cannot start the command: %s\n", strerror(-err));
			return err;
		}
	}
	/* Threads whose stacks are given back when tracing begins (settle.h). */
	if (!o->dry_run)
		settle__park();
	k.t_start = links__now();
	err = load_kernel(&k, o);
	k.t_kernel = links__now();
	if (!err) {
		start_wide(&k, o);
		po = plan_opts_of(o, &k);
		err = plan__build(&p, &po);
	}
	k.t_plan = links__now();
	if (!err && stop__signal()) {
		fprintf(stderr, "bpfgraph: stopped while planning: nothing was attached\n");
		err = -EINTR;
	}
	if (!err && !o->dry_run)
		err = preflight__nofile(&p, k.tier.hook);
	if (!err && o->plan_file)
		err = write_plan(o->plan_file, &k, &p);
	if (!err && o->dry_run) {
		print_plan(stdout, &k, &p);
	} else if (!err) {
		err = trace(o, &p, ts, &k, &cmd);
	}
	/* Not handed to a session (an error, --dry-run): it exits unrun. */
	session__drop(&cmd);
	plan__free(&p);
	free_kernel(&k);
	return err;
}
